"""A live run's other loaders, in the run's own process: each pass timed and reported, the
search's word applied from the next pass through the loader's switchable (the same batches in
the same order), a stream never changed, and a loader peeked at every step reported a bounded
number of times."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import torch
from torch.utils.data import DataLoader, IterableDataset, TensorDataset

from autotune.contract import (
    LoaderConfig,
    OthersOrder,
    PassReport,
    adapt_others_path,
    adapt_pass_path,
    write_whole,
)
from autotune.probe.loader import LoaderPatch
from autotune.probe.session import _live_passes
from autotune.probe.session._live_passes import LivePasses

TRAIN = TensorDataset(torch.arange(320.0))
VAL = TensorDataset(torch.arange(48.0))


class Stream(IterableDataset):  # type: ignore[type-arg]
    def __iter__(self) -> Iterator[torch.Tensor]:
        return iter(torch.arange(12.0))


def _reports(folder: Path) -> list[PassReport]:
    found, j = [], 0
    while (path := adapt_pass_path(folder, j)).exists():
        found.append(PassReport.from_json(path.read_text()))
        j += 1
    return found


@pytest.fixture
def live(tmp_path: Path) -> Iterator[tuple[LoaderPatch, LivePasses]]:
    patch = LoaderPatch(LoaderConfig(), lambda it, t0, delivered: it, switchable=True)
    passes = LivePasses(tmp_path, tmp_path, patch)
    patch.install()
    try:
        yield patch, passes
    finally:
        patch.uninstall()


def test_each_pass_is_reported_and_the_word_applies_from_the_next_one(
    tmp_path: Path, live: tuple[LoaderPatch, LivePasses]
) -> None:
    _, passes = live
    train = DataLoader(TRAIN, batch_size=8, shuffle=True)
    val = DataLoader(VAL, batch_size=8)
    expected = torch.arange(48.0).reshape(6, 8).tolist()  # its batches as written, in order
    assert len(list(train)) == 40  # chosen: the training loader
    passes.training_started = 0.0
    assert [b[0].tolist() for b in val] == expected
    write_whole(
        adapt_others_path(tmp_path),
        OthersOrder(1, LoaderConfig(num_workers=2, persistent_workers=True)).to_json(),
    )
    assert [b[0].tolist() for b in val] == expected  # with 2 workers: same batches, same order
    first, second = _reports(tmp_path)
    assert first.loader.startswith("TensorDataset at ") and "test_live_passes.py:" in first.loader
    assert (first.num_workers, first.order, first.batches, first.iterable) == (0, 0, 6, False)
    assert (second.num_workers, second.persistent_workers, second.order) == (2, True, 1)
    assert second.epoch_s is not None and second.epoch_s > 0 and not second.abandoned
    assert val.num_workers == 0  # the script's own loader keeps its settings


def test_a_stream_is_timed_never_changed_and_a_peeked_loader_is_reported_a_few_times(
    tmp_path: Path, live: tuple[LoaderPatch, LivePasses], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_live_passes, "MAX_REPORTS", 2)
    write_whole(adapt_others_path(tmp_path), OthersOrder(1, LoaderConfig(num_workers=2)).to_json())
    train = DataLoader(TRAIN, batch_size=8, shuffle=True)
    stream = DataLoader(Stream(), batch_size=4)
    assert len(list(train)) == 40
    assert len(list(stream)) == 3  # 2 workers would each run the stream whole: 6
    aux = DataLoader(VAL, batch_size=8)
    for _ in range(5):
        next(iter(aux))  # a peek every step, left open
    passes = live[1]
    passes.flush()
    reports = _reports(tmp_path)
    assert reports[0].iterable and reports[0].num_workers == 0 and reports[0].batches == 3
    peeks = [r for r in reports if not r.iterable]
    assert len(peeks) == 2 and all(r.batches == 1 for r in peeks)
