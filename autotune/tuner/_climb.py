"""A line search on the worker count, the setting that matters most, ahead of the sampler.

- Climb: a trial that becomes the best queues its neighbours on the worker axis, half its
  count and half again as many, so two probes tell whether the seed sits on a plateau (the
  cheaper one is then recommended) or short of it. The sampler proposes what the queue does
  not hold; the stop rule still decides when to stop.
- Back off: worker counts fail for reasons that grow with the count (open files, memory,
  processes), so failing and working counts bracket a boundary. A failure above every count
  that worked caps the range below it and queues the midpoint under it; a best trial below a
  cap well above it queues the midpoint above it. Each probe halves the bracket, where the
  sampler would walk down to the boundary one count at a time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import optuna
from optuna.trial import FrozenTrial

from autotune.contract import LoaderConfig, ProbeResult
from autotune.tuner._records import role, trial_config, usable
from autotune.tuner._space import SearchSpace

FAILURES = ("crashed", "hung", "oom", "over_memory")
# A bracket narrower than this share of the working count is closed: one more worker would
# add less than the noise of a probe.
CLOSED_GAP = 0.2

Note = Callable[[str], None]


def _working(study: optuna.Study) -> list[FrozenTrial]:
    return [t for t in study.get_trials(deepcopy=False) if usable(t)]


def _enqueue(study: optuna.Study, space: SearchSpace, config: LoaderConfig, workers: int) -> bool:
    """Queue ``config`` with ``workers`` unless a trial already ran (or waits) with it."""
    wanted = replace(config, num_workers=workers)
    for t in study.get_trials(deepcopy=False):
        # A queued trial holds its settings as fixed params until it runs.
        params = t.params or t.system_attrs.get("fixed_params")
        if params and LoaderConfig.from_dict(params).merged_over(config) == wanted:
            return False
    study.enqueue_trial(space.params(wanted), user_attrs={"role": "seeded"}, skip_if_exists=True)
    return True


def back_off(
    study: optuna.Study,
    number: int,
    config: LoaderConfig,
    result: ProbeResult,
    space: SearchSpace | None,
    note: Note,
) -> None:
    """A failed trial: cap the worker range below it and try the midpoint under it."""
    workers = config.num_workers or 0
    if result.status not in FAILURES or workers <= 1:
        return
    floor = max((trial_config(t).num_workers or 0 for t in _working(study)), default=0)
    if workers <= floor:
        return
    cap = min(int(study.user_attrs.get("worker_cap", workers)), workers - 1)
    study.set_user_attr("worker_cap", cap)
    retry = max(floor + 1, (floor + workers) // 2)
    if retry >= workers or space is None:
        return
    _enqueue(study, space, config, retry)
    note(f"  #{number} failed with {workers} workers: capping at {cap}, trying {retry}")


def climb(study: optuna.Study, space: SearchSpace, note: Note) -> bool:
    """Queue the next worker neighbour of the best trial so far, if one is untried: half its
    count, then half again as many (below a failure cap: the midpoint up to it, while the
    bracket is wide). Called just before the sampler is asked, so nothing is left queued
    when the search stops. False when there is none."""
    best = max(_working(study), key=lambda t: t.value or 0.0, default=None)
    if best is None or role(best) == "baseline":
        return False
    config = trial_config(best)
    workers = config.num_workers or 0
    if not workers:
        return False
    cap = study.user_attrs.get("worker_cap")
    if cap is not None:
        above = (workers + int(cap) + 1) // 2 if int(cap) > workers * (1 + CLOSED_GAP) else None
    else:
        above = min(space.max_workers, workers + (workers + 1) // 2)
    for n in (workers // 2, above):
        if n and n != workers and _enqueue(study, space, config, n):
            note(f"  #{best.number} is the best so far with {workers} workers: trying {n}")
            return True
    return False
