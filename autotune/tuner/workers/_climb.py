"""A line search on the worker count, the setting that matters most, ahead of the sampler.

- Climb: a trial that becomes the best queues its neighbours, the step most likely to pay
  first. A best whose loading waits on latency (it still waits for data while its workers
  leave the CPU idle) can only gain from more workers, and its rate grows with their count
  until something else binds: twice as many, then four times the prefetch depth (unless its
  workers never idle: a deeper queue has nobody to feed, ``workers_busy``; or its queue
  already holds a whole epoch: torch issues no batch past the epoch's last, so a deeper one
  holds nothing more, ``_queue_holds_epoch``). Any other
  best first tries half its count (a plateau, or workers oversubscribing the cores: the
  cheaper one is then recommended), then, if it still waits for data, the deeper queue
  (which smooths a bursty delivery by workers that share too few cores), then half again as
  many. Last, once nothing above can gain, it steps back down to the knee (``_knee_step``):
  the fewest workers that may be as fast. The climb goes on from the cheapest config that
  reaches the fastest, not from the fastest itself (the luckiest probe), and such a cheaper
  stand-in only steps down, once the midpoint between it and a fastest far above is measured
  (a peak may lie between two counts that read alike, ``_peak_step``).
  A step up that the range cuts to less than ``CLOSED_GAP`` is not taken. The sampler
  proposes what the queue does not hold; the stop rule decides when to stop, and once every
  neighbour of the best is measured (``searched_around_best``) the search is over. Under
  another process's steady load a climbing best also counts four times its workers as a
  neighbour: there one probe can read twice the next, so one step down is not yet the end of
  the climb.
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
from optuna.trial import FrozenTrial, TrialState

from autotune import state
from autotune.contract import DEFAULT_PREFETCH, NO_PREFETCH_FRAMEWORKS, LoaderConfig, ProbeResult
from autotune.state import baseline_of, compared_windows, role, usable
from autotune.tuner.evidence import (
    CPU_BUSY,
    INPUT_BOUND_WAIT,
    NOISE_FLOOR,
    best_usable,
    clearly_better,
    epoch_bound,
    load_time_per_batch,
    loader_cost,
    loader_cpu_per_s,
    near,
    reaches,
    steady_load,
    sustained,
    trial_config,
    trial_result,
    workers_busy,
)
from autotune.tuner.policy import PREFETCH_MAX, SearchSpace

FAILURES = ("crashed", "hung", "oom", "over_memory")
# A bracket narrower than this share of the working count is closed: one more worker would
# add less than the noise of a probe.
CLOSED_GAP = 0.2

# The knee's bracket is closed within half again: the pick then has at most 1.5x the workers
# the rate needs, for a probe or two, where closing it to ``CLOSED_GAP`` would cost a few more.
KNEE_GAP = 0.5

# Counts this far apart, the fastest and a cheaper one that reaches it, may hide a peak
# between them: two doublings, where one step of the climb would have measured what lies between.
PEAK_SPAN = 4

Note = Callable[[str], None]


def _working(study: optuna.Study) -> list[FrozenTrial]:
    return [t for t in study.get_trials(deepcopy=False) if usable(t)]


def _between(works: int, fails: int) -> int:
    """The geometric midpoint of a bracket, strictly inside it when there is room."""
    mid = round(math.sqrt(max(works, 1) * fails))
    return max(works + 1, min(fails - 1, mid))


def _untried(study: optuna.Study, wanted: LoaderConfig) -> bool:
    """No trial ran (or waits) with ``wanted``."""
    for t in study.get_trials(deepcopy=False):
        # A queued trial holds its settings as fixed params until it runs.
        params = t.params or state.queued_params(t)
        if params and LoaderConfig.from_dict(params).merged_over(wanted) == wanted:
            return False
    return True


def _enqueue(study: optuna.Study, space: SearchSpace, wanted: LoaderConfig) -> bool:
    """Queue ``wanted`` unless a trial already ran (or waits) with it."""
    if not _untried(study, wanted):
        return False
    state.enqueue(study, space.params(wanted), "seeded", skip_if_exists=True)
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
    if result.status == "hung" and len(result.windows or []) >= 2:
        return  # it measured, then ran out of time: slow, not a count that fails
    floor = max((trial_config(t).num_workers or 0 for t in _working(study)), default=0)
    if workers <= floor:
        return
    known = state.load(study).worker_cap
    cap = min(known if known is not None else workers, workers - 1)
    state.cap_workers(study, cap)
    retry = _between(floor, workers)
    if retry >= workers or space is None:
        return
    _enqueue(study, space, replace(config, num_workers=retry))
    note(f"  #{number} failed with {workers} workers: capping at {cap}, trying {retry}")


def _climbable_best(study: optuna.Study) -> FrozenTrial | None:
    """The trial the climb goes on from, when it has workers (not the script as written): on a
    quiet machine the cheapest that reaches the fastest (``reaches``), since the fastest by a
    margin no probe resolves is the luckiest probe, and climbing from it wanders; beside a
    steady load the fastest (``_gaining_under_load``). Its twin with fewer torch threads
    where that one is within ``THREADS_TIE`` of it."""
    trials = study.get_trials(deepcopy=False)
    best = best_usable(trials)
    if best is None or role(best) == "baseline" or not trial_config(best).num_workers:
        return None
    if steady_load(trials) is None:
        top = compared_windows(best)
        best = min(
            (
                t
                for t in _working(study)
                if role(t) != "baseline"
                and trial_config(t).num_workers
                and (t.number == best.number or reaches(compared_windows(t), top))
            ),
            key=lambda t: (loader_cost(trial_config(t)), t.number),
        )
    return _fewer_threads_twin(trials, best) or best


# Within this share of the best, the same loader with fewer torch threads is the one the climb
# goes on from: twice the noise floor, the least a steady load moves one config's windows.
THREADS_TIE = 2 * NOISE_FLOOR


def _fewer_threads_twin(trials: list[FrozenTrial], best: FrozenTrial) -> FrozenTrial | None:
    """The trial of ``best``'s loader with fewer torch threads, unless ``best`` is clearly
    faster: beyond ``THREADS_TIE`` and beyond the noise of both one's windows. Beside a
    steady load, where threads are tried in pairs (``_range.thread_choices``), torch's own
    count reads high in some probes, its windows being bimodal: a climb from such a probe
    would leave the fewer-threads loader, the faster in long runs, unmeasured at the counts
    that follow (measured: docs/benchmarks.md, "Agreement under load", runs 1 and 4)."""
    config = trial_config(best)
    mine = config.threads
    floor = (best.value or 0.0) * (1 - THREADS_TIE)
    ours = compared_windows(best)
    twins = [
        t
        for t in trials
        if usable(t)
        and t.number != best.number
        and ((t.value or 0.0) >= floor or not clearly_better(ours, compared_windows(t)))
        and (other := trial_config(t)).threads is not None
        and (mine is None or other.threads < mine)
        and replace(other, threads=mine) == config
    ]
    return max(twins, key=lambda t: t.value or 0.0, default=None)


def _gaining_under_load(study: optuna.Study, best: FrozenTrial) -> bool:
    """Under a steady load: the best beats every measured count below it (the script as
    written included). By any margin: under such a load, counts far apart read within each
    other's noise even in long runs, so a gain inside that noise is no evidence that the
    climb is over, and a doubling costs one probe; a count clearly slower than the best still
    ends it (measured: docs/benchmarks.md, "Figures the code's rules cite")."""
    trials = study.get_trials(deepcopy=False)
    if steady_load(trials) is None:
        return False
    workers = trial_config(best).num_workers or 0
    below = [
        t.value
        for t in _working(study)
        if t.value is not None and (trial_config(t).num_workers or 0) < workers
    ]
    return not below or (best.value or 0.0) > max(below)


def _steps(study: optuna.Study, space: SearchSpace, best: FrozenTrial) -> list[LoaderConfig]:
    """The best trial's neighbours, in the order worth trying (the module's docstring)."""
    fastest = best_usable(study.get_trials(deepcopy=False))
    twin = fastest is not None and replace(
        trial_config(fastest), threads=trial_config(best).threads
    )
    if fastest is not None and fastest.number != best.number and twin != trial_config(best):
        # A cheaper config that reaches the fastest stands in for it: more workers or a
        # deeper queue were measured at the fastest already and added nothing measurable,
        # so only the way down to the knee is left, and the peak the two may hide between.
        steps = [_peak_step(study, best, fastest), _knee_step(study, best)]
        return [step for step in steps if step is not None]
    config = trial_config(best)
    workers = config.num_workers or 0
    result = trial_result(best)
    waits = result is not None and (result.data_wait_fraction or 0.0) >= INPUT_BOUND_WAIT
    cpu = loader_cpu_per_s(result) if result is not None else None
    # Workers that never idle cannot use a deeper queue: only more of them can help.
    base = baseline_of(study.get_trials(deepcopy=False))
    base_result = trial_result(base) if base is not None else None
    load_s = load_time_per_batch(base_result) if base_result is not None else None
    deepen = waits and not (result is not None and workers_busy(result, load_s))
    loader = result.measured_loader if result is not None else None
    deepen = deepen and not (loader and loader.framework in NO_PREFETCH_FRAMEWORKS)
    deepen = deepen and not _queue_holds_epoch(study, config)
    latency_bound = waits and cpu is not None and cpu < CPU_BUSY
    # Beside another process's steady load the quiet machine's reading of the wait does not
    # hold (the load moves what binds): the climb goes on while the best is above every
    # smaller count (measured: 4 and 48 workers 287 and 446 samples/s beside a spinner,
    # where one worker waited for data only 6 % of the time).
    latency_bound = latency_bound or _gaining_under_load(study, best)
    # Latency-bound loading scales with the worker count until something else binds, so
    # its step doubles; elsewhere the gain is less certain and the step is half again.
    grow = workers if latency_bound else (workers + 1) // 2
    above: int | None = min(space.max_workers, workers + grow)
    if above is not None and above < workers * (1 + CLOSED_GAP):
        above = None  # a step the range cuts this short gains less than a probe resolves
    cap = state.load(study).worker_cap
    if cap is not None:
        # Below a failure: toward it, never past the middle of the bracket, until closed.
        wide = int(cap) > workers * (1 + CLOSED_GAP)
        above = min(above or 0, _between(workers, int(cap) + 1)) if wide else None
    prefetch = config.prefetch_factor or DEFAULT_PREFETCH
    deeper = replace(config, prefetch_factor=min(PREFETCH_MAX, 4 * prefetch))
    more = replace(config, num_workers=above) if above and above != workers else None
    fewer = replace(config, num_workers=workers // 2) if workers // 2 else None
    steps = [more, deeper if deepen else None]
    if latency_bound and more is not None and steady_load(study.get_trials(deepcopy=False)):
        # Under a steady load one probe can read twice the next (4 workers at 820 samples/s
        # against 8 at 381, then 243-327 for 4 in long runs): one step down from a lucky
        # best is no evidence the climb is over, so it looks one doubling further first.
        further = min(space.max_workers, 2 * (above or 0))
        if cap is None and further > (above or 0):
            steps.insert(1, replace(config, num_workers=further))
    if not latency_bound:
        steps = [fewer, deeper if deepen else None, more]
    # Last, once nothing above can gain: back down to the knee.
    steps.append(_knee_step(study, best))
    return [step for step in steps if step is not None and step != config]


def _queue_holds_epoch(study: optuna.Study, config: LoaderConfig) -> bool:
    """``config``'s workers already hold a whole epoch of a map-style dataset in flight
    (workers x prefetch_factor at least the epoch's batches). torch hands out at most
    ``prefetch_factor`` batches per worker and none past the epoch's last, and the next
    epoch's start waits for the next ``iter()``: a deeper queue puts no more batches in
    flight, so it cannot gain."""
    epoch = epoch_bound(study.get_trials(deepcopy=False))
    workers = config.num_workers or 0
    prefetch = config.prefetch_factor or DEFAULT_PREFETCH
    return epoch is not None and workers > 0 and workers * prefetch >= epoch


def _knee_step(study: optuna.Study, best: FrozenTrial) -> LoaderConfig | None:
    """The next count down toward the knee: the fewest workers whose rate may be the best's
    (``near``). On the best's line (its settings but the worker count), the fewest measured
    count that may be as fast and the most below it that is not bracket the knee: halve while
    nothing below is measured, then the geometric midpoint, until the bracket is closed
    (``KNEE_GAP``). A count that doubled past the knee so steps back down, where the pick
    (``evidence/_pick.py``) can then take it."""
    config = trial_config(best)
    workers = config.num_workers or 0
    top = compared_windows(best)
    # The best's line, each count with whether it may be as fast as the best (``near``: a
    # probe's figure drifts from another's by more than its windows show; the pick decides
    # between them on interleaved re-measures). A pruned trial is judged by its windows.
    line: dict[int, bool] = {}
    for t in study.get_trials(deepcopy=False):
        pruned = t.state == TrialState.PRUNED and state.record_of(t).measured
        if not (usable(t) or pruned):
            continue
        # A pruned trial keeps the settings it was asked to run: the rest are the best's.
        other = trial_config(t).merged_over(config)
        count = other.num_workers or 0
        if count and replace(other, num_workers=workers) == config:
            reached = count == workers or near(compared_windows(t), top)
            line[count] = line.get(count, False) or reached
    knee = min((count for count, reached in line.items() if reached), default=workers)
    below = max((count for count in line if count < knee), default=None)
    if below is None:
        step = min(knee // 2, _enough_workers(study, sustained(top)) or knee)
    elif knee > below * (1 + KNEE_GAP):
        step = _between(below, knee)
    else:
        return None
    return replace(config, num_workers=step) if 1 <= step < knee else None


def _peak_step(study: optuna.Study, best: FrozenTrial, fastest: FrozenTrial) -> LoaderConfig | None:
    """The geometric midpoint between a stand-in and the fastest, when they are ``PEAK_SPAN``
    or more apart with no count of their line measured between: the stand-in reaching the
    fastest says the rate is flat between them only if it never falls as the count grows,
    and a rate that rises and then falls (each worker costs the main process and the cores
    something) reads alike at both ends of its peak. 3 and 46 fastai workers read 781 and
    832 samples/s, where 12 ran 1,582; 3 and 44 read 779 and 918, and 11 then ran 1,524."""
    config, top = trial_config(best), trial_config(fastest)
    low, high = config.num_workers or 0, top.num_workers or 0
    if not low or high < low * PEAK_SPAN or replace(top, num_workers=low) != config:
        return None
    for t in _working(study):
        other = trial_config(t)
        count = other.num_workers or 0
        if low < count < high and replace(other, num_workers=low) == config:
            return None
    return replace(config, num_workers=_between(low, high))


def _enough_workers(study: optuna.Study, rate: float) -> int | None:
    """The fewest workers that may deliver ``rate``, each at least as fast as a worker of the
    script as written (its main process, where it has none: that one also ran the step): the
    way down to the knee starts there, not at half the best's count, when that is fewer, since
    a first guess far past the knee would otherwise take a halving a probe, and probes of many
    workers are the slowest to start. None where the baseline says nothing."""
    base = baseline_of(study.get_trials(deepcopy=False))
    if base is None or not base.value or not usable(base):
        return None
    per_worker = base.value / max(1, trial_config(base).num_workers or 0)
    return max(1, math.ceil(rate / per_worker))


def knee_open(study: optuna.Study) -> bool:
    """The climb has a count below the fastest still to measure on its way down to the knee
    (or between a cheaper count and the fastest, ``_peak_step``): the search is not over,
    whatever patience says."""
    best = _climbable_best(study)
    if best is None:
        return False
    steps = [_knee_step(study, best)]
    fastest = best_usable(study.get_trials(deepcopy=False))
    if fastest is not None and fastest.number != best.number:
        steps.append(_peak_step(study, best, fastest))
    return any(step is not None and _untried(study, step) for step in steps)


def climb(study: optuna.Study, space: SearchSpace, note: Note) -> bool:
    """Queue the next untried neighbour of the best trial so far (see the module's
    docstring for the order). Called just before the sampler is asked, so nothing is left
    queued when the search stops. False when there is none."""
    best = _climbable_best(study)
    if best is None:
        return False
    workers = trial_config(best).num_workers or 0
    fastest = best_usable(study.get_trials(deepcopy=False))
    lead = (
        f"is the best so far with {workers} workers"
        if fastest is None or fastest.number == best.number
        else f"({workers} workers) reaches the fastest, #{fastest.number}"
    )
    for step in _steps(study, space, best):
        if not _enqueue(study, space, step):
            continue
        what = (
            f"{lead}: trying {step.num_workers}"
            if step.num_workers != workers
            else f"still waits for data: trying prefetch_factor {step.prefetch_factor}"
        )
        note(f"  #{best.number} {what}")
        return True
    return False


def searched_around_best(study: optuna.Study, space: SearchSpace) -> bool:
    """Every neighbour the line search would try from the best trial has been measured, and
    nothing it queued (a back-off's retry) waits to run.

    False when there is no best to climb from (the script as written leads): the sampler
    then does the searching."""
    best = _climbable_best(study)
    if best is None or study.get_trials(deepcopy=False, states=(TrialState.WAITING,)):
        return False
    return not any(_untried(study, step) for step in _steps(study, space, best))
