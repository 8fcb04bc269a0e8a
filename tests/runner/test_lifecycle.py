"""Every process autotune starts ends with it, with real processes: a probe's whole tree is
gone soon after autotune is SIGKILLed mid-trial; a live run's training sees Ctrl-C as it
would from a terminal, and outlives a SIGKILLed autotune with nothing left once it ends.

Nothing here sleeps for a guessed time: each test waits on an event (a pid file the script
writes, a trial in the study, a line in the training's output) under a bounded deadline.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import optuna
import psutil
import pytest

from tests.conftest import MARK_ENV, SCRIPTS, as_foreground, assert_no_orphans, marked_processes

CLI = [sys.executable, "-m", "autotune.cli"]
SCRIPT = str(SCRIPTS / "lifecycle.py")
# The promise: no process of a probe is alive this long after autotune died.
GONE_S = 15.0
QUICK = ["--max-workers", "4", "--warmup", "0.2", "--window", "0.3"]


def wait_for(what: str, ready: Callable[[], bool], deadline_s: float = 180.0) -> None:
    end = time.monotonic() + deadline_s
    while not ready():
        if time.monotonic() > end:
            raise AssertionError(f"not within {deadline_s:.0f}s: {what}")
        time.sleep(0.05)


def pids_named(folder: Path, kind: str) -> set[int]:
    return {int(p.name.split("-")[1]) for p in folder.glob(f"{kind}-*")}


def alive(procs: list[psutil.Process]) -> list[psutil.Process]:
    """Those of ``procs`` still running (the same process: psutil checks its start time)."""
    left = []
    for proc in procs:
        try:
            if proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE:
                left.append(proc)
        except psutil.NoSuchProcess:
            continue
    return left


def _processes(pids: set[int]) -> list[psutil.Process]:
    """The processes of ``pids`` that still exist."""
    found = []
    for pid in pids:
        with suppress(psutil.NoSuchProcess):
            found.append(psutil.Process(pid))
    return found


def wait_gone(procs: list[psutil.Process], deadline_s: float) -> list[psutil.Process]:
    end = time.monotonic() + deadline_s
    while (left := alive(procs)) and time.monotonic() < end:
        time.sleep(0.05)
    return left


@contextmanager
def started(
    cmd: list[str], tmp_path: Path, mark: str, **env: str
) -> Iterator[tuple[subprocess.Popen[bytes], Path, Path]]:
    """``cmd`` in a session and process group of its own, as a terminal starts a foreground
    job; its stdout and stderr in files. Whatever of its tree is left after the test is
    killed, so a failure leaves nothing behind either."""
    out, err = tmp_path / "stdout.txt", tmp_path / "stderr.txt"
    full_env = {**os.environ, MARK_ENV: mark, **env}
    with out.open("wb") as fo, err.open("wb") as fe:
        proc = subprocess.Popen(
            cmd, stdout=fo, stderr=fe, stdin=subprocess.DEVNULL, env=full_env,
            start_new_session=True, preexec_fn=as_foreground,
        )  # fmt: skip
    try:
        yield proc, out, err
    finally:
        for left in marked_processes(mark):
            with suppress(psutil.Error):
                left.kill()
        proc.kill()
        proc.wait()


def study_name(err: Path) -> str | None:
    text = err.read_text(errors="replace")
    if "recorded in study " not in text:
        return None
    return text.split("recorded in study ")[1].split()[0]


def trials(db_url: str, name: str) -> list[optuna.trial.FrozenTrial]:
    return optuna.load_study(study_name=name, storage=db_url).get_trials(deepcopy=False)


def finished(db_url: str, name: str) -> int:
    return sum(t.state.is_finished() for t in trials(db_url, name))


@pytest.mark.slow
def test_sigkill_of_autotune_probe_mid_trial_leaves_no_process_of_the_probe(
    tmp_path: Path, db_url: str
) -> None:
    mark, pids = uuid.uuid4().hex, tmp_path / "pids"
    workers = 4
    cmd = [
        *CLI, "probe", SCRIPT, "--storage", db_url, "--trials", "1", "--trial-timeout", "300",
        "--", "--pids", str(pids), "--workers", str(workers), "--epochs", "1000",
        "--latency-ms", "20", "--stuck", "--detach",
    ]  # fmt: skip
    with started(cmd, tmp_path, mark, TMPDIR=str(tmp_path)) as (cli, _, err):

        def mid_trial() -> bool:
            assert cli.poll() is None, err.read_text(errors="replace")
            return bool(
                pids_named(pids, "main")
                and len(pids_named(pids, "worker")) >= workers
                and pids_named(pids, "detached")
            )

        wait_for("the probe's workers loading", mid_trial)
        # Named before the tree is read: each epoch starts new workers and the last ones end,
        # so a name may outlast its process; every one still running is in autotune's tree.
        own = pids_named(pids, "main") | pids_named(pids, "worker") | pids_named(pids, "detached")
        tree = psutil.Process(cli.pid).children(recursive=True)
        in_tree = {p.pid for p in tree}
        outside = alive(_processes(own - in_tree))
        assert not outside, (own, in_tree, [(p.pid, p.cmdline()) for p in outside])
        os.kill(cli.pid, signal.SIGKILL)
        cli.wait()
        left = wait_gone(tree, GONE_S)
        assert not left, [(p.pid, p.cmdline()) for p in left]
        assert_no_orphans(mark, wait_s=1.0)
        # the watcher was the last of the tree: it removed the probe's files before it went
        assert not list(tmp_path.glob("autotune-probe-*"))


def exchange_dirs(tmp: Path) -> list[Path]:
    return list(tmp.glob("autotune-adapt-*"))


@pytest.mark.slow
def test_ctrl_c_reaches_the_training_as_from_a_terminal_and_keeps_the_segments(
    tmp_path: Path, db_url: str
) -> None:
    mark, pids, out, tmp = uuid.uuid4().hex, tmp_path / "pids", tmp_path / "out.txt", tmp_path
    cmd = [
        *CLI, "run", SCRIPT, "--adapt", "--storage", db_url, *QUICK,
        "--", "--pids", str(pids), "--workers", "2", "--epochs", "1000", "--detach",
        "--out", str(out),
    ]  # fmt: skip
    with started(cmd, tmp_path, mark, TMPDIR=str(tmp)) as (cli, _, err):
        wait_for("the study's name", lambda: study_name(err) is not None)
        name = study_name(err)
        assert name is not None

        def segments_told() -> bool:
            assert cli.poll() is None, err.read_text(errors="replace")
            return finished(db_url, name) >= 2

        wait_for("two segments in the study", segments_told)
        before = finished(db_url, name)
        os.killpg(cli.pid, signal.SIGINT)  # what a terminal's Ctrl-C does: the foreground group
        try:
            code = cli.wait(timeout=180)
        except subprocess.TimeoutExpired:
            said, lines = err.read_text(errors="replace"), out.read_text().split("\n")
            pytest.fail(f"still running 180 s after Ctrl-C; the training wrote {lines}:\n{said}")
        said = err.read_text(errors="replace")
        assert code == 130, said
        assert out.read_text().split("\n")[:2] == ["started", "interrupted"], out.read_text()
        assert "KeyboardInterrupt" in said  # the training's own traceback, as Python prints it
        states = [t.state for t in trials(db_url, name)]
        assert all(s.is_finished() for s in states), states
        assert sum(s.is_finished() for s in states) >= before
        assert_no_orphans(mark)
        assert not exchange_dirs(tmp)


@pytest.mark.slow
def test_sigkill_of_autotune_run_adapt_leaves_the_training_to_finish_and_nothing_after(
    tmp_path: Path, db_url: str
) -> None:
    mark, pids, out, tmp = uuid.uuid4().hex, tmp_path / "pids", tmp_path / "out.txt", tmp_path
    # The training runs until the test says stop: on a slow machine ten epochs could end
    # before the first segment is told, and the folder with them.
    stop = tmp_path / "stop"
    cmd = [
        *CLI, "run", SCRIPT, "--adapt", "--storage", db_url, *QUICK,
        "--", "--pids", str(pids), "--workers", "1", "--samples", "256", "--epochs", "1000",
        "--detach", "--out", str(out), "--until", str(stop),
    ]  # fmt: skip
    with started(cmd, tmp_path, mark, TMPDIR=str(tmp)) as (cli, _, err):
        wait_for("the study's name", lambda: study_name(err) is not None)
        name = study_name(err)
        assert name is not None

        def segment_told() -> bool:
            assert cli.poll() is None, err.read_text(errors="replace")
            return finished(db_url, name) >= 1

        wait_for("segment 0 in the study", segment_told)
        assert exchange_dirs(tmp)
        os.kill(cli.pid, signal.SIGKILL)
        cli.wait()
        stop.touch()
        wait_for("the training's end", lambda: "finished" in out.read_text())
        assert "interrupted" not in out.read_text()
        assert_no_orphans(mark, wait_s=GONE_S)  # workers, the detached process, the watcher
        wait_for("the exchange folder removed", lambda: not exchange_dirs(tmp), GONE_S)
