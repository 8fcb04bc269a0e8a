"""Batches real DataLoader workers finished that the main process has not taken: queued, or
held back behind a batch that is not finished yet."""

from __future__ import annotations

import gc
import multiprocessing
import threading
import time
from typing import Any

import torch
from torch.utils.data import DataLoader, Dataset

from autotune.probe.loader import waiting_reader
from autotune.probe.loader._waiting import waiting

FORK = multiprocessing.get_context("fork")


class Gated(Dataset[torch.Tensor]):
    """Items from ``gated`` on wait for ``opened``; the rest are ready at once."""

    def __init__(self, size: int, gated: set[int]) -> None:
        self.size, self.gated, self.opened = size, gated, FORK.Event()

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, i: int) -> torch.Tensor:
        if i in self.gated:
            self.opened.wait(60)
        return torch.tensor([i])


def _until(it: Any, count: int) -> int | None:
    """Polls ``waiting(it)`` until it reads ``count``: the workers' puts land when they land."""
    deadline = time.monotonic() + 60
    seen = waiting(it)
    while seen != count and time.monotonic() < deadline:
        time.sleep(0.01)
        seen = waiting(it)
    return seen


def test_finished_batches_in_the_queue_are_counted_and_taken_one_by_one() -> None:
    data = Gated(12, gated=set(range(4, 12)))
    loader = DataLoader(data, batch_size=1, num_workers=2, prefetch_factor=2,
                        multiprocessing_context=FORK)  # fmt: skip
    it = iter(loader)
    try:
        # Batches 0-3 are in flight (2 workers x 2) and finish; the ones sent after are gated.
        assert _until(it, 4) == 4
        assert next(it).item() == 0
        assert waiting(it) == 3
        assert next(it).item() == 1
        assert waiting(it) == 2
    finally:
        data.opened.set()
        del it


def test_batches_held_behind_an_unfinished_one_are_counted() -> None:
    data = Gated(8, gated={0})
    loader = DataLoader(data, batch_size=1, num_workers=2, prefetch_factor=2,
                        multiprocessing_context=FORK)  # fmt: skip
    it = iter(loader)
    got: list[int] = []
    taker = threading.Thread(target=lambda: got.append(next(it).item()))
    try:
        taker.start()
        # The main process waits for batch 0; worker 0 has batch 2 queued behind it, worker 1
        # finishes 1 and 3, which the main process holds back until 0 is taken.
        assert _until(it, 2) == 2
        data.opened.set()
        taker.join(60)
        assert got == [0]
    finally:
        data.opened.set()
        taker.join(60)


def test_a_reader_holds_its_iterator_weakly_and_knows_only_worker_iterators() -> None:
    assert waiting_reader(iter(DataLoader(list(range(4)), batch_size=2))) is None
    it = iter(DataLoader(list(range(8)), batch_size=2, num_workers=1))
    read = waiting_reader(it)
    assert read is not None
    list(it)
    assert read() == 0
    del it
    gc.collect()
    assert read() is None
