"""Probes forked by the zygote: one interpreter imports torch for a whole search, each probe
is its fork, in a session of its own, and nothing of either outlives the runner."""

from __future__ import annotations

import json
import os
import signal
import uuid
from pathlib import Path

import psutil
import pytest

from autotune.contract import LoaderConfig, TrialConfig
from autotune.runner import SubprocessRunner, Target
from autotune.runner._zygote import ZYGOTE_ENV
from tests.conftest import FAST, MARK_ENV, SCRIPTS, assert_no_orphans, marked_processes

CHILD = str(SCRIPTS / "zygote_child.py")


def _seen(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _target(out: Path, mark: str, **env: str) -> Target:
    return Target(CHILD, (str(out),), env={MARK_ENV: mark, **env})


def _gone(pid: int) -> None:
    """Wait for ``pid`` to exit (an event: psutil waits on the process itself)."""
    with pytest.raises(psutil.NoSuchProcess):
        proc = psutil.Process(pid)
        proc.wait(timeout=10)
        proc.status()


def test_the_probes_of_a_search_are_forks_of_one_zygote(tmp_path: Path) -> None:
    out, mark = tmp_path / "seen.jsonl", uuid.uuid4().hex
    runner = SubprocessRunner()
    config = TrialConfig(LoaderConfig(threads=1), FAST)
    for _ in range(2):
        runner.run(_target(out, mark), config, timeout_s=60)
    first, second = _seen(out)
    zygote = first["ppid"]
    assert isinstance(zygote, int) and zygote != os.getpid()
    assert second["ppid"] == zygote  # torch imported once, by the zygote
    assert "autotune.probe._zygote" in " ".join(psutil.Process(zygote).cmdline())
    for seen in (first, second):
        assert seen["sid"] == seen["pid"]  # its own session, as an exec'd probe's
        assert seen["threads"] == 1  # torch's threads set in the fork as the env sets them
    runner.close()
    _gone(zygote)
    assert_no_orphans(mark)


def test_a_zygote_started_early_serves_the_first_probe(tmp_path: Path) -> None:
    # Started before the caller's own set-up, it imports torch meanwhile; the probe waits
    # for it to be ready rather than starting another.
    out, mark = tmp_path / "seen.jsonl", uuid.uuid4().hex
    runner = SubprocessRunner()
    target = _target(out, mark)
    runner.prestart(target)
    (early,) = [p.pid for p in marked_processes(mark)]
    assert "autotune.probe._zygote" in " ".join(psutil.Process(early).cmdline())
    runner.run(target, TrialConfig(settings=FAST), timeout_s=60)
    (seen,) = _seen(out)
    assert seen["ppid"] == early
    runner.close()
    _gone(early)
    assert_no_orphans(mark)


def test_an_environment_the_zygote_does_not_serve_gets_a_zygote_of_its_own(
    tmp_path: Path,
) -> None:
    out, mark = tmp_path / "seen.jsonl", uuid.uuid4().hex
    runner = SubprocessRunner()
    for x in ("1", "2"):
        runner.run(_target(out, mark, ZYGOTE_TEST_X=x), TrialConfig(settings=FAST), timeout_s=60)
    first, second = _seen(out)
    assert (first["x"], second["x"]) == ("1", "2")
    assert first["ppid"] != second["ppid"]
    runner.close()
    assert_no_orphans(mark)


def test_with_the_zygote_off_every_probe_is_execd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ZYGOTE_ENV, "0")
    out, mark = tmp_path / "seen.jsonl", uuid.uuid4().hex
    SubprocessRunner().run(_target(out, mark), TrialConfig(settings=FAST), timeout_s=60)
    (seen,) = _seen(out)
    assert seen["ppid"] == os.getpid()
    assert_no_orphans(mark)


def test_a_hung_fork_is_killed_and_the_next_probe_is_served() -> None:
    mark = uuid.uuid4().hex
    runner = SubprocessRunner()
    env = {MARK_ENV: mark}
    hung = runner.run(
        Target(str(SCRIPTS / "hang.py"), ("--workers", "1"), env=env),
        TrialConfig(LoaderConfig(num_workers=1), FAST),
        timeout_s=8,
    )
    assert hung.status == "hung", hung.reason + hung.stderr_tail
    ok = runner.run(
        Target(str(SCRIPTS / "basic.py"), (), env=env),
        TrialConfig(LoaderConfig(num_workers=1), FAST),
        timeout_s=60,
    )
    assert ok.status == "ok", ok.reason + ok.stderr_tail
    runner.close()
    assert_no_orphans(mark)


def test_after_the_zygote_died_the_next_probe_still_runs(tmp_path: Path) -> None:
    out, mark = tmp_path / "seen.jsonl", uuid.uuid4().hex
    runner = SubprocessRunner()
    runner.run(_target(out, mark), TrialConfig(settings=FAST), timeout_s=60)
    (first,) = _seen(out)
    zygote = first["ppid"]
    assert isinstance(zygote, int)
    os.kill(zygote, signal.SIGKILL)
    _gone(zygote)
    runner.run(_target(out, mark), TrialConfig(settings=FAST), timeout_s=60)
    _, second = _seen(out)
    assert second["ppid"] != zygote
    runner.close()
    assert_no_orphans(mark)


def test_the_script_s_installed_libraries_are_preloaded_for_later_probes(tmp_path: Path) -> None:
    out, mark = tmp_path / "seen.jsonl", uuid.uuid4().hex
    runner = SubprocessRunner()
    target = Target(str(SCRIPTS / "zygote_libraries.py"), (str(out),), env={MARK_ENV: mark})
    for _ in range(2):
        runner.run(target, TrialConfig(settings=FAST), timeout_s=60)
    first, second = _seen(out)
    assert first["ppid"] == second["ppid"]  # one zygote: preloading yaml did not taint it
    assert (first["yaml"], second["yaml"]) == (False, True)  # imported between the probes
    assert not first["own"] and not second["own"]  # the script's own modules never are
    assert first["loaded"] and second["loaded"]
    runner.close()
    assert_no_orphans(mark)
