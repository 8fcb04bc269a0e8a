"""The other loaders tuned inside a live run, against pass reports written as the run writes
them: which loader leads, the climb's words, what it ignores, and what it keeps."""

from __future__ import annotations

from pathlib import Path

from autotune.contract import (
    OthersOrder,
    PassReport,
    adapt_others_path,
    adapt_pass_path,
    write_whole,
)
from autotune.tuner import LiveOthers
from autotune.tuner.loop._live_others import ITERABLE


class Run:
    """The run's side: writes pass reports in order, reads the search's word."""

    def __init__(self, folder: Path) -> None:
        self.folder, self.j = folder, 0
        self.others = LiveOthers(folder, folder)

    def pass_(self, seconds: float, workers: int = 0, *, order: int = 0, **more: object) -> None:
        fields = dict(loader="Val at fit.py:30", iterable=False, batches=32, epoch_s=2.0)
        fields.update(more)  # type: ignore[arg-type]
        report = PassReport(
            seconds=seconds,
            num_workers=workers,
            persistent_workers=workers > 0,
            order=order,
            **fields,  # type: ignore[arg-type]
        )
        write_whole(adapt_pass_path(self.folder, self.j), report.to_json())
        self.j += 1
        self.others.poll()

    def word(self) -> OthersOrder | None:
        path = adapt_others_path(self.folder)
        return OthersOrder.from_json(path.read_text()) if path.exists() else None


def test_a_heavy_pass_climbs_while_faster_then_keeps_the_best(tmp_path: Path) -> None:
    run = Run(tmp_path)
    run.pass_(1.0)  # half of its epoch as written
    word = run.word()
    assert word is not None and word.version == 1 and word.config is not None
    assert word.config.num_workers == 2 and word.config.persistent_workers
    run.pass_(0.5, 2, order=1)
    word = run.word()
    assert word is not None and word.config is not None and word.config.num_workers == 4
    run.pass_(0.48, 4, order=2)  # not 10% faster: the climb ends on 2
    word = run.word()
    assert word is not None and word.version == 3 and word.config is not None
    assert word.config.num_workers == 2
    run.pass_(0.45, 2, order=3)
    found = run.others.outcome()
    assert found is not None and found.config is not None
    assert found.config.num_workers == 2
    assert (found.as_written_s, found.tuned_s) == (1.0, 0.5)
    assert [p.num_workers for p in found.passes] == [0, 2, 4, 2]
    assert found.loaders == ["Val at fit.py:30"]


def test_a_pass_begun_before_the_last_word_or_another_loader_s_does_not_move_the_climb(
    tmp_path: Path,
) -> None:
    run = Run(tmp_path)
    run.pass_(1.0)
    run.pass_(0.9, 0, order=0)  # began before the word for 2 workers
    run.pass_(0.1, 0, order=1, loader="Test at fit.py:31", epoch_s=10.0)  # not the lead
    word = run.word()
    assert word is not None and word.version == 1  # still waiting for the lead at 2 workers
    assert len(run.others.passes) == 3


def test_a_failed_setting_ends_the_climb_on_the_script_s_settings(tmp_path: Path) -> None:
    run = Run(tmp_path)
    run.pass_(1.0)
    run.pass_(1.1, 2, order=1, abandoned="RuntimeError: no handle in a worker")
    word = run.word()
    assert word is not None and word.version == 2 and word.config is None
    found = run.others.outcome()
    assert found is not None and found.config is None
    assert found.reason is not None and "RuntimeError: no handle in a worker" in found.reason


def test_light_or_iterable_passes_are_timed_and_left_as_written(tmp_path: Path) -> None:
    light = Run(tmp_path / "light")
    light.folder.mkdir()
    light.pass_(0.1, epoch_s=5.0)  # 2% of its epoch
    assert light.word() is None
    found = light.others.outcome()
    assert found is not None and found.config is None and "left as" in (found.reason or "")

    stream = Run(tmp_path / "stream")
    stream.folder.mkdir()
    stream.pass_(1.0, iterable=True)
    assert stream.word() is None
    found = stream.others.outcome()
    assert found is not None and found.reason == ITERABLE


def test_a_run_with_no_other_loader_records_nothing(tmp_path: Path) -> None:
    others = LiveOthers(tmp_path, tmp_path).start()
    others.stop()
    assert others.outcome() is None
