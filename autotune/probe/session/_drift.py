"""A settled live run watching its own data wait, from the batch timings it already takes.

After the search settles, the run keeps two clock reads a batch (the ones every batch of the
training loader already pays); this adds one subtraction and two additions to them, and a
comparison of ``t1`` with the window's end. Once a window of ``window_s`` is over, its mean
wait per batch is compared with the reference: the first full window after settling (the one
before it is skipped: the settled settings may still be starting their workers).

The data wait has *risen* in a window when the step got longer, by waiting for data, by more
than ``RISE`` of the settled step. Noise on a shared machine moves single windows by that
much; ``SUSTAIN`` such windows in a row are a change the loader might answer. A window that
saw fewer than ``MIN_BATCHES`` batches is extended: its mean would be one batch's luck.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

RISE = 0.25  # of the settled step: what the data wait must add to it to count as a rise
SUSTAIN = 3  # windows in a row
MIN_BATCHES = 5


@dataclass(frozen=True)
class Drift:
    """Why a settled run asks for a search again: its figures, then and now."""

    wait_per_batch_s: float  # the mean of the windows that rose
    step_s: float  # seconds per batch in them
    reference_wait_per_batch_s: float
    reference_step_s: float
    windows: int

    def to_dict(self) -> dict[str, float | int]:
        return asdict(self)


class DriftWatch:
    """Fed every batch of a settled run; ``batch`` returns a ``Drift`` once, when it is found."""

    __slots__ = ("_reference", "_risen", "_skip", "_start", "_until", "_window_s", "n", "wait")

    def __init__(self, window_s: float, now: float) -> None:
        self._window_s = window_s
        self._start, self._until = now, now + window_s
        self._skip = True  # the first window: the settled settings' start-up
        self._reference: tuple[float, float] | None = None  # (wait, step) a batch
        self._risen: list[tuple[float, float]] = []
        self.wait, self.n = 0.0, 0

    def batch(self, t0: float, t1: float) -> Drift | None:
        self.wait += t1 - t0
        self.n += 1
        if t1 < self._until:
            return None
        return self._window(t1)

    def _window(self, now: float) -> Drift | None:
        if self.n < MIN_BATCHES:
            self._until = now + self._window_s / 2
            return None
        wait, step = self.wait / self.n, (now - self._start) / self.n
        self._start, self._until = now, now + self._window_s
        self.wait, self.n = 0.0, 0
        if self._skip:
            self._skip = False
            return None
        if self._reference is None:
            self._reference = (wait, step)
            return None
        ref_wait, ref_step = self._reference
        if wait - ref_wait <= RISE * ref_step:
            self._risen.clear()
            return None
        self._risen.append((wait, step))
        if len(self._risen) < SUSTAIN:
            return None
        risen = self._risen
        return Drift(
            wait_per_batch_s=sum(w for w, _ in risen) / len(risen),
            step_s=sum(s for _, s in risen) / len(risen),
            reference_wait_per_batch_s=ref_wait,
            reference_step_s=ref_step,
            windows=len(risen),
        )
