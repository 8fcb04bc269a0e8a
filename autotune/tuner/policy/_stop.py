"""When to stop searching, and why, in words."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from optuna.trial import FrozenTrial, TrialState

from autotune.state import baseline_of, compared_windows, counted, record_of, role, usable
from autotune.tuner.evidence import (
    clearly_better,
    load_noise,
    measured_quiet,
    median,
    near_ceiling,
    relative_spread,
    steady_load,
    step_changed,
    trial_config,
    wait_fraction,
)

MAX_WAIT_AT_CEILING = 0.20
_MAX_DUPLICATES_IN_A_ROW = 4
EXHAUSTED = "the search space is exhausted: the sampler keeps proposing settings already measured"


# The bound for a config with this many workers: (windows, which ceiling binds).
Bound = Callable[[int], tuple[Sequence[float], str]]


def stop_reason(
    trials: Sequence[FrozenTrial],
    ceiling: Sequence[float] | None,
    patience: int,
    *,
    bound: Bound | None = None,
    searched_around_best: bool = False,
    knee_open: bool = False,
    step_fixed: bool = False,
) -> str | None:
    """A reason to stop now, or None to go on.

    ``ceiling`` is the compute ceiling's windows; ``bound``, when given, says which bound
    holds for the best config's worker count (the transport ceiling can be lower). Both are
    of the script's own step: neither ends a search whose best changed that step (copy
    streams, pinned copies, another batch size, device or thread count), nor one with such a
    guess still queued (``step_changed``).
    Failed trials do not use up patience: a crash teaches where not to go, and the search
    should get the chance to act on it. ``searched_around_best``: the line search measured
    (or saw fail) every neighbour of the best that the measurements say could gain; the
    steps most likely to pay are spent, so the search ends without spending patience on the
    sampler's guesses, which cost a probe each and seldom win (measured: docs/benchmarks.md,
    "Tuning quality vs exhaustive grid, full 25-point grid").
    ``knee_open``: the climb still has a count below the best to measure on its way down to
    the knee; no such count can be a gain, so neither patience nor the ceiling ends the
    search before it (the recommendation is the cheapest count that reaches the best).
    ``step_fixed``: no setting in the search space changes the step (no CUDA, batch sizes or
    torch threads), so ``wait_bound`` may end it.
    """
    if step_fixed and (reason := wait_bound(trials)) is not None:
        return reason
    best: list[float] = []
    best_trial: FrozenTrial | None = None
    since_gain = 0
    # Under a steady load a trial within the load's noise of the best is no evidence that
    # it brought nothing: only one clearly below it (or pruned) uses up patience.
    noise = load_noise(trials) if steady_load(trials) is not None else None
    for t in counted(trials):
        if t.state == TrialState.FAIL:
            continue
        # Charged with the start-up each epoch pays: what the answer compares too.
        windows = compared_windows(t) if usable(t) else []
        if windows and clearly_better(windows, best):
            best, best_trial, since_gain = windows, t, 0
        elif role(t) == "baseline":
            continue
        elif noise is None or not windows or median(windows) < median(best) * (1 - noise):
            since_gain += 1
    if knee_open:
        return None
    # Against the ceiling, the fastest measured: the knee's search measured more after the
    # best, within noise of it.
    top = max((t for t in counted(trials) if usable(t)), key=lambda t: t.value or 0.0, default=None)
    if (
        top is not None
        and best_trial is not None
        and (top.value or 0.0) > (best_trial.value or 0.0)
    ):
        best, best_trial = compared_windows(top), top
    wait = wait_fraction(best_trial) if best_trial is not None else None
    # A run that still waits for data a fifth of its time is not at the ceiling, whatever
    # a noisy ceiling probe says.
    barely_waits = wait is None or wait < MAX_WAIT_AT_CEILING
    kind = "compute"
    if any(step_changed(t) for t in trials if t.state == TrialState.WAITING) or (
        best_trial is not None and step_changed(best_trial)
    ):
        ceiling, bound = None, None
    if bound is not None and best_trial is not None:
        ceiling, kind = bound(int(trial_config(best_trial).num_workers or 0))
    # The transport ceiling binds the loader itself: a run at it still waits for data.
    if ceiling and (barely_waits or kind == "transport") and near_ceiling(best, ceiling):
        ratio = median(best) / median(ceiling)
        if ratio > 1:  # above a noisy ceiling, within its noise: it has reached it
            return (
                f"the best setting reaches the {kind} ceiling ({ratio:.0%} of it, within "
                "noise): no loader setting can do clearly better"
            )
        return (
            f"the best setting runs at {ratio:.0%} of the {kind} "
            "ceiling, within noise of it: no loader setting can do better"
        )
    # The line search's own end first: its steps down to the knee are no gains by design,
    # and patience spent on them would read as if the search had wandered.
    if searched_around_best and best_trial is not None and role(best_trial) != "baseline":
        return (
            f"every neighbour of the fastest (#{best_trial.number}) that could gain is measured, "
            "and the counts below it down to the knee: none brought a gain beyond noise"
        )
    if since_gain >= patience and noise is not None:
        return (
            f"{since_gain} trials since the best ran below it by more than the load's own "
            f"noise ({noise:.0%})"
        )
    if since_gain >= patience:
        return f"{since_gain} trials in a row brought no gain beyond noise"
    return None


def wait_bound(trials: Sequence[FrozenTrial]) -> str | None:
    """Why no probe after the baseline can change the answer, or None.

    A setting that leaves the step as it is (the workers, their queue, persistence) can at
    best hide the time the script waits for data: the script as written, waiting a share w
    of its time, runs at most 1 / (1 - w) faster so. Where it loads in its main process (no
    workers of its own whose cores the step could get back) on a quiet machine, and that
    gain is within the noise of its own windows, no such setting can be recommended
    (``clearly_faster`` asks more than that noise), and with the step fixed (the caller's
    ``step_fixed``, and nothing queued that changes it) every probe after the baseline would
    be spent on an answer known now: the script's own settings. Measured on the model-bound
    example: docs/benchmarks.md, "A model-bound script answered from its baseline"."""
    base = baseline_of(trials)
    if base is None or not usable(base) or not measured_quiet(base):
        return None
    if record_of(base).script_config.num_workers:
        return None
    if any(step_changed(t) for t in trials if t.state == TrialState.WAITING):
        return None
    wait, windows = wait_fraction(base), compared_windows(base)
    if wait is None or not windows or not 0 <= wait < 1:
        return None
    gain, noise = 1 / (1 - wait) - 1, relative_spread(windows)
    if gain > noise:
        return None
    return (
        f"the script as written waits for data {wait:.0%} of its time, loading in its main "
        f"process on a quiet machine: a loader setting can gain at most {gain:.1%} by hiding "
        f"that wait, within the noise of its own windows ({noise:.0%}), and none in this "
        "search changes the step"
    )


class DuplicateStreak:
    """The sampler proposing settings already measured, again and again, means the space is
    exhausted; one streak rule for the tuner and for workers."""

    def __init__(self, limit: int = _MAX_DUPLICATES_IN_A_ROW) -> None:
        self.limit = limit
        self.count = 0

    def exhausted(self, ran: bool) -> bool:
        self.count = 0 if ran else self.count + 1
        return self.count >= self.limit
