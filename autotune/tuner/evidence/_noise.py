"""Noise from the windows themselves: medians, intervals, and what counts as a real gain."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

# Below this relative difference two throughputs are never called different: on a shared
# machine a few percent move between identical runs.
NOISE_FLOOR = 0.03


def median(values: Sequence[float]) -> float:
    return float(statistics.median(values))


def ci95_median(values: Sequence[float]) -> tuple[float, float]:
    """Distribution-free 95% interval for the median, from order statistics.

    The count of values below the median is Binomial(n, 1/2), so the interval from the
    (j+1)-th to the (n-j)-th smallest value covers the median with probability
    P(j+1 <= K <= n-j-1); pick the narrowest such pair that still covers 95%. With fewer
    than 6 values no pair does, and this is the full range (which covers less).
    """
    ordered = sorted(values)
    n = len(ordered)
    if n == 0:
        raise ValueError("no values")
    lo_rank = 0
    for j in range(n // 2, -1, -1):
        coverage = sum(math.comb(n, i) for i in range(j + 1, n - j)) / 2**n
        if coverage >= 0.95:
            lo_rank = j
            break
    return ordered[lo_rank], ordered[n - 1 - lo_rank]


def sustained(values: Sequence[float]) -> float:
    """What a long run of these windows' config delivers, at most: the lower of their median
    and their harmonic mean. A loader-bound window closes on whole turns of the workers, so
    windows hold alike sample counts and the run's rate over them is their harmonic mean.
    Many workers deliver in bursts, and a stall (a straggler that holds the in-order
    delivery) makes one window long and its rate low, which the median of rates skips, so
    their median reads above what storage can serve (docs/benchmarks.md, "The knee behind
    bursty loaders"). Steady windows read the same either way."""
    if not values:
        raise ValueError("no values")
    if min(values) <= 0:
        return median(values)
    harmonic = len(values) / sum(1.0 / v for v in values)
    return min(median(values), harmonic)


# The expected range of n draws from one normal distribution, in its standard deviations
# (the d2 constants of range charts).
_RANGE_SDS = {3: 1.693, 4: 2.059, 5: 2.326}
# Ranges are read as if of this many windows, the count a probe measured before it measured
# three: the same machine's noise must not read narrower, nor a verdict on it be bolder, for
# fewer windows.
_RANGE_AS_OF = 5


def window_range(values: Sequence[float]) -> tuple[float, float]:
    """The lowest and highest of ``values``, as five windows of the same noise would spread:
    three or four windows' distances from their median stretched by the ratio of the expected
    ranges (1.374 for three). Two windows stay as they are: a probe stops at two only once
    they agree, so their range is chosen by that rule, no sample of the noise."""
    if not values:
        raise ValueError("no values")
    lo, hi = min(values), max(values)
    n = len(values)
    if n not in _RANGE_SDS or n == _RANGE_AS_OF:
        return lo, hi
    scale = _RANGE_SDS[_RANGE_AS_OF] / _RANGE_SDS[n]
    mid = median(values)
    return mid - (mid - lo) * scale, mid + (hi - mid) * scale


def relative_spread(values: Sequence[float]) -> float:
    """Half the 95% interval of the median, relative to the median (at least NOISE_FLOOR).

    Up to five windows that interval is their range, read as five windows would spread
    (``window_range``)."""
    if len(values) < 2:
        return NOISE_FLOOR
    mid = median(values)
    if mid <= 0:
        return NOISE_FLOOR
    lo, hi = window_range(values) if len(values) <= _RANGE_AS_OF else ci95_median(values)
    return max(NOISE_FLOOR, (hi - lo) / 2 / mid)


def clearly_better(new: Sequence[float], old: Sequence[float]) -> bool:
    """``new`` beats ``old`` by more than the noise of both."""
    if not new or not old:
        return bool(new)
    noise = max(relative_spread(new), relative_spread(old))
    return median(new) > median(old) * (1 + noise)
