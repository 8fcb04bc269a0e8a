"""A line search on the worker count, the setting that matters most, ahead of the sampler.

- Climb: a trial that becomes the best queues its neighbours on the worker axis, half its
  count and half again as many, so two probes tell whether the seed sits on a plateau (the
  cheaper one is then recommended) or short of it. The sampler proposes what the queue does
  not hold; the stop rule still decides when to stop.
- Deepen: once both worker neighbours ran, a best that still waits for data queues itself
  with four times the prefetch depth. Deeper queues smooth a bursty delivery (workers that
  share too few cores, or latency with a long tail); one probe says whether they pay.
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
from autotune.tuner._diagnosis import INPUT_BOUND_WAIT
from autotune.tuner._records import role, trial_config, trial_result, usable
from autotune.tuner._space import PREFETCH_MAX, SearchSpace

FAILURES = ("crashed", "hung", "oom", "over_memory")
# A bracket narrower than this share of the working count is closed: one more worker would
# add less than the noise of a probe.
CLOSED_GAP = 0.2

Note = Callable[[str], None]


def _working(study: optuna.Study) -> list[FrozenTrial]:
    return [t for t in study.get_trials(deepcopy=False) if usable(t)]


def _enqueue(study: optuna.Study, space: SearchSpace, wanted: LoaderConfig) -> bool:
    """Queue ``wanted`` unless a trial already ran (or waits) with it."""
    for t in study.get_trials(deepcopy=False):
        # A queued trial holds its settings as fixed params until it runs.
        params = t.params or t.system_attrs.get("fixed_params")
        if params and LoaderConfig.from_dict(params).merged_over(wanted) == wanted:
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
    _enqueue(study, space, replace(config, num_workers=retry))
    note(f"  #{number} failed with {workers} workers: capping at {cap}, trying {retry}")


def climb(study: optuna.Study, space: SearchSpace, note: Note) -> bool:
    """Queue the next neighbour of the best trial so far, if one is untried: half its worker
    count, then half again as many (below a failure cap: the midpoint up to it, while the
    bracket is wide), then, if it still waits for data, four times its prefetch depth.
    Called just before the sampler is asked, so nothing is left queued when the search
    stops. False when there is none."""
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
        if n and n != workers and _enqueue(study, space, replace(config, num_workers=n)):
            note(f"  #{best.number} is the best so far with {workers} workers: trying {n}")
            return True
    result = trial_result(best)
    prefetch = config.prefetch_factor or 2
    deeper = min(PREFETCH_MAX, 4 * prefetch)
    if (
        result is not None
        and (result.data_wait_fraction or 0.0) >= INPUT_BOUND_WAIT
        and deeper > prefetch
        and _enqueue(study, space, replace(config, prefetch_factor=deeper))
    ):
        note(f"  #{best.number} still waits for data: trying prefetch_factor {deeper}")
        return True
    return False
