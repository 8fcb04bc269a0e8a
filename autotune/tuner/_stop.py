"""When to stop searching, and why, in words."""

from __future__ import annotations

from collections.abc import Sequence

from optuna.trial import FrozenTrial, TrialState

from autotune.tuner._noise import clearly_better, median, relative_spread
from autotune.tuner._records import role, usable

MAX_CEILING_GAP = 0.10


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


def stop_reason(
    trials: Sequence[FrozenTrial],
    ceiling: Sequence[float] | None,
    patience: int,
) -> str | None:
    """A reason to stop now, or None to go on."""
    measured = [
        t
        for t in trials
        if t.user_attrs.get("duplicate_of") is None
        and t.state in (TrialState.COMPLETE, TrialState.FAIL, TrialState.PRUNED)
    ]
    best: list[float] = []
    since_gain = 0
    for t in measured:
        windows = windows_of(t) if usable(t) else []
        if windows and clearly_better(windows, best):
            best, since_gain = windows, 0
        elif role(t) != "baseline":
            since_gain += 1
    if ceiling and near_ceiling(best, ceiling) and not beats_ceiling(best, ceiling):
        return (
            f"the best setting runs at {median(best) / median(ceiling):.0%} of the compute "
            "ceiling, within noise of it: no loader setting can do better"
        )
    if since_gain >= patience:
        return f"{since_gain} trials in a row brought no gain beyond noise"
    return None
