"""The passes of loaders other than the training loader, timed for the epoch clock.

Once the training loader is chosen, every other loader the script iterates (an evaluation or
validation pass, a loader rebuilt for it each epoch) keeps the script's settings; its
iterator is wrapped only to note when its first batch came and when it ran out, so the epoch
clock can say how much of the epoch it took. Per batch: a clock read, a test, an increment.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from time import perf_counter
from typing import Any, Protocol

from torch.utils.data import IterableDataset

from autotune.contract import NUM_WORKERS
from autotune.probe.loader._apply import batch_size_of, settings_of
from autotune.probe.loader._marks import own_batch_size, shown, site_of
from autotune.probe.measure import EpochClock, OtherPass


class Timed(Protocol):
    """What a pass's iterator notes: its first and last batch, its end, its batches."""

    first: float | None
    last: float | None
    ended: float | None
    batches: int


class PassIterator:
    """Another loader's iterator, timed at its first batch and at its end; ``on_end`` is
    called once, when it runs out."""

    __slots__ = ("_it", "_on_end", "_pass")

    def __init__(
        self, it: Iterator[Any], timed: Timed, on_end: Callable[[], None] | None = None
    ) -> None:
        self._it = it
        self._pass = timed
        self._on_end = on_end

    def __iter__(self) -> PassIterator:
        return self

    def __next__(self) -> Any:
        timed = self._pass
        try:
            batch = next(self._it)
        except StopIteration:
            if timed.ended is None:
                timed.ended = perf_counter()
                if self._on_end is not None:
                    self._on_end()
            raise
        now = perf_counter()
        if timed.first is None:
            timed.first = now
        timed.last = now  # a pass the script leaves open (a peek) ends at its last batch
        timed.batches += 1
        return batch

    def __len__(self) -> int:
        return len(self._it)  # type: ignore[arg-type]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._it, name)


def timed_pass(clock: EpochClock, loader: Any, t0: float, it: Iterator[Any]) -> PassIterator:
    """``it``, the iterator of ``loader`` made at ``t0``, timed as one of the epoch's passes."""
    settings = settings_of(loader)
    seen = shown(loader)  # fastai's DataLoader, not the stand-in torch iterates for it
    dataset = getattr(seen, "dataset", getattr(loader, "dataset", None))
    timed = clock.other(
        OtherPass(
            loader=type(seen).__name__,
            dataset=type(dataset).__name__,
            batch_size=batch_size_of(settings) or own_batch_size(loader),
            num_workers=int(settings.get(NUM_WORKERS) or 0),
            site=site_of(loader),
            started=t0,
            iterable=isinstance(dataset, IterableDataset),
        )
    )
    return PassIterator(it, timed)
