"""Measurement sized to the script's own length, once a probe of it has seen it end.

Real runs are finite: with a fast config a 3-epoch script can end before a warm-up and five
windows sized for long runs are over, and the evidence of a fast config is the most valuable
a probe gets. When the tuner knows how many batches the script's run takes (a probe saw it
end by itself: ``ProbeSettings.script_batches``), the warm-up ends by ``WARMUP_SHARE`` of
them at the latest, and the windows shrink so that the windows wanted fit, with a margin, in
the batches left at the warm-up's rate. A probe given a deadline (``ProbeSettings.deadline_s``)
stops measuring before it, with the windows it has.
"""

from __future__ import annotations

import time
from time import perf_counter

import psutil

from autotune.contract import ProbeSettings

# The warm-up ends (flagged not steady if it must) once this share of the script's batches
# has been delivered.
WARMUP_SHARE = 1 / 3
# Of the time the batches left should take, the share the windows plan to use.
WINDOWS_SHARE = 0.8
# Windows shorter than this time mostly scheduling noise.
MIN_WINDOW_S = 0.05


def warmup_over(settings: ProbeSettings, seen: int) -> bool:
    """Must the warm-up end now, ``seen`` batches into a script of known length?"""
    total = settings.script_batches
    return total is not None and total > 0 and seen >= total * WARMUP_SHARE


def fit_rate(
    best: float | None, samples: int, first_at: float | None, last_at: float | None
) -> float | None:
    """Samples/s to fit the windows by: the warm-up's best sub-window (``best``), else, where
    a short script's share ended the warm-up before one closed (a sub-window holds a batch
    per worker at least), the ``samples`` since its first batch, which no worker's start-up
    delays, over the time from that batch (``first_at``) to the last (``last_at``)."""
    if best or first_at is None or last_at is None or last_at <= first_at:
        return best
    return samples / (last_at - first_at)


def fitted_window_s(settings: ProbeSettings, seen: int, batches_per_s: float | None) -> float:
    """The window length that fits the windows wanted into what is left of the script."""
    total = settings.script_batches
    if not total or not batches_per_s or batches_per_s <= 0:
        return settings.window_s
    left = total - seen
    want = max(2, settings.min_windows or settings.windows)
    if left <= want * settings.min_batches_per_window:
        return settings.window_s  # too little left to fit anything: measure what there is
    fitted = WINDOWS_SHARE * left / batches_per_s / want
    return max(MIN_WINDOW_S, min(settings.window_s, fitted))


def epoch_left(settings: ProbeSettings, seen: int, epoch_batches: int | None) -> bool:
    """Whether a whole epoch's batches are still to come, ``seen`` batches into the script
    (always, where its length or its epoch's is unknown). Where none is, windows dropped for
    whole-epoch ones would leave none: a 3-epoch script's fitted probe of a config 7x faster
    than as written switched to them with 60 of its 189 batches left and ended with nothing
    to show."""
    total = settings.script_batches
    if not total or not epoch_batches:
        return True
    return total - seen >= epoch_batches


def out_of_time(deadline: float | None, windows: list[float], now: float, window_s: float) -> bool:
    """Another window would end past the ``deadline``, and the windows so far can stand."""
    return deadline is not None and len(windows) >= 2 and now + window_s > deadline


def deadline_at(deadline_s: float | None) -> float | None:
    """``deadline_s`` after this process started, on the ``perf_counter`` clock."""
    if deadline_s is None:
        return None
    started = psutil.Process().create_time()
    return perf_counter() + (started + deadline_s - time.time())
