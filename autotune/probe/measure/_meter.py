"""Per-batch timing of the measured loader: warm-up to steady state, then fixed-length windows.

Warm-up ends when the loader is in steady state, not after a fixed time: tens of workers take
seconds to start on a small machine, and windows over their ramp would measure the start-up
as if it were the rate. Steady means every worker has delivered (batches >= 2 x workers) and
the rate over ``STEADY_SUBWINDOWS`` warm-up sub-windows in a row (a third of a window each)
was no more than ``steady_tolerance`` above the best sub-window before it.
``warmup_s``/``warmup_batches`` stay the minimum; ``max_warmup_s`` is the cap, after which
measuring starts anyway with ``steady_state=False``.

Two kinds of bursts shape the windows (``_windows.py``): short epochs with a costly start are
measured in whole epochs, and a loader-bound window closes on whole turns of its workers. A
loader-bound window's rate is what the workers finished in it (``_finished``): torch holds
finished batches back to hand them over in order, by as many as the window holds.

The lead meter feeds an ``EpochClock`` (``_epoch.py``) at first batches and epoch ends, and
never waits for an epoch end (every trial would pay that wait); ``_iterators.py`` feeds it.
At each window edge (never per batch) it reads the cores other processes used in the window
(``probe/machine/_outside_cpu.py``): a shared machine moves a rate by 2-10x.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from time import perf_counter

from autotune.contract import ProbeSettings
from autotune.probe.machine import OutsideCpu
from autotune.probe.measure._epoch import EpochClock
from autotune.probe.measure._figures import MeterFigures, figures_of
from autotune.probe.measure._fit import (
    deadline_at,
    epoch_left,
    fit_rate,
    fitted_window_s,
    out_of_time,
    warmup_over,
)
from autotune.probe.measure._windows import (
    EPOCH_WINDOW_SPAN,
    closes_on_time_or_turn,
    epoch_fits,
    stalled_at_epoch_start,
    whole_epoch_windows,
    window_rate,
)

# Warm-up sub-windows in a row, none faster than the best before it, that end the ramp.
STEADY_SUBWINDOWS = 2


class ProbeDone(BaseException):
    """Ends the user's script once measurement is complete: a ``BaseException``, so that the
    broad ``except Exception:`` common in training loops does not swallow it."""


class Meter:
    """Accumulates batch timings and closes measurement windows. ``sync`` is called at window
    edges (a CUDA synchronize on GPU) so that queued asynchronous work lands in its window."""

    def __init__(
        self,
        settings: ProbeSettings,
        *,
        extra_warmup_batches: int = 0,
        sync: Callable[[], None] = lambda: None,
        on_window: Callable[[int, float], None] = lambda i, v: None,
        on_done: Callable[[], None] = lambda: None,
        outside_cpu: Callable[[], float | None] | None = None,
    ) -> None:
        self.settings = settings
        # Read at window edges only: cores other processes used during each window.
        self._outside_cpu = outside_cpu if outside_cpu is not None else OutsideCpu()
        self.interference: list[float | None] = []  # one per window
        self._warmup_batches = settings.warmup_batches + extra_warmup_batches
        self._sync = sync
        self._on_window = on_window
        self._on_done = on_done
        self.started_at: float | None = None
        self.first_batch_at: float | None = None
        self.batches = 0
        self.samples = 0
        self._prewarmed = 0  # batches seen before the loader was chosen (``prewarm``)
        self.measuring = False
        self.done = False
        # The lead meter's epoch clock (None: no epoch is timed).
        self.clock: EpochClock | None = None
        self.windows: list[float] = []
        self.steps: list[float] = []
        self.measure_start: float | None = None
        self.measure_end: float | None = None
        self.measured_wait = 0.0
        self.measured_wait_cpu = 0.0  # the CPU of the thread that waited, while it waited
        self.measured_batches = 0
        self.measured_samples = 0
        self.epoch_starts = 0
        self.startup_s = 0.0
        self._last_t: float | None = None
        # Time between a training pass's end and the next one's start while measuring (the
        # script's validation and the like): outside every window and the measured wall.
        self.outside_s = 0.0
        self._ended_at: float | None = None
        self.workers = 0  # of the measured iterator, set before its first batch
        # Finished batches the measured iterator has not handed over (``loader/_waiting.py``),
        # read at window edges: a window's rate is what the workers finished in it.
        self.waiting: Callable[[], int | None] | None = None
        self._waiting_at_start: int | None = None
        # Batches per epoch of the measured iterator, when it has a length.
        self.epoch_batches: int | None = None
        # Short epochs: decided when measuring starts (the warm-up's rate); windows of whole
        # epochs instead of window_s (``epoch_windows``): after a window with a costly start.
        self.short_epochs, self.epoch_windows = False, False
        self._starts_in_window = 0
        self._window_starts: list[int] = []  # epoch starts per closed window
        self._held: list[float] = []  # windows not yet written to the progress file
        self._epochs_decided = False
        self._whole_epochs = settings.windows  # whole-epoch windows to measure, once switched
        self.steady_state: bool | None = None
        self._sub_s = settings.window_s / 3
        # settings.window_s, or shorter to fit a script of known length (``_fit.py``).
        self.window_s = settings.window_s
        # (time, samples, batches) once the warm-up's batch count was reached: what a script
        # that ends before any window leaves to measure (``tail_rate``).
        self._mark: tuple[float, int, int] | None = None
        self._last_batch_t: float | None = None
        self._sub_start: float | None = None
        self._sub_samples, self._sub_batches, self._calm = 0, 0, 0
        self._sub_best: float | None = None
        self._window_start, self._window_samples, self._window_batches = 0.0, 0, 0
        self._window_wait = 0.0
        self.on_measure_start: Callable[[], None] = lambda: None
        self.on_measure_end: Callable[[], None] = lambda: None
        self._deadline = deadline_at(settings.deadline_s)

    def iter_started(self, t: float) -> None:
        if self.started_at is None:
            self.started_at = t
        ended, self._ended_at = self._ended_at, None
        if ended is None or t <= ended:
            return
        # Between the training pass's end and the next one's start the script did its own
        # work (validation, checkpoints) at settings no trial changes: no window holds it, or
        # one over an epoch end would not compare with one inside an epoch; nor does a warm-up
        # sub-window, or those over a pass read slow whatever the ramp and "calm" ended it.
        gap = t - ended
        if not self.measuring and self._sub_start is not None:
            self._sub_start += gap
        elif self.measuring:
            self.outside_s += gap
            self._window_start += gap
            if self._last_t is not None:
                self._last_t += gap

    def add_wait(self, seconds: float) -> None:
        """Time spent creating an iterator (worker start-up) counts as waiting for data."""
        if self.measuring:
            self.measured_wait += seconds

    def first_batch(self, t_iter: float, t1: float) -> None:
        """An iterator delivered its first batch: worker start-up ends here."""
        if self.clock is not None:
            self.clock.train_first(t1)
        if self.measuring:
            self.epoch_starts += 1
            self._starts_in_window += 1
            self.startup_s += t1 - max(t_iter, self.measure_start or t_iter)

    def prewarm(self, delivered: Sequence[tuple[float, float, int]]) -> None:
        """Batches (before, after, samples) the loader delivered before the probe chose it:
        it already ran with the trial's settings, so they count toward the warm-up (a 0-worker
        baseline at 128 ms a batch spent 1.2 s on them, then as long again warming up); they
        never count toward a window, nor toward ``batches`` (the patch counts them)."""
        for _t0, t1, n in delivered:
            if self.measuring or self.done:
                return
            self._prewarmed += 1
            self._warming(t1, n)

    def record(self, t0: float, t1: float, n: int, cpu: float = 0.0) -> None:
        """A batch of ``n`` samples asked for at ``t0`` and delivered at ``t1``; ``cpu``:
        the CPU seconds the asking thread spent meanwhile (its loading, with no workers)."""
        self.batches += 1
        self.samples += n
        if self.first_batch_at is None:
            self.first_batch_at = t1
        self._last_batch_t = t1
        if self.batches == self._warmup_batches:
            self._mark = (t1, self.samples, self.batches)
        if self.measuring:
            self.measured_wait += t1 - t0
            self.measured_wait_cpu += cpu
            self._window_wait += t1 - t0
            if self._last_t is not None:
                self.steps.append(t1 - self._last_t)
            self._last_t = t1
            self._window_samples += n
            self._window_batches += 1
            self.measured_batches += 1
            self.measured_samples += n
            if self._window_full(t1):
                self._close_window()
        elif not self.done:
            self._warming(t1, n)

    def _warming(self, t1: float, n: int) -> None:
        """Counters only; a division per closed sub-window."""
        if self._sub_start is None:
            self._sub_start = t1  # sub-windows start at the first batch: not its wait
            return
        self._sub_samples += n
        self._sub_batches += 1
        s = self.settings
        since = t1 - (self.started_at if self.started_at is not None else t1)
        if since >= s.max_warmup_s or warmup_over(s, self.batches + self._prewarmed):
            self.steady_state = False
            self._start_measuring(t1)
            return
        elapsed = t1 - self._sub_start
        if elapsed < self._sub_s or self._sub_batches < max(s.min_batches_per_window, self.workers):
            return
        rate = self._sub_samples / elapsed
        best = self._sub_best
        # Calm: no faster than the best sub-window so far. One noisy dip inside a ramp is
        # calm too, so STEADY_SUBWINDOWS calm sub-windows in a row end the warm-up.
        self._calm = (
            self._calm + 1 if best is not None and rate <= best * (1 + s.steady_tolerance) else 0
        )
        self._sub_best = rate if best is None else max(best, rate)
        self._sub_start, self._sub_samples, self._sub_batches = t1, 0, 0
        if (
            self._calm >= STEADY_SUBWINDOWS
            and self.batches + self._prewarmed >= max(self._warmup_batches, 2 * self.workers)
            and since >= s.warmup_s
        ):
            self.steady_state = True
            self._start_measuring()

    def _window_full(self, t1: float) -> bool:
        if self.epoch_windows and self.epoch_batches:
            # Whole epochs, as many as make up window_s (tiny epochs are too short to time).
            n = self._window_batches
            return n % self.epoch_batches == 0 and t1 - self._window_start >= self.window_s
        elapsed = t1 - self._window_start
        n = self._window_batches
        if elapsed < self.window_s or n < self.settings.min_batches_per_window:
            return False
        return closes_on_time_or_turn(
            elapsed=elapsed,
            window_s=self.window_s,
            batches=n,
            workers=self.workers,
            waited=self._window_wait,
        )

    def _short_epochs(self, now: float) -> bool:
        """Whether an epoch, at the warm-up's best rate, fits the span a probe can measure."""
        if not self.batches or self.first_batch_at is None:
            return False
        elapsed = now - self.first_batch_at
        rate = self._sub_best or (self.samples / elapsed if elapsed > 0 else None)
        span = EPOCH_WINDOW_SPAN * self.settings.windows * self.window_s
        return epoch_fits(self.epoch_batches, self.samples / self.batches, rate, span)

    def _start_measuring(self, t1: float | None = None) -> None:  # t1: a cut warm-up's last
        self._sync()
        now = perf_counter()
        rate = fit_rate(self._sub_best, self._sub_samples, self._sub_start, t1)
        if rate and self.samples:
            batches_per_s = rate * self.batches / self.samples
            seen = self.batches + self._prewarmed
            self.window_s = fitted_window_s(self.settings, seen, batches_per_s)
        self.short_epochs = self._short_epochs(now)
        self.measuring = True
        self.measure_start = now
        self._window_start = now
        self._waiting_at_start = self._read_waiting()
        self._last_t = now
        self._outside_cpu()  # marks the first window's start
        self.on_measure_start()

    def _close_window(self) -> None:
        self._sync()
        now = perf_counter()
        rate = self._finished(self._window_samples, self._window_batches, now - self._window_start)
        self.windows.append(rate)
        self.interference.append(self._outside_cpu())
        self._window_starts.append(self._starts_in_window)
        self._starts_in_window = 0
        self._window_start = now
        self._window_samples = 0
        self._window_batches = 0
        self._window_wait = 0.0
        self._held.append(rate)
        settled = self._epoch_stall_settled()
        if settled:
            self._flush_held()
        enough = self.settings.enough(self.windows) or len(self.windows) >= self._whole_epochs
        if settled and (enough or out_of_time(self._deadline, self.windows, now, self.window_s)):
            self.measuring = False
            self.done = True
            self.measure_end = now
            self.on_measure_end()
            self._on_done()

    def _read_waiting(self) -> int | None:
        return self.waiting() if self.waiting is not None else None

    def _finished(self, samples: int, batches: int, elapsed: float) -> float:
        """Samples/s of the window now closing (``_windows.window_rate``)."""
        end = self._read_waiting()
        start, self._waiting_at_start = self._waiting_at_start, end
        return window_rate(
            samples, batches, elapsed, waited=self._window_wait, waiting=(start, end)
        )

    def epoch_ended(self, t: float) -> None:
        """The measured iterator ran out: the training pass of an epoch ends here."""
        if self.clock is not None:
            self.clock.train_end(t)
        self._ended_at = t

    def _epoch_stall_settled(self) -> bool:
        """Whether the windows so far stand (False: still waiting for a window with an epoch
        start). Switches to whole-epoch windows, dropping the time windows, when the windows
        around an epoch start spread by more than EPOCH_SPREAD. Decided once: windows that
        stood were written to the progress file."""
        if self.epoch_windows or not self.short_epochs or self._epochs_decided:
            return True
        windows = self.windows
        if not any(self._window_starts):
            # An epoch is at most EPOCH_WINDOW_SPAN x the planned windows: one starts soon.
            self._epochs_decided = len(windows) >= EPOCH_WINDOW_SPAN * self.settings.windows + 1
            return self._epochs_decided
        if len(windows) < 2:
            return False
        # A stall first: windows that each hold a start still differ when one holds only a
        # fragment of an epoch beside its start (measuring began near an epoch's end).
        left = epoch_left(self.settings, self.batches + self._prewarmed, self.epoch_batches)
        if left and stalled_at_epoch_start(windows, self._window_starts):
            self.epoch_windows = True
            # An epoch lasts as long as its batches took in the windows dropped (stalls in).
            wall = perf_counter() - (self.measure_start or 0.0) - self.outside_s
            epoch_s = (self.epoch_batches or 0) * wall / max(1, self.measured_batches)
            self._whole_epochs = whole_epoch_windows(self.settings.windows, self.window_s, epoch_s)
            self.windows.clear()
            self.interference.clear()
            self._window_starts.clear()
            self._held.clear()
            return False
        # Otherwise the time windows stand: every one holds a start (tiny epochs, each with
        # its share of them), or the spread is no stall.
        self._epochs_decided = True
        return True

    def _flush_held(self) -> None:
        """The windows held back (``_epoch_stall_settled``) stand: to the progress file."""
        first = len(self.windows) - len(self._held)
        for i, held in enumerate(self._held):
            self._on_window(first + i, held)
        self._held.clear()

    def close_partial(self) -> bool:
        """The script ended inside a window: keep that window if it is a clean one (steady,
        long enough to time), and write the ones held for an epoch start that cannot come now
        (unwritten, a fast config's one window left its trial unusable). Whether one was added."""
        if not self.measuring or self._last_t is None:
            return False
        elapsed = self._last_t - self._window_start
        small = self._window_batches < self.settings.min_batches_per_window
        if self.epoch_windows or small or elapsed < self.window_s / 4:
            self._flush_held()
            return False
        self.windows.append(self._finished(self._window_samples, self._window_batches, elapsed))
        self.interference.append(self._outside_cpu())
        self._window_starts.append(self._starts_in_window)
        self._held.append(self.windows[-1])
        self._flush_held()
        self.measure_end = self._last_t
        self.measuring = False
        return True

    def tail_rate(self) -> float | None:
        """Samples/s from the end of the warm-up's batch count to the last batch: what a
        script that ended before any window leaves (a replay has no ramp to wait out)."""
        if self._mark is None or self._last_batch_t is None:
            return None
        t, samples, batches = self._mark
        if self.batches - batches < self.settings.min_batches_per_window:
            return None
        elapsed = self._last_batch_t - t
        return (self.samples - samples) / elapsed if elapsed > 0 else None

    @property
    def last_batch_end(self) -> float | None:
        """When the last batch the meter saw ended (its step included)."""
        return self._last_t

    def figures(self) -> MeterFigures:
        """The measured figures; partial when the script ended before the last window."""
        return figures_of(self)
