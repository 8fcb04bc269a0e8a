"""The right pick through the real CLI, judged by long runs of the script: never slower than
as written, the knee rather than the peak, and the cores the job really has."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.cli.long_runs import never_slower
from tests.conftest import EXAMPLES, MARK_ENV, SCRIPTS, assert_no_orphans

# Picks judged by long runs: no other test beside it (tests/turns.py).
pytestmark = pytest.mark.alone

CLI = [sys.executable, "-m", "autotune.cli", "probe"]
MODEL = EXAMPLES / "model_bound.py"
MODEL_ARGS = ("--epochs", "100", "--width", "512")


def _answer(
    script: Path,
    args: tuple[str, ...],
    db_url: str,
    *options: str,
    prefix: tuple[str, ...] = (),
    preexec_fn: Callable[[], None] | None = None,
) -> dict[str, Any]:
    mark = uuid.uuid4().hex
    proc = subprocess.run(
        [*prefix, *CLI, str(script), "--storage", db_url, "--json", *options, "--", *args],
        capture_output=True,
        text=True,
        timeout=600,  # the search bounds itself (--trials, --trial-timeout): this is a hang
        env={**os.environ, MARK_ENV: mark},
        preexec_fn=preexec_fn,
    )
    assert proc.returncode == 0, proc.stderr
    assert_no_orphans(mark)
    data = dict(json.loads(proc.stdout))
    data["_log"] = proc.stderr
    return data


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_a_model_bound_script_gets_its_own_settings_or_one_as_fast(db_url: str) -> None:
    data = _answer(MODEL, MODEL_ARGS, db_url, "--trials", "4", "--window", "0.4")
    never_slower(data, MODEL, MODEL_ARGS)


@contextmanager
def _affinity(cpus: set[int]) -> Iterator[None]:
    """This process, and what it starts, on ``cpus`` only (as ``taskset`` does)."""
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, cpus)
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="one core of several needs two cores")
def test_under_taskset_on_one_core_the_answer_counts_that_core_and_is_as_fast(
    db_url: str,
) -> None:
    with _affinity({0}):
        data = _answer(MODEL, MODEL_ARGS, db_url, "--trials", "4", "--window", "0.4")
        assert data["hardware"]["cpu_count"] == 1, data["hardware"]
        assert "1 of the node's" in data["cores"] and "a CPU set of 1" in data["cores"], data
        never_slower(data, MODEL, MODEL_ARGS, stated=None)


@contextmanager
def _in_cgroup(group: Path) -> Iterator[None]:
    """This process, and what it starts, in ``group``; back in its own cgroup after."""
    own = next(
        line.split(":", 2)[2]
        for line in Path("/proc/self/cgroup").read_text().splitlines()
        if line.startswith("0::") or "cpu" in line.split(":")[1].split(",")
    )
    home = group.parent / own.strip("/")
    (group / "cgroup.procs").write_text(str(os.getpid()))
    try:
        yield
    finally:
        (home / "cgroup.procs").write_text(str(os.getpid()))


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="a quota below the node needs two cores")
def test_in_a_one_core_cpu_quota_the_answer_counts_the_quota_and_is_as_fast(
    db_url: str, one_core_cgroup: Path
) -> None:
    with _in_cgroup(one_core_cgroup):
        data = _answer(MODEL, MODEL_ARGS, db_url, "--trials", "4", "--window", "0.4")
        assert data["hardware"]["cpu_count"] == 1, data["hardware"]
        assert "a CPU quota of 1 core" in data["cores"], data
        # Issue 49 asks a pick at least as fast here; the stated figure is judged on a quiet
        # machine (one run here stated 2.15x where long runs showed 1.82x, the pick torch's
        # threads on the quota's one core).
        never_slower(data, MODEL, MODEL_ARGS, stated=None)


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_a_rate_bound_by_storage_slots_is_recommended_near_that_many_workers(
    db_url: str,
) -> None:
    # The storage serves 4 requests at once: 4 workers reach the rate, more add nothing.
    slots = 4
    script, args = SCRIPTS / "limited_store.py", ("--slots", str(slots), "--latency-ms", "10")
    data = _answer(script, args, db_url, "--trials", "14", "--window", "0.5")
    workers = data["recommended"]["config"]["num_workers"]
    # Issue 49 asks at most 1.5x the count where the rate stops growing.
    assert 1 <= workers <= 1.5 * slots, data["_log"]
    assert data["speedup"] >= 2, data["_log"]
    choice = data["choice"] or ""
    assert "reaches" in choice or f"the knee: {workers} workers" in choice, data["_log"]
