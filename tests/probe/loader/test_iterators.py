"""The timed iterator the script sees, and the replay that prices the step."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import torch

from autotune.contract import ProbeSettings
from autotune.probe.loader import _iterators
from autotune.probe.loader._iterators import (
    EndedIterator,
    ReplayIterator,
    TimedIterator,
    epoch_length,
)
from autotune.probe.loader._marks import OWNER_ATTR
from autotune.probe.measure._meter import Meter, ProbeDone
from autotune.probe.measure._nvtx import NvtxRanges

# Windows of a few microseconds: a meter over a list of batches is done within a few dozen.
TINY = ProbeSettings(warmup_batches=2, warmup_s=0.0, window_s=1e-5, windows=2, min_windows=2)


def test_replay_serves_cached_batches_forever() -> None:
    source = iter([1, 2, 3])
    replay = ReplayIterator(source, 2)
    assert [next(replay) for _ in range(6)] == [1, 2, 1, 2, 1, 2]


def test_replay_of_a_slow_loader_caches_fewer_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    # Each batch takes longer than the fill allows: the least batches are cached, then replayed.
    monkeypatch.setattr(_iterators, "REPLAY_FILL_S", 0.0)
    loaded: list[int] = []

    def slow() -> Iterator[int]:
        for i in range(100):
            loaded.append(i)
            yield i

    replay = ReplayIterator(slow(), 8)
    least = _iterators.REPLAY_LEAST
    served = [next(replay) for _ in range(3 * least)]
    assert served == list(range(least)) * 3 and len(loaded) == least


def test_replay_of_a_fast_loader_caches_every_batch_asked_for() -> None:
    replay = ReplayIterator(iter(range(100)), 8)  # eight list reads: far inside the fill time
    assert [next(replay) for _ in range(16)] == list(range(8)) * 2


def test_the_timed_iterator_ends_the_script_once_its_meter_is_done() -> None:
    batches = [torch.zeros(4, 3) for _ in range(10_000)]
    meter = Meter(TINY)
    it = TimedIterator(iter(batches), meter, NvtxRanges())
    served = 0
    with pytest.raises(ProbeDone):
        for batch in it:
            assert batch.shape == (4, 3)  # the script gets the loader's own batches
            served += 1
    assert meter.done and 0 < served < len(batches)
    assert meter.figures().samples_per_s > 0


def test_a_next_phase_takes_over_from_the_batch_after_the_last_window() -> None:
    first = Meter(TINY)
    second = Meter(TINY)
    replayed = ReplayIterator(iter([torch.ones(2, 3)] * 3), 3)
    it = TimedIterator(
        iter([torch.zeros(4, 3) for _ in range(10_000)]),
        first,
        NvtxRanges(),
        then=lambda: (replayed, second),
    )
    seen: list[int] = []
    with pytest.raises(ProbeDone):
        for batch in it:
            seen.append(int(batch.shape[0]))
    assert first.done and second.done
    # Loader batches (4 samples) until the first meter is done, replayed ones (2) after.
    switch = seen.index(2)
    assert set(seen[:switch]) == {4} and set(seen[switch:]) == {2}


def test_a_loader_iterated_after_the_last_phase_ends_the_script_at_once() -> None:
    ended = EndedIterator(iter([torch.zeros(4, 3)] * 5))
    with pytest.raises(ProbeDone):
        next(ended)


def test_a_stand_in_s_epoch_is_the_length_of_the_loader_that_owns_it() -> None:
    # fastai's stand-in has no length; the fastai DataLoader iterating it does.
    class Owner:
        def __len__(self) -> int:
            return 7

    class StandIn:
        pass

    owned = StandIn()
    owned.__dict__[OWNER_ATTR] = Owner()
    assert epoch_length(owned) == 7
    assert epoch_length(StandIn()) is None
