"""A real search beside a CPU-spinning process: the answer says so and claims no false bound."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import optuna
import pytest

from autotune import state
from autotune.contract import LoaderConfig, ProbeSettings, TrialConfig
from autotune.runner import SubprocessRunner, Target
from tests.cli.long_runs import never_slower
from tests.conftest import EXAMPLES, MARK_ENV, assert_no_orphans

# Another process's load is the subject: no other test beside it (tests/turns.py).
pytestmark = pytest.mark.alone

SPIN = "print('spinning', flush=True)\nwhile True: pass"
# How far the stated figure may be from the pick's long runs beside a spinner: 15 %, or the
# spread of those long runs themselves where it is wider. One config's long runs move by tens
# of per cent there (421 and 540 samples/s in one run of this test): no figure can agree with
# a reference more closely than the reference agrees with itself.
STATED_REL = 0.15


def _stated_within(stated: float, long_runs: list[float]) -> bool:
    """``stated`` agrees with the median of ``long_runs`` within STATED_REL or their spread."""
    long = statistics.median(long_runs)
    spread = (max(long_runs) - min(long_runs)) / long
    return abs(stated - long) <= max(STATED_REL, spread) * long


CLI = [sys.executable, "-m", "autotune.cli", "probe"]
SCRIPT = ["--", "--epochs", "100", "--width", "512"]


@contextmanager
def _spinning() -> Iterator[None]:
    """A CPU-spinning process beside whatever the block runs, from its first spin to the end."""
    with subprocess.Popen(
        [sys.executable, "-c", SPIN], stdout=subprocess.PIPE, text=True
    ) as spinner:
        try:
            assert spinner.stdout is not None
            assert spinner.stdout.readline().strip() == "spinning"  # it spins from here on
            yield
        finally:
            spinner.kill()


def _cli(args: list[str], mark: str) -> subprocess.CompletedProcess[str]:
    # The search bounds itself (--timeout, --trial-timeout); this limit only catches a hang,
    # so it is far above what a busy 2-core machine needs.
    return subprocess.run(
        [*CLI, *args],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, MARK_ENV: mark},
    )


def _long_run(script: Path, args: tuple[str, ...], config: LoaderConfig) -> float:
    """Samples/s of ``config`` over two 6 s windows after the warm-up (whole
    epochs, where an epoch is that short): the probe's own measuring, in a process of its own,
    as a user's longer run would see it. Beside a spinner one config's rate moves over tens
    of seconds (12 workers: 294, 404 and 392 samples/s in three 24 s runs), so 3 s runs, as
    this test took before, disagreed with each other by up to 2x."""
    settings = ProbeSettings(window_s=6.0, windows=2, min_windows=0)
    result = SubprocessRunner().run(
        Target(str(script), args),
        TrialConfig(loader=config, settings=settings, mode="measure"),
        timeout_s=150,
    )
    assert result.ok and result.samples_per_s, (result.status, result.reason)
    return result.samples_per_s


def _workers(n: int, threads: int | None = None) -> LoaderConfig:
    """A grid point: ``n`` persistent workers (and ``threads`` torch threads), the script
    otherwise as written."""
    return LoaderConfig(num_workers=n, prefetch_factor=2, persistent_workers=n > 0, threads=threads)


@pytest.mark.slow
@pytest.mark.timeout(600)  # a search beside a spinner, then up to 6 long runs, on 2 cores
def test_a_latency_bound_search_under_a_steady_spinner_picks_near_the_best_and_says_so(
    db_url: str,
) -> None:
    """A spinner for the whole search: a speedup measured like with like under the condition
    named, stated from fresh re-measures; the pick at least 0.8 of 12 workers' long runs (with
    torch's threads as they are, and with 1) under the same spinner (interleaved), and the
    figure stated within ``_stated_within`` of the pick's long runs."""
    mark = uuid.uuid4().hex
    script, args = EXAMPLES / "io_bound.py", ("--epochs", "100000", "--latency-ms", "20")
    # --max-workers keeps a loaded machine from forking dozens of workers beside the spinner;
    # --timeout stops the search scheduling probes once a busy machine has spent its share.
    quick = ["--trials", "4", "--json", "--trial-timeout", "60", "--window", "0.5"]
    quick += ["--max-workers", "12", "--timeout", "90"]
    with _spinning():
        proc = _cli([str(script), "--storage", db_url, *quick, "--", *args[2:]], mark)
        assert proc.returncode == 0, proc.stderr
        data = json.loads(proc.stdout)
        pick = LoaderConfig.from_dict(data["recommended"]["config"])
        assert pick.num_workers, data["recommended"]
        # The grid point the pick is, if any: the script as written but for these settings.
        as_grid = LoaderConfig(
            num_workers=pick.num_workers,
            prefetch_factor=pick.prefetch_factor,
            persistent_workers=pick.persistent_workers,
            threads=pick.threads,
        )
        # Interleaved under the same spinner: the pick, then the grid; a second such round
        # where the first leaves the ratios in doubt (one config's long runs move by tens of
        # per cent beside a spinner on 2 cores: a round is one sample of that). A pick that is
        # a grid point is that point's run too.
        picked: list[float] = []
        # 12 workers is the grid, with torch's threads as they are and with 1: 4 workers could
        # never be its best (at 0.64 s a batch they deliver at most 200 samples/s, a third of
        # what 12 can), so measuring them only took time.
        grid: dict[LoaderConfig, list[float]] = {_workers(12): [], _workers(12, 1): []}
        for _ in range(2):
            picked.append(_long_run(script, args, pick))
            for n, runs in grid.items():
                runs.append(picked[-1] if n == as_grid else _long_run(script, args, n))
            long = statistics.median(picked)
            best = max(statistics.median(runs) for runs in grid.values())
            stated = data["recommended"]["samples_per_s"]
            if long >= 0.8 * best and _stated_within(stated, picked):
                break
    said = (proc.stderr, picked, grid)
    # Waiting on storage takes no CPU: workers hide it whoever else uses the cores.
    assert data["speedup"] >= 3, said
    # A steady load, named: the figure stated is the pick's fresh re-measures, twice, not the
    # probe that made it the leader (the luckiest one).
    assert data["interference"]["disturbed_windows"] >= 1, data["interference"]
    assert data["interference"]["condition"]["kind"] == "loaded", data["interference"]
    study = optuna.load_study(study_name=data["study"], storage=db_url)
    confirmed = state.load(study).confirmation
    assert confirmed is not None and confirmed.fresh, proc.stderr
    chosen = next(c for c in confirmed.candidates if c.trial == data["recommended"]["trial"])
    assert chosen.runs == 2 and chosen.median == data["recommended"]["samples_per_s"], chosen
    assert_no_orphans(mark)
    # Issue 33's two targets. They were missed here while torch ran its 2 threads beside the
    # spinner (stated 537 against long runs of 249 and 303): each step waited on the thread
    # that shared the spinner's core, and the rate moved by 2x over tens of seconds. With
    # torch's threads a setting, 4 bench runs of this case agreed within 3 %.
    assert long >= 0.8 * best, f"the pick's long runs {picked}, the grid's {grid}; {said}"
    assert _stated_within(stated, picked), f"stated {stated:.0f}, the pick's long runs {said}"


