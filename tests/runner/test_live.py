"""The search's side of a live run: segments read as the run reports them, pruned on their
windows, and ended when the training ends first."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from autotune.contract import AdaptOrder, LoaderConfig, TrialConfig, adapt_segment_path
from autotune.runner import LiveRun, LiveRunner, Target
from tests.conftest import MARK_ENV, assert_no_orphans
from tests.probe.test_adapt import QUICK, SCRIPT, workers


@contextmanager
def _live(
    args: tuple[str, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[LiveRun, Path]]:
    """A live run of the ordered script, its output in a file; nothing of it may outlive it."""
    mark = uuid.uuid4().hex
    monkeypatch.setenv(MARK_ENV, mark)
    out_path = tmp_path / "out.txt"
    with out_path.open("w") as out, LiveRun(Target(str(SCRIPT), args), QUICK, stdout=out) as live:
        yield live, out_path
    assert_no_orphans(mark)


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
