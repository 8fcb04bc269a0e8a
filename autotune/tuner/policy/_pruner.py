"""Stops a probe early when its windows are clearly below the best trial's."""

from __future__ import annotations

import optuna
from optuna.trial import FrozenTrial, TrialState

from autotune.contract import NUM_WORKERS
from autotune.state import compared_windows
from autotune.tuner.evidence import NEAR, NOISE_FLOOR, load_noise, steady_load, window_range

# One window far below the best is enough: a config at two thirds of the best is not one
# noisy window away from winning, and its remaining windows cost as much as a good one's.
FIRST_WINDOW_MARGIN = 0.33


class WindowPruner(optuna.pruners.BasePruner):
    """Prune once ``min_windows`` windows are in and even the fastest of them is slower
    than the slowest window of the best trial, by more than ``margin``; or after the first
    window when it is below that by more than ``first_margin``.

    Windows of two probes are not paired, so a rank test such as Wilcoxon does not apply;
    a disjoint range is the plain, conservative test. Warm-up is never reported, so it is
    excluded by construction.

    Under a steady load (another process on the cores through the search) one window is
    no evidence: beside a spinning core the first windows of 12 workers read 369 samples/s
    where the run settles near 1,000, and the climb stopped there. Then a trial is pruned
    only after ``min_windows``, and only below the best by more than the load's own noise.

    A finished trial is compared by the windows its result states, charged with the start-up
    each epoch pays (probe/measure/_epoch.py), not by the windows it streamed: 32 workers
    restarted every epoch stream a fast steady rate, and against it no workers, which wins
    once the restarts are paid, would be pruned. The running trial's windows are not charged yet,
    which only prunes less.
    """

    def __init__(
        self,
        min_windows: int = 2,
        margin: float = 2 * NOISE_FLOOR,
        first_margin: float = FIRST_WINDOW_MARGIN,
    ) -> None:
        self.min_windows = min_windows
        self.margin = margin
        self.first_margin = first_margin

    def prune(self, study: optuna.Study, trial: FrozenTrial) -> bool:
        values = list(trial.intermediate_values.values())
        if not values:
            return False
        best_low, best_workers = None, 0
        trials = study.get_trials(deepcopy=False)
        for t in trials:
            if t.state != TrialState.COMPLETE or not t.intermediate_values:
                continue
            low = window_range(compared_windows(t))[0]  # as low as five windows would read
            if best_low is None or low > best_low:
                best_low, best_workers = low, int(t.params.get(NUM_WORKERS) or 0)
        if best_low is None:
            return False
        margin = self.margin if len(values) >= self.min_windows else self.first_margin
        if 0 < int(trial.params.get(NUM_WORKERS) or 0) < best_workers:
            # Fewer workers than the best, and near it: a knee the pick may take, whose
            # windows confirmation needs whole (``NEAR``: probes drift by as much).
            margin = max(margin, NEAR)
        if steady_load(trials) is not None:
            if len(values) < self.min_windows:
                return False
            margin = max(margin, min(0.9, load_noise(trials)))
        return max(values) < best_low * (1 - margin)
