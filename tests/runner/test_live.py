"""The search's side of a live run: segments read as the run reports them, pruned on their
windows, and ended when the training ends first."""

from __future__ import annotations

import os
import signal
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psutil
import pytest
import torch

from autotune.contract import (
    AdaptOrder,
    LoaderConfig,
    ProbeSettings,
    TrialConfig,
    adapt_segment_path,
)
from autotune.runner import LiveRun, LiveRunner, Target
from tests.conftest import MARK_ENV, SCRIPTS, assert_no_orphans
from tests.probe.session.test_segments import QUICK, SCRIPT, workers
from tests.runner.test_group import watchers
from tests.runner.test_lifecycle import GONE_S, pids_named, wait_for, wait_gone


@contextmanager
def _live(
    args: tuple[str, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[LiveRun, Path]]:
    """A live run of the ordered script, its output in a file; nothing of it may outlive it,
    neither a process nor a temporary directory of its DataLoader workers."""
    mark = uuid.uuid4().hex
    monkeypatch.setenv(MARK_ENV, mark)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp))  # the training's, not this process's (read once)
    out_path = tmp_path / "out.txt"
    with out_path.open("w") as out, LiveRun(Target(str(SCRIPT), args), QUICK, stdout=out) as live:
        yield live, out_path
    assert_no_orphans(mark)
    assert sorted(p.name for p in tmp.iterdir()) == []
    assert not live.workers_tmp.exists()


@pytest.mark.slow
def test_a_pruned_segment_ends_at_once_and_the_run_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    args = ("--epochs", "10", "--samples", "512", "--latency-ms", "2")
    seen: list[int] = []

    def prune(index: int, value: float) -> bool:
        seen.append(index)
        return True

    with _live(args, tmp_path, monkeypatch) as (live, _):
        runner = LiveRunner(live)
        first = runner.run(live.target, TrialConfig(), timeout_s=60, on_window=prune)
        assert first.status == "pruned" and seen == [0], (first, seen)
        assert len(first.windows) == 1 and first.samples_per_s == first.windows[0]
        second = runner.run(live.target, TrialConfig(loader=workers(2)), timeout_s=60)
        assert second.status == "ok", second.reason
        assert second.applied_config.num_workers == 2
        runner.settle(workers(2))
        assert live.wait() == 0


@pytest.mark.slow
def test_a_run_that_ends_first_ends_its_segment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    args = ("--epochs", "1", "--samples", "32", "--latency-ms", "1")
    with _live(args, tmp_path, monkeypatch) as (live, _):
        result = live.segment(0, 60)
        assert result.status == "ended_early", result
        assert live.ended
        live.order(1, AdaptOrder(LoaderConfig(num_workers=2)))  # nobody reads it: harmless
        assert live.segment(1, 60).status == "ended_early"
        assert live.wait() == 0
    assert not Path(live.dir).exists()  # the exchange is cleaned up


@pytest.mark.slow
def test_a_failed_search_leaves_the_run_to_finish_with_its_own_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    args = ("--epochs", "4", "--samples", "256", "--latency-ms", "1")
    with _live(args, tmp_path, monkeypatch) as (live, out_path):
        runner = LiveRunner(live)
        runner.run(live.target, TrialConfig(), timeout_s=60)
        live.order(1, AdaptOrder(workers(2)))
        live.keep_own_settings()  # what the CLI does when the search raises
        assert live.wait() == 0
        assert not adapt_segment_path(live.dir, 2).exists()  # settled: nothing more measured
    assert "batches 128" in out_path.read_text()


