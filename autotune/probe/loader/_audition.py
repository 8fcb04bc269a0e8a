"""A candidate loader's iteration before the probe has chosen which loader to measure.

It counts batches until its loader is chosen (more than ``CHOOSE_AFTER`` batches in one
iteration, or its end) or another one is; from the choice on, the measured iterator takes
over behind it, so the script keeps the iterator it holds.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from time import perf_counter
from typing import Any

from autotune.probe.measure import count_samples

# Batches one iteration must deliver (or reach its end) for its loader to be chosen. Above
# Lightning's default sanity check (2 batches, 3 fetched with its look-ahead).
CHOOSE_AFTER = 8

# A batch an audition saw: (before next(), after next(), samples).
Delivery = tuple[float, float, int]
# Choose this loader: (loader, iteration start, first batch's time, its batches so far).
Choose = Callable[[Any, float, "float | None", Sequence[Delivery]], None]
# The measured iterator, from the raw one, its start and what it delivered before the choice.
Measure = Callable[[Iterator[Any], float, Sequence[Delivery]], Iterator[Any]]


class Audition:
    """A candidate's iteration: counts batches until its loader is chosen or left."""

    __slots__ = (
        "_choose",
        "_delivered",
        "_it",
        "_loader",
        "_measure",
        "_n",
        "_t0",
        "_t_first",
        "closed",
        "measured",
    )

    def __init__(
        self, loader: Any, it: Iterator[Any], t0: float, choose: Choose, measure: Measure
    ) -> None:
        self._loader = loader
        self._it = it
        self._t0 = t0
        self._choose = choose
        self._measure = measure
        self._t_first: float | None = None
        self._n = 0
        # The chosen loader's first batches are its warm-up too: the meter is given them.
        self._delivered: list[Delivery] = []
        self.closed = False  # reached its end, or a loader was chosen
        self.measured: Iterator[Any] | None = None

    @property
    def loader(self) -> Any:
        return self._loader

    def __iter__(self) -> Audition:
        return self

    def __next__(self) -> Any:
        if self.measured is not None:
            return next(self.measured)
        t0 = perf_counter()
        try:
            batch = next(self._it)
        except StopIteration:
            if self._n and not self.closed:
                self._choose(self._loader, self._t0, self._t_first, self._delivered)
            self.closed = True
            raise
        t1 = perf_counter()
        self._n += 1
        if self._t_first is None:
            self._t_first = t1
        if not self.closed:
            self._delivered.append((t0, t1, count_samples(batch)))
        if self._n > CHOOSE_AFTER and not self.closed:
            self._choose(self._loader, self._t0, self._t_first, self._delivered)
            self.measured = self._measure(self._it, self._t0, self._delivered)
            self.closed = True
        return batch

    def __len__(self) -> int:
        try:
            return len(self._it)  # type: ignore[arg-type]
        except TypeError:  # a subclass's generator: the loader knows its epoch
            return len(self._loader)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._it, name)
