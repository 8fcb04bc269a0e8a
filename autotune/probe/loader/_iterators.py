"""The iterators around the measured loader: the timed one the script sees, the replay of
cached batches that prices the step with no data cost (the compute ceiling), and the one that
ends the script once every phase is done.

This is the hot path: one ``TimedIterator.__next__`` costs two ``perf_counter`` and two
``thread_time`` calls, two NVTX calls and a few attribute updates, all in microseconds; on a
few batches of a loader without workers, also a read of the global generators' states
(``_global_draws.py``: a fraction of a millisecond, on four batches a probe).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from time import perf_counter, thread_time
from typing import Any

from autotune.probe.loader._global_draws import GlobalDraws
from autotune.probe.loader._marks import OWNER_ATTR
from autotune.probe.measure import Meter, NvtxRanges, ProbeDone, count_samples

# The compute ceiling's replay: it may cache as few as this many batches, once filling has
# taken this long.
REPLAY_LEAST = 3
REPLAY_FILL_S = 0.4

# What comes after a meter is done: the next source and meter, or None to end the script.
NextPhase = Callable[[], "tuple[Iterator[Any], Meter] | None"]


def epoch_length(it: Any) -> int | None:
    """Batches per epoch of a loader or its iterator; None for a stream without a length. A
    stand-in (fastai's) has none of its own: its owner's, the loader the script iterates."""
    try:
        n = len(it)  # type: ignore[arg-type]
    except (TypeError, NotImplementedError, AttributeError):
        owner = getattr(it, "__dict__", {}).get(OWNER_ATTR)
        return epoch_length(owner) if owner is not None and owner is not it else None
    return n if isinstance(n, int) and n > 0 else None


class TimedIterator:
    """Wraps the measured loader's iterator; delegates everything it does not time.

    Once its meter is done it ends the script (``ProbeDone``), unless ``then`` gives a next
    phase: the batch that closed the last window goes to the script, and the batches after it
    come from the next source, timed by the next meter (mode "baseline": the replayed batches
    of the compute ceiling).
    """

    __slots__ = ("_draws", "_in_step", "_it", "_meter", "_nth", "_nvtx", "_t_iter", "_then")

    def __init__(
        self,
        it: Iterator[Any],
        meter: Meter,
        nvtx: NvtxRanges,
        t_iter: float | None = None,
        then: NextPhase | None = None,
        draws: GlobalDraws | None = None,
    ) -> None:
        self._t_iter = t_iter
        self._it = it
        self._meter = meter
        self._nvtx = nvtx
        self._in_step = False
        self._then = then
        # Loading in this process, read for draws from the global generators (None: not
        # read, or read enough) past the iteration's first batch (the sampler's own draw).
        self._draws = draws
        self._nth = 0

    def _next_phase(self) -> Meter:
        then, self._then = self._then, None
        following = then() if then is not None else None
        if following is None:
            raise ProbeDone
        self._it, self._meter = following
        self._t_iter = None  # not an epoch start for the next meter
        self._draws = None  # replayed batches load nothing
        return self._meter

    def __iter__(self) -> TimedIterator:
        return self

    def __next__(self) -> Any:
        meter = self._meter
        if meter.done:
            meter = self._next_phase()
        nvtx = self._nvtx
        if self._in_step:
            nvtx.pop()
            self._in_step = False
        nvtx.push_wait()
        draws = self._draws if self._nth else None
        states = draws.before() if draws is not None else None
        t0, c0 = perf_counter(), thread_time()
        try:
            batch = next(self._it)
        except StopIteration:
            meter.epoch_ended(perf_counter())  # the epoch's training pass ends here
            raise
        finally:
            nvtx.pop()
        c1, t1 = thread_time(), perf_counter()
        if states is not None and draws is not None and not draws.after(states):
            self._draws = None
        self._nth += 1
        n = count_samples(batch)
        if self._t_iter is not None:
            meter.first_batch(self._t_iter, t1)
            self._t_iter = None
        meter.record(t0, t1, n, c1 - c0)
        if meter.done and self._then is None:
            raise ProbeDone
        nvtx.push_step()
        self._in_step = True
        return batch

    def __len__(self) -> int:
        return len(self._it)  # type: ignore[arg-type]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._it, name)


class EndedIterator:
    """A loader iterated after the probe's last phase: the script ends at its first batch."""

    __slots__ = ("_it",)

    def __init__(self, it: Iterator[Any]) -> None:
        self._it = it

    def __iter__(self) -> EndedIterator:
        return self

    def __next__(self) -> Any:
        raise ProbeDone

    def __len__(self) -> int:
        return len(self._it)  # type: ignore[arg-type]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._it, name)


class ReplayIterator:
    """The compute ceiling: load a few batches once, then replay them with no data cost.

    It caches ``size`` batches, or fewer where the loader is slow: once ``REPLAY_LEAST`` are
    cached and filling has taken ``REPLAY_FILL_S``, it replays those. The step reads what a
    batch holds only through its shapes, and a slow loader is the one being tuned: caching 8
    batches of io_bound's 0-worker loader took 1.1 s of every baseline."""

    __slots__ = ("_cache", "_fill_until", "_i", "_it", "_size")

    def __init__(self, it: Iterator[Any], size: int) -> None:
        self._it = it
        self._size = size
        self._cache: list[Any] = []
        self._i = 0
        self._fill_until: float | None = None

    def __iter__(self) -> ReplayIterator:
        return self

    def __next__(self) -> Any:
        if len(self._cache) < self._size:
            now = perf_counter()
            if self._fill_until is None:
                self._fill_until = now + REPLAY_FILL_S
            elif len(self._cache) >= REPLAY_LEAST and now >= self._fill_until:
                self._size = len(self._cache)
        if len(self._cache) < self._size:
            try:
                batch = next(self._it)
            except StopIteration:
                if not self._cache:
                    raise
                self._size = len(self._cache)
            else:
                self._cache.append(batch)
                return batch
        batch = self._cache[self._i % self._size]
        self._i += 1
        return batch

    def __len__(self) -> int:
        return len(self._it)  # type: ignore[arg-type]