@pytest.mark.slow
def test_an_error_of_the_search_ends_the_whole_training_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mark, pids = uuid.uuid4().hex, tmp_path / "pids"
    monkeypatch.setenv(MARK_ENV, mark)
    # Workers that, once their parent is gone, hang deaf to SIGTERM; a process that left the
    # group: only the whole tree's SIGKILL ends them.
    args = ("--pids", str(pids), "--workers", "3", "--epochs", "1000", "--stuck", "--detach")
    target = Target(str(SCRIPTS / "lifecycle.py"), args)
    tree: list[psutil.Process] = []
    with (
        (tmp_path / "out.txt").open("w") as out,
        pytest.raises(RuntimeError, match="the search failed"),
        LiveRun(target, QUICK, stdout=out) as live,
    ):
        wait_for(
            "the training's workers loading",
            lambda: bool(pids_named(pids, "main") and len(pids_named(pids, "worker")) >= 3),
        )
        wait_for("its detached process", lambda: bool(pids_named(pids, "detached")))
        found = live.pids()
        own = pids_named(pids, "main") | pids_named(pids, "worker") | pids_named(pids, "detached")
        assert own <= found, (own, found)
        tree = [psutil.Process(pid) for pid in found]
        raise RuntimeError("the search failed")
    assert live.proc.returncode is not None
    # SIGKILLed, a process with its memory to give back can still read as running for a
    # moment on a busy machine (once seen in CI): gone within the lifecycle's promise.
    left = wait_gone(tree, GONE_S)
    assert not left, [p.pid for p in left]
    assert not live.dir.exists()
    assert_no_orphans(mark, wait_s=1.0)
    assert not watchers()


@pytest.mark.slow
def test_leaving_the_run_waits_for_the_training_before_its_folder_goes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    args = ("--epochs", "2", "--samples", "128", "--latency-ms", "1", "--num-workers", "2")
    with _live(args, tmp_path, monkeypatch) as (live, out_path):
        pass  # the caller never waits: leaving does, and the training needs its folder to end
    assert live.proc.returncode == 0, out_path.read_text()
    assert "batches 32" in out_path.read_text()
    assert not Path(live.dir).exists()
    assert not watchers()


@pytest.mark.slow
def test_ctrl_c_stops_the_search_and_leaves_a_training_that_goes_on_to_its_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("autotune.runner._live.INTERRUPT_GRACE_S", 0.5)
    out = tmp_path / "seen.txt"
    script = str(SCRIPTS / "lifecycle.py")
    args = ("--pids", str(tmp_path / "pids"), "--workers", "0", "--epochs", "8")
    args += ("--samples", "128", "--latency-ms", "5", "--survive", "--out", str(out))
    mark = uuid.uuid4().hex
    monkeypatch.setenv(MARK_ENV, mark)
    with (
        (tmp_path / "stdout.txt").open("w") as stdout,
        LiveRun(Target(script, args), QUICK, stdout=stdout) as live,
    ):
        runner = LiveRunner(live)
        first = runner.run(live.target, TrialConfig(), timeout_s=60)
        assert first.status == "ok", first.reason
        # What a terminal's Ctrl-C does to the two processes of the foreground group that
        # matter here (the test's own group holds more than this run).
        os.kill(live.proc.pid, signal.SIGINT)
        os.kill(os.getpid(), signal.SIGINT)  # autotune's handler: noted, nothing raised
        assert live.interrupted
        with pytest.raises(KeyboardInterrupt):
            runner.run(live.target, TrialConfig(loader=workers(2)), timeout_s=60)
        with pytest.raises(KeyboardInterrupt):  # a segment the run never reports
            live.segment(1, 60)
        wait_for("the training's KeyboardInterrupt", lambda: "interrupted" in out.read_text())
        assert live.proc.poll() is None  # caught by the script: it trains on
        live.keep_own_settings()
        assert live.wait() == 0
    assert out.read_text().splitlines()[-1].startswith("finished"), out.read_text()
    assert_no_orphans(mark)


@pytest.mark.parametrize("threads", [1, None])
def test_autotune_run_starts_the_training_with_the_answers_torch_threads(
    threads: int | None, tmp_path: Path
) -> None:
    # torch reads its thread count as it starts: `autotune run` sets it before the script's
    # first line, and leaves torch's own where the answer has none.
    out_path = tmp_path / "out.txt"
    target = Target(str(SCRIPTS / "threads.py"), ())
    loader = LoaderConfig(threads=threads)
    with (
        out_path.open("w") as out,
        LiveRun(target, ProbeSettings(), loader=loader, mode="run", stdout=out) as live,
    ):
        code = live.wait()
    said = out_path.read_text()
    assert code == 0, said
    # torch's own count, under this same environment: what the training gets without one.
    expected = threads if threads is not None else torch.get_num_threads()
    assert f"torch threads {expected}\n" in said, said
