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

The load beside the run is read at each window's end too (``OutsideCpu``: the cores other
processes used, one reading a window, never per batch). When the run settled beside another
process's load (``DISTURBED`` cores or more in the reference window) and that load has ended
(under ``QUIET`` cores for ``SUSTAIN`` windows in a row), the settled settings were chosen
for a machine that is gone: that reopens the search too. A load that starts is not a reason
by itself: if it slows the loader, the wait rises. In a multi-rank job the other ranks are
load beside each rank, so a rank never reads its machine as quiet there.
"""

from __future__ import annotations

from collections.abc import Callable

from autotune.contract import Drift

RISE = 0.25  # of the settled step: what the data wait must add to it to count as a rise
SUSTAIN = 3  # windows in a row
MIN_BATCHES = 5
DISTURBED = 0.5  # cores other processes used: the machine the run settled on was loaded
QUIET = 0.2  # cores other processes use: that load has ended


class DriftWatch:
    """Fed every batch of a settled run; ``batch`` returns a ``Drift`` once, when it is found."""

    __slots__ = (
        "_calm",
        "_cores_then",
        "_outside",
        "_reference",
        "_risen",
        "_skip",
        "_start",
        "_until",
        "_window_s",
        "n",
        "wait",
    )

    def __init__(
        self, window_s: float, now: float, outside: Callable[[], float | None] | None = None
    ) -> None:
        self._window_s = window_s
        self._outside = outside  # cores other processes used since its last call
        self._cores_then: float | None = None  # in the reference window
        self._calm: list[float] = []
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
        cores = self._outside() if self._outside is not None else None
        if self._skip:
            self._skip = False
            return None
        if self._reference is None:
            self._reference, self._cores_then = (wait, step), cores
            return None
        ref_wait, ref_step = self._reference
        calmed = self._calmed(cores, wait, step)
        if calmed is not None:
            return calmed
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

    def _calmed(self, cores: float | None, wait: float, step: float) -> Drift | None:
        """The load the run settled beside has ended (the module's docstring)."""
        then = self._cores_then
        if then is None or then < DISTURBED or cores is None or cores >= QUIET:
            self._calm.clear()
            return None
        self._calm.append(cores)
        if len(self._calm) < SUSTAIN:
            return None
        assert self._reference is not None
        return Drift(
            wait_per_batch_s=wait,
            step_s=step,
            reference_wait_per_batch_s=self._reference[0],
            reference_step_s=self._reference[1],
            windows=len(self._calm),
            cores_then=then,
            cores_now=sum(self._calm) / len(self._calm),
        )
