"""A line search on the worker count, the setting that matters most, ahead of the sampler.

- Climb: a trial that becomes the best queues its neighbours, the step most likely to pay
  first. A best whose loading waits on latency (it still waits for data while its workers
  leave the CPU idle) can only gain from more workers: half again as many, then four times
  the prefetch depth. Any other best first tries half its count (a plateau, or workers
  oversubscribing the cores: the cheaper one is then recommended), then, if it still waits
  for data, the deeper queue (which smooths a bursty delivery by workers that share too few
  cores), then half again as many. The sampler proposes what the queue does not hold; the
  stop rule still decides when to stop.
- Back off: worker counts fail for reasons that grow with the count (open files, memory,
  processes), so failing and working counts bracket a boundary. A failure above every count
  that worked caps the range below it and queues the geometric midpoint of the bracket (the
  worker axis is a scale: 1 and 64 bracket 8, not 32); a best trial below a cap well above
  it climbs toward it, never past the midpoint. Each probe halves the bracket, where the
  sampler would walk down to the boundary one count at a time.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace

import optuna
from optuna.trial import FrozenTrial

from autotune.contract import LoaderConfig, ProbeResult
from autotune.tuner._diagnosis import CPU_BUSY, INPUT_BOUND_WAIT, loader_cpu_per_s
from autotune.tuner._records import role, trial_config, trial_result, usable
from autotune.tuner._space import PREFETCH_MAX, SearchSpace

FAILURES = ("crashed", "hung", "oom", "over_memory")
# A bracket narrower than this share of the working count is closed: one more worker would
# add less than the noise of a probe.
CLOSED_GAP = 0.2

Note = Callable[[str], None]


def _working(study: optuna.Study) -> list[FrozenTrial]:
    return [t for t in study.get_trials(deepcopy=False) if usable(t)]


def _between(works: int, fails: int) -> int:
    """The geometric midpoint of a bracket, strictly inside it when there is room."""
    mid = round(math.sqrt(max(works, 1) * fails))
    return max(works + 1, min(fails - 1, mid))


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
    retry = _between(floor, workers)
    if retry >= workers or space is None:
        return
    _enqueue(study, space, replace(config, num_workers=retry))
    note(f"  #{number} failed with {workers} workers: capping at {cap}, trying {retry}")


def climb(study: optuna.Study, space: SearchSpace, note: Note) -> bool:
    """Queue the next untried neighbour of the best trial so far (see the module's
    docstring for the order). Called just before the sampler is asked, so nothing is left
    queued when the search stops. False when there is none."""
    best = max(_working(study), key=lambda t: t.value or 0.0, default=None)
    if best is None or role(best) == "baseline":
        return False
    config = trial_config(best)
    workers = config.num_workers or 0
    if not workers:
        return False
    cap = study.user_attrs.get("worker_cap")
    above: int | None = min(space.max_workers, workers + (workers + 1) // 2)
    if cap is not None:
        # Below a failure: toward it, never past the middle of the bracket, until closed.
        wide = int(cap) > workers * (1 + CLOSED_GAP)
        above = min(above or 0, _between(workers, int(cap) + 1)) if wide else None
    result = trial_result(best)
    waits = result is not None and (result.data_wait_fraction or 0.0) >= INPUT_BOUND_WAIT
    cpu = loader_cpu_per_s(result) if result is not None else None
    latency_bound = waits and cpu is not None and cpu < CPU_BUSY
    prefetch = config.prefetch_factor or 2
    deeper = replace(config, prefetch_factor=min(PREFETCH_MAX, 4 * prefetch))
    more = replace(config, num_workers=above) if above and above != workers else None
    fewer = replace(config, num_workers=workers // 2) if workers // 2 else None
    steps = [more, deeper if waits else None]
    if not latency_bound:
        steps = [fewer, deeper if waits else None, more]
    for step in steps:
        if step is None or step == config or not _enqueue(study, space, step):
            continue
        what = (
            f"is the best so far with {workers} workers: trying {step.num_workers}"
            if step.num_workers != workers
            else f"still waits for data: trying prefetch_factor {step.prefetch_factor}"
        )
        note(f"  #{best.number} {what}")
        return True
    return False
