"""Other loaders' passes, timed for the epoch clock: first batch, end, batches; the script
still holds an iterator that behaves as the loader's."""

from __future__ import annotations

from time import perf_counter

from torch.utils.data import DataLoader

from autotune.probe.loader import timed_pass
from autotune.probe.measure import EpochClock


def test_a_pass_is_timed_from_creation_to_its_end() -> None:
    clock = EpochClock()
    loader = DataLoader(list(range(20)), batch_size=8)
    t0 = perf_counter()
    it = timed_pass(clock, loader, t0, iter(loader))
    assert len(it) == 3
    batches = list(it)
    assert len(batches) == 3 and batches[0].tolist() == list(range(8))
    (timed,) = clock.passes
    assert timed.batches == 3 and timed.num_workers == 0 and timed.batch_size == 8
    assert timed.first is not None and timed.ended is not None
    assert t0 <= timed.first <= timed.ended
    assert timed.to_pass(until=timed.ended + 10).seconds == timed.ended - t0


def test_a_pass_left_open_ends_at_its_last_batch() -> None:
    clock = EpochClock()
    loader = DataLoader(list(range(20)), batch_size=8)
    it = timed_pass(clock, loader, perf_counter(), iter(loader))
    next(it)  # a peek: the script never finishes this pass
    (timed,) = clock.passes
    assert timed.ended is None and timed.last is not None
    assert timed.to_pass(until=timed.last + 100).seconds == timed.last - timed.started