@pytest.mark.slow
def test_a_baseline_slowed_by_a_spinner_that_then_stops_claims_no_speedup(db_url: str) -> None:
    """The spinner runs while the script as written is measured and is stopped the moment the
    CLI reports that trial (its own progress line): every later trial runs on a quiet machine.
    The truth for a model-bound script is 1.00x; the answer says that, or that it could not
    compare, never a speedup."""
    mark = uuid.uuid4().hex
    args = [str(EXAMPLES / "model_bound.py"), "--storage", db_url, "--trials", "4", "--json"]
    args += ["--trial-timeout", "60", "--window", "0.4", *SCRIPT]
    stopped_at: list[str] = []
    with subprocess.Popen(
        [sys.executable, "-c", SPIN], stdout=subprocess.PIPE, text=True
    ) as spinner:
        assert spinner.stdout is not None
        assert spinner.stdout.readline().strip() == "spinning"
        try:
            with subprocess.Popen(
                [*CLI, *args],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env={**os.environ, MARK_ENV: mark},
            ) as cli:
                assert cli.stderr is not None and cli.stdout is not None
                err: list[str] = []

                def follow() -> None:
                    assert cli.stderr is not None
                    for line in cli.stderr:
                        err.append(line)
                        if line.strip().startswith("#0 ") and spinner.poll() is None:
                            spinner.kill()
                            stopped_at.append(line)

                reader = threading.Thread(target=follow)
                reader.start()
                out = cli.stdout.read()
                code = cli.wait(timeout=600)
                reader.join(timeout=60)
        finally:
            spinner.kill()
    assert code == 0, "".join(err)
    assert stopped_at, "".join(err)  # the baseline really was measured beside the spinner
    data = json.loads(out)
    said = data["interference"]
    assert said is not None, data
    # The spinner took a core of two while the script as written was measured: its windows
    # say so, and so does the answer.
    assert said["baseline"]["windows"] > 0 and said["disturbed_windows"] >= 1, said
    assert said["max_cores"] >= 0.5, said
    assert "another process used" in said["summary"], said
    # The step binds a model-bound loop, beside a spinner too: never an efficiency against
    # the loader's transport.
    assert data["binding_ceiling"] in (None, "compute"), data
    if data["binding_ceiling"] is None:
        assert data["efficiency"] is None
    if said["comparison"] is None:
        assert data["speedup"] is not None and data["speedup"] <= 1.2, (data, "".join(err))
    else:
        assert data["speedup"] is None, data
    assert_no_orphans(mark)
    # Judged on the quiet machine it now is: the pick is the script's own settings, or long
    # runs show it as fast (a thread count chosen beside the spinner is no gain here).
    data["_log"] = "".join(err)
    never_slower(data, EXAMPLES / "model_bound.py", tuple(SCRIPT[1:]))
