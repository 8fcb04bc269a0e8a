"""Staying tuned: a settled live run whose data wait rose for good searches again, briefly.

The run watches its own wait (``probe/session/_drift.py``) and, on a sustained rise, says so;
the search then measures the settled config under the new conditions, and climbs the worker
count from it (``workers.more_workers``: doubling, within the machine's bound) while each step
gains beyond noise (``workers.REOPEN_GAIN``), at most ``REOPEN_SEGMENTS`` segments; then the
run settles again on the best of them. A rise in the wait is what more workers answer (slower
storage, a slower transform); what fewer could answer costs nothing to leave alone.

Not Optuna's sampler: the study's earlier segments were measured under the old conditions, so
its model of the space is stale, and a reopened search must be short. The segments are
recorded in the same study with the role "reopened" and the run's own figures as the reason;
they are slower than the first search's best, so they never become the study's answer (which
stands for the run's conditions as they started).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime

import optuna
from optuna.trial import TrialState

from autotune import state
from autotune.contract import Drift, LoaderConfig, ProbeResult, TrialConfig
from autotune.runner import LiveRunner
from autotune.tuner.loop._options import TunerOptions
from autotune.tuner.policy import SearchSpace
from autotune.tuner.workers import REOPEN_GAIN, more_workers, worker_range

ROLE = "reopened"
REOPEN_SEGMENTS = 4  # a reopened search's length, the settled config's re-measure included
MAX_REOPENS = 3  # a run whose conditions keep changing is not chased for ever


def stay_tuned(
    study: optuna.Study,
    runner: LiveRunner,
    settled: LoaderConfig,
    options: TunerOptions,
    *,
    cpu_count: int,
    note: Callable[[str], None],
    after_trial: Callable[[optuna.Study], None],
) -> int:
    """Until the training ends: each time the settled run reports a rise in its data wait,
    search again from ``settled`` and settle anew. Returns how many times it reopened."""
    loader = runner.live.loader()
    if loader is None or not loader.switchable or not loader.mid_epoch:
        return 0  # settled for the reason the first search stopped: nothing to reopen
    space = SearchSpace.for_machine(
        cuda=False, max_workers=worker_range(cpu_count, options.max_workers)
    )
    reopened = 0
    while reopened < MAX_REOPENS:
        drift = runner.live.drift(runner.segments - 1)
        if drift is None:
            break
        reopened += 1
        why = _why(drift)
        note(f"autotune: {why}; searching again from the settled settings")
        try:
            settled = _search(study, runner, settled, options, space, why, after_trial)
        except KeyboardInterrupt:
            # Ctrl-C is the training's: should it train on, it keeps the settled settings.
            if not runner.live.ended:
                runner.live.settle(settled)
            raise
        if runner.live.ended or runner.live.interrupted:
            if not runner.live.ended:
                runner.live.settle(settled)
            break
        runner.settle(settled)
        note(f"autotune: settled again on workers={settled.num_workers}")
    return reopened


def _why(drift: Drift) -> str:
    if drift.cores_then is not None and drift.cores_now is not None:
        return (
            f"reopened: the load beside the run ended (other processes used "
            f"{drift.cores_then:.1f} cores when it settled, {drift.cores_now:.1f} for "
            f"{drift.windows} windows in a row)"
        )
    ref, now = drift.reference_wait_per_batch_s, drift.wait_per_batch_s
    return (
        f"reopened: the data wait rose from {ref * 1000:.1f} to {now * 1000:.1f} ms a batch "
        f"for {drift.windows} windows in a row"
    )


def _search(
    study: optuna.Study,
    runner: LiveRunner,
    settled: LoaderConfig,
    options: TunerOptions,
    space: SearchSpace,
    why: str,
    after_trial: Callable[[optuna.Study], None],
) -> LoaderConfig:
    best: tuple[float, LoaderConfig] | None = None
    config: LoaderConfig | None = settled
    for _ in range(REOPEN_SEGMENTS):
        if config is None or runner.live.ended or runner.live.interrupted:
            break
        result = _segment(study, runner, config, options, space, why)
        after_trial(study)
        rate = result.samples_per_s if result.status in ("ok", "ended_early") else None
        if rate is None or (best is not None and rate <= best[0] * (1 + REOPEN_GAIN)):
            break
        best = (rate, config)
        config = more_workers(config, space.max_workers)
    return best[1] if best is not None else settled


def _segment(
    study: optuna.Study,
    runner: LiveRunner,
    config: LoaderConfig,
    options: TunerOptions,
    space: SearchSpace,
    why: str,
) -> ProbeResult:
    """One reopened segment, measured in full (no pruning: the study's other segments ran
    under other conditions) and recorded as a trial of the study."""
    # Recorded once measured, so its start is taken here: the segments are shown over time.
    started = datetime.now()
    result = runner.run(
        runner.live.target,
        TrialConfig(loader=config, settings=options.settings),
        timeout_s=options.trial_timeout_s,
    )
    result.applied_config = result.applied_config.merged_over(config)
    record = state.TrialRecord.of_result(result, ROLE)
    reason = f"{why}; {result.reason}" if result.reason else why
    record = replace(record, reason=reason)
    ok = result.status in ("ok", "ended_early") and bool(result.windows)
    params = space.params(result.applied_config)
    study.add_trial(
        state.new_trial(
            record,
            TrialState.COMPLETE if ok else TrialState.FAIL,
            result.samples_per_s if ok else None,
            params,
            space.distributions(params),
            dict(enumerate(result.windows)),
            started=started,
        )
    )
    return result
