"""Whether loading a batch in the main process draws from the global generators: read around
``next()`` of real DataLoader iterators, past each iteration's first batch."""

from __future__ import annotations

import random
from typing import Any

import pytest
import torch
from torch.utils.data import DataLoader, Dataset

from autotune.contract import ProbeSettings
from autotune.probe.loader._global_draws import CHECKS, GlobalDraws
from autotune.probe.loader._iterators import TimedIterator
from autotune.probe.measure._meter import Meter
from autotune.probe.measure._nvtx import NvtxRanges

# A meter that never finishes within these few batches.
LONG = ProbeSettings(warmup_batches=10_000, warmup_s=100.0, window_s=100.0, windows=2)


class Drawing(Dataset[Any]):
    def __init__(self, draw: str) -> None:
        self.draw = draw

    def __len__(self) -> int:
        return 64

    def __getitem__(self, i: int) -> torch.Tensor:
        if self.draw == "torch":
            return torch.rand(2)
        if self.draw == "random":
            return torch.tensor([random.random(), float(i)])
        if self.draw == "numpy":
            import numpy

            return torch.tensor([float(numpy.random.rand()), float(i)])
        return torch.tensor([0.0, float(i)])


def _read(draw: str, workers: int = 0, epochs: int = 1) -> GlobalDraws:
    draws = GlobalDraws()
    loader = DataLoader(Drawing(draw), batch_size=4, shuffle=True, num_workers=workers)
    for _ in range(epochs):
        it = iter(loader)
        timed = TimedIterator(it, Meter(LONG), NvtxRanges(), draws=draws.arm(it))
        for _batch in timed:
            pass
    return draws


@pytest.mark.parametrize("draw", ["torch", "random"])
def test_a_dataset_drawing_from_a_global_generator_is_seen(draw: str) -> None:
    assert _read(draw).found == {draw}


def test_a_dataset_drawing_from_numpy_is_seen() -> None:
    pytest.importorskip("numpy", reason="numpy is not installed: nothing of it to read")
    assert _read("numpy").found == {"numpy"}


def test_a_shuffled_loader_that_draws_nothing_says_nothing_over_epochs() -> None:
    # The sampler draws its shuffle seed from torch's generator in each iteration's first
    # next(): that is the loader's own order, not loading, and is never read.
    draws = _read("none", epochs=3)
    assert draws.found == set()
    assert draws.left == 0  # read on CHECKS batches, then no more


def test_loading_in_workers_is_not_read() -> None:
    draws = _read("torch", workers=2)
    assert draws.found == set() and draws.left == CHECKS
