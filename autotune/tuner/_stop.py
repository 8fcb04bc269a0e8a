"""When to stop searching, and why, in words."""

from __future__ import annotations

from collections.abc import Sequence

from optuna.trial import FrozenTrial, TrialState

from autotune.tuner._noise import clearly_better, median, relative_spread
from autotune.tuner._records import role, usable

MAX_CEILING_GAP = 0.10
MAX_WAIT_AT_CEILING = 0.20


def windows_of(t: FrozenTrial) -> list[float]:
    return [v for _, v in sorted(t.intermediate_values.items())]


def near_ceiling(best: Sequence[float], ceiling: Sequence[float]) -> bool:
    """The best run is within noise of the compute ceiling: no loader setting can do better."""
    if not best or not ceiling:
        return False
    # Noisy windows widen "within noise", but never past 10%: a wide spread means we know
    # little, not that 60% of the ceiling is good enough.
    noise = min(MAX_CEILING_GAP, max(relative_spread(best), relative_spread(ceiling)))
    ratio = median(best) / median(ceiling)
    # Far above the ceiling means the ceiling probe was unlucky, not that we are done.
    return 1 - noise <= ratio <= 1 + MAX_CEILING_GAP


def beats_ceiling(best: Sequence[float], ceiling: Sequence[float]) -> bool:
    """A trial clearly faster than the ceiling: the ceiling measurement cannot be trusted."""
    return bool(best and ceiling) and median(best) > median(ceiling) * (1 + MAX_CEILING_GAP)


def _wait(t: FrozenTrial) -> float | None:
    value = (t.user_attrs.get("result") or {}).get("data_wait_fraction")
    return float(value) if value is not None else None


def ceiling_suspect(trials: Sequence[FrozenTrial], ceiling: Sequence[float]) -> str | None:
    """Why the measured ceiling cannot be right, or None.

    The ceiling is an upper bound. A trial that runs clearly faster disproves it; so does the
    baseline's own compute-only rate (its throughput over the share of time not spent
    waiting), which a step without data cost can only match or beat.
    """
    if not ceiling:
        return None
    limit = median(ceiling) * (1 + MAX_CEILING_GAP)
    for t in trials:
        if not usable(t):
            continue
        windows = windows_of(t)
        if windows and median(windows) > limit:
            return f"trial #{t.number} ran faster than it"
        wait = _wait(t)
        computing = wait is not None and wait < 0.95
        if role(t) == "baseline" and windows and computing and median(windows) / (1 - wait) > limit:  # type: ignore[operator]
            return "the script as written computes faster than it between waits"
    return None


def stop_reason(
    trials: Sequence[FrozenTrial],
    ceiling: Sequence[float] | None,
    patience: int,
) -> str | None:
    """A reason to stop now, or None to go on.

    Failed trials do not use up patience: a crash teaches where not to go, and the search
    should get the chance to act on it.
    """
    measured = [
        t
        for t in trials
        if t.user_attrs.get("duplicate_of") is None
        and t.state in (TrialState.COMPLETE, TrialState.PRUNED)
    ]
    best: list[float] = []
    best_trial: FrozenTrial | None = None
    since_gain = 0
    for t in measured:
        windows = windows_of(t) if usable(t) else []
        if windows and clearly_better(windows, best):
            best, best_trial, since_gain = windows, t, 0
        elif role(t) != "baseline":
            since_gain += 1
    wait = _wait(best_trial) if best_trial is not None else None
    # A run that still waits for data a fifth of its time is not at the ceiling, whatever
    # a noisy ceiling probe says.
    barely_waits = wait is None or wait < MAX_WAIT_AT_CEILING
    if ceiling and barely_waits and near_ceiling(best, ceiling):
        return (
            f"the best setting runs at {median(best) / median(ceiling):.0%} of the compute "
            "ceiling, within noise of it: no loader setting can do better"
        )
    if since_gain >= patience:
        return f"{since_gain} trials in a row brought no gain beyond noise"
    return None
