"""The search's time budget (``--budget``, also spelt ``--timeout``) on the user's clock.

The budget counts from the search's start, baseline included. No trial starts once it is
spent, and a probe started with less left than its usual deadline stops measuring when the
budget does, with the windows it has (two at least: ``ProbeSettings.deadline_s``). The
confirmation's re-measures need time of their own: with none left they are not run, and the
answer says so. What a search stopped by the budget did not measure is said with its reason
(``unsure``), so the answer says how far to trust it.
"""

from __future__ import annotations

import time
from dataclasses import replace

import optuna

from autotune.contract import ProbeSettings
from autotune.state import role, usable
from autotune.tuner.evidence import best_usable, trial_config
from autotune.tuner.policy import SearchSpace
from autotune.tuner.workers import knee_open, searched_around_best

# A probe needs at least this long to start and measure anything: a budget that leaves less
# still gives the probe this deadline (it stops at two windows whatever the deadline says).
LEAST_DEADLINE_S = 1.0


class Clock:
    """Seconds since the search started, against its budget."""

    def __init__(self, budget_s: float, started: float | None = None) -> None:
        self.budget_s = budget_s
        self.started = time.monotonic() if started is None else started

    def left_s(self) -> float:
        return self.budget_s - (time.monotonic() - self.started)

    def has_time(self) -> bool:
        return self.left_s() > 0

    def fit(self, settings: ProbeSettings) -> ProbeSettings:
        """``settings`` with a deadline no later than the budget's end (a probe of the script
        alone: ranks never get a deadline, since one that stopped apart would block the
        others in a collective)."""
        if settings.deadline_s is None:
            return settings
        left = max(LEAST_DEADLINE_S, self.left_s())
        return replace(settings, deadline_s=left) if left < settings.deadline_s else settings

    def said(self) -> str:
        return f"reached --budget {self.budget_s:.0f}s"


def unsure(study: optuna.Study, space: SearchSpace, *, confirmed: bool) -> list[str]:
    """What a search stopped early left unmeasured about its best, in words: empty when the
    line search around the best was done and the leaders were confirmed."""
    trials = study.get_trials(deepcopy=False)
    best = best_usable(trials)
    if best is None or not any(usable(t) and role(t) != "baseline" for t in trials):
        return ["no setting was measured beside the script as written"]
    workers = trial_config(best).num_workers or 0
    said = []
    if not searched_around_best(study, space):
        said.append(
            f"the neighbours of the best ({workers} workers) were not all measured: "
            "a faster setting may be among them"
        )
    if knee_open(study):
        said.append(
            f"the counts below {workers} workers were not all measured: fewer may reach "
            "the same rate"
        )
    if not confirmed:
        said.append("the leaders were not re-measured side by side")
    return said
