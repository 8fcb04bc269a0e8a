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
# (the d2 constants of range charts), up to the count whose range ``ci95_median`` still is.
_RANGE_SDS = {2: 1.128, 3: 1.693, 4: 2.059, 5: 2.326}
# Ranges are read as if of this many windows: a probe of fewer windows (it stopped early, or
# measures three by default) spreads less by count alone, and its noise must not read lower
# than the same machine's with more.
_RANGE_AS_OF = 5


def relative_spread(values: Sequence[float]) -> float:
    """Half the 95% interval of the median, relative to the median (at least NOISE_FLOOR).

    Up to five windows the interval is their range, scaled to what five windows of the same
    noise would span: a verdict between a 3-window and a 5-window probe is no bolder for the
    first's fewer windows."""
    if len(values) < 2:
        return NOISE_FLOOR
    lo, hi = ci95_median(values)
    mid = median(values)
    if mid <= 0:
        return NOISE_FLOOR
    scale = _RANGE_SDS[_RANGE_AS_OF] / _RANGE_SDS.get(len(values), _RANGE_SDS[_RANGE_AS_OF])
    return max(NOISE_FLOOR, (hi - lo) / 2 / mid * scale)


def clearly_better(new: Sequence[float], old: Sequence[float]) -> bool:
    """``new`` beats ``old`` by more than the noise of both."""
    if not new or not old:
        return bool(new)
    noise = max(relative_spread(new), relative_spread(old))
    return median(new) > median(old) * (1 + noise)
