"""Rules on the shape of the meter's windows: when one may close, and when their spread is a
stall at each epoch start rather than another process on the cores.

Short epochs with a costly start are measured in whole epochs. A loader can stall at every
epoch start (the pipeline drains at the end of an epoch and refills at the start of the next:
workers restart, or ``workers x prefetch_factor`` batches are produced at once), so batches
arrive in bursts with a period of one epoch. Time windows shorter than that period land on a
burst or on a stall (4,500 and 92 samples/s from one config), and their median is not the
rate a long run sees. So when an epoch is expected to take at most ``EPOCH_WINDOW_SPAN`` x
the planned measurement, the time windows go on until one of them holds an epoch start; if
they then spread by more than ``EPOCH_SPREAD``, measuring restarts in windows of whole
epochs (as many as make up ``window_s``): any run of an epoch's batches holds exactly one
epoch start, whatever the phase, so each such window is the long-run rate. They are as many
as the planned windows while they fit that span, fewer where they would not (two at least,
``whole_epoch_windows``). Otherwise the time windows stand. The progress file (the runner
prunes on it) only sees windows that stand. Longer epochs keep time windows; their stalls
are a smaller share of the epoch.

Many workers deliver in bursts. Each worker takes a batch's whole time (its period), so
workers in phase hand over their batches together, once a period; a time window shorter than
a few periods lands on a burst or between two (0.5 s windows of 12 workers with a 0.64 s
batch period read 206-1,328 samples/s, median half the long-run rate). The DataLoader hands
batches over in order, worker by worker in turn, so any run of a multiple of ``workers``
batches holds one period's output of every worker per multiple, whatever the phase: a window
in which the main process mostly waited for data (the loader bounds the rate, so bursts are
possible) closes on such a multiple. One in which the step paced the batches closes on time.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

# Epochs expected to take at most this many times ``windows x window_s`` are short: a probe
# can afford to measure whole ones.
EPOCH_WINDOW_SPAN = 2.0

# A window whose main process waited for data this share of it or more is loader-bound: it
# closes on a multiple of the worker count (bursts), not at the first batch after window_s.
BURST_WAIT_SHARE = 0.5
# ... unless it has run this many times window_s (a stalled worker must not hold it open).
BURST_CAP = 8.0
# Windows around an epoch start that spread this much ((max - min) / median) are bursts and
# stalls, not noise: whole-epoch windows measure them.
EPOCH_SPREAD = 0.3


def epoch_fits(
    epoch_batches: int | None, batch_samples: float, rate: float | None, span_s: float
) -> bool:
    """Whether an epoch of ``epoch_batches`` batches of ``batch_samples`` at ``rate``
    samples/s lasts at most ``span_s``: short enough for windows of whole epochs."""
    if not epoch_batches or not rate:
        return False
    return epoch_batches * batch_samples / rate <= span_s


def closes_on_time_or_turn(
    *, elapsed: float, window_s: float, batches: int, workers: int, waited: float
) -> bool:
    """Whether a window of ``batches`` over ``elapsed`` seconds (``waited`` of them in the
    loader), already past ``window_s``, may close here."""
    return (
        workers <= 1
        or batches % workers == 0
        or not loader_bound(waited=waited, elapsed=elapsed)
        or elapsed >= BURST_CAP * window_s
    )


def loader_bound(*, waited: float, elapsed: float) -> bool:
    """Whether the main process waited for data for ``BURST_WAIT_SHARE`` of a window or more:
    the workers, not the step, set its rate."""
    return waited >= BURST_WAIT_SHARE * elapsed


def stalled_at_epoch_start(windows: Sequence[float], starts: Sequence[int]) -> bool:
    """Whether ``windows`` (samples/s; ``starts``: epoch starts in each) spread by more than
    ``EPOCH_SPREAD`` with the slowest holding an epoch start.

    A stall at the epoch start slows the window that holds it; a spread whose slowest window
    holds no start is another process taking the cores, which spreads windows as widely even
    where every probe runs whole epochs (measured: docs/benchmarks.md, "Figures the code's
    rules cite")."""
    slowest = min(range(len(windows)), key=windows.__getitem__)
    stalled = slowest < len(starts) and starts[slowest] > 0
    return stalled and (max(windows) - min(windows)) > EPOCH_SPREAD * statistics.median(windows)


def whole_epoch_windows(planned: int, window_s: float, epoch_s: float) -> int:
    """How many windows of whole epochs (each as many ``epoch_s`` epochs as make up
    ``window_s``) a probe measures: the ``planned`` count where they fit ``EPOCH_WINDOW_SPAN``
    x the planned measurement, else as many as fit, two at least (one has no spread). Each is
    the long-run rate by itself, so fewer of them lose little, while five epochs of 9.6 s (a
    tokenising loader with one worker, held out) made a probe planned at 7.5 s measure 56 s."""
    if epoch_s <= 0:
        return planned
    span = EPOCH_WINDOW_SPAN * planned * window_s
    return max(2, min(planned, int(span // (math.ceil(window_s / epoch_s) * epoch_s))))


def window_rate(
    samples: int,
    batches: int,
    elapsed: float,
    *,
    waited: float,
    waiting: tuple[int | None, int | None],
) -> float:
    """Samples/s of a window of ``samples`` in ``batches`` over ``elapsed`` seconds.

    Where the main process mostly waited for data the workers bound the rate, so it is what
    they finished: the batches handed over plus the change in ``waiting`` (finished batches
    not yet handed over, at the window's start and end), which fills and drains by up to
    ``workers x prefetch_factor`` batches, as many as a deep loader's window holds. Where the
    step paced the batches, what it took: the workers then finish in bursts (a whole short
    epoch at once), and what they finished would read 0 in the window after."""
    start, end = waiting
    if (
        start is None
        or end is None
        or not batches
        or not loader_bound(waited=waited, elapsed=elapsed)
    ):
        return samples / elapsed
    return max(0.0, samples + (end - start) * samples / batches) / elapsed
