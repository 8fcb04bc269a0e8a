"""`autotune run --adapt`: the probe's own search, driving the segments of one live run.

The tuner is the one `autotune probe` uses, with three changes: no ceilings and no
confirmation (each would replay steps on the real model), no batch size, streams or device
(they change what is trained, or cannot change mid-run), and every segment after the first
is recorded with the role "adapt". It stops by its own rules, or when the run ends, cannot
switch, or waits so little for data that no loader setting could gain; then the run keeps
the recommended settings to its end.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import optuna

from autotune.contract import LoaderConfig
from autotune.runner import LiveRun, LiveRunner, Target
from autotune.state import baseline_of, record_of, usable
from autotune.tuner.evidence import recommended_trial, trial_config
from autotune.tuner.loop._options import Outcome, TunerOptions
from autotune.tuner.loop._report import Reporter
from autotune.tuner.loop._tuner import Tuner

ROLE = "adapt"
# A stream sharded across workers is never switched in a live run: a setting that fails after
# its first batches (a worker with no shard left, say) cannot be undone without repeating or
# losing samples, and the user's training must never fail for autotune's trial.
ITERABLE = (
    "the training loader's dataset is iterable: its settings are not switched mid-run (a "
    "stream cannot be resumed where a failed setting left it); tune it with `autotune probe`"
)
# What a live run never tries on a GPU, said where it could be what binds the step.
NOT_LIVE = (
    "pinned memory and copy streams are not tried in a live run, and the batches' copies to "
    "the GPU may still cost time in the step: `autotune probe` measures them"
)
# The script as written waits for data less than this share of its time: the most any loader
# setting could give back is less than what trying one costs in a live run.
BARELY_WAITS = 0.05


@dataclass(frozen=True)
class Adapted:
    outcome: Outcome
    settled: LoaderConfig  # what the run keeps to its end
    segments: int  # settings measured, the script's own included
    runner: LiveRunner  # the run's segments so far: a reopened search goes on from them


def in_run(options: TunerOptions) -> TunerOptions:
    return replace(
        options,
        ceiling=False,
        confirm_top=0,
        tune_batch_size=False,
        tune_threads=False,
        other_loaders=False,
    )


def adapt(
    study: optuna.Study,
    target: Target,
    live: LiveRun,
    options: TunerOptions,
    *,
    cpu_count: int,
    reporter: Reporter,
    after_trial: Callable[[optuna.Study], None],
    seed: LoaderConfig | None = None,
    gpu: bool = False,
) -> Adapted:
    """Search on the live run until a stop rule fires, then settle it on the best settings.
    ``seed``: a stored study's recommendation, tried first instead of the figures' guess.
    ``gpu``: CUDA is there, so the step may copy its batches, which no live setting moves."""
    if seed is not None and seed.threads is not None:
        # A stored answer's threads are read when a process starts: this one has started.
        seed = replace(seed, threads=None)
    options = replace(in_run(options), seed=seed)
    runner = LiveRunner(live)
    tuner = Tuner(
        study,
        target,
        runner,
        options,
        cpu_count=cpu_count,
        cuda=False,
        reporter=reporter,
        after_trial=after_trial,
        stop_when=_Watch(live, study, gpu).reason,
        role=ROLE,
    )
    outcome = tuner.run()
    best = recommended_trial(study)
    settled = trial_config(best) if best is not None else LoaderConfig()
    if not live.ended and not outcome.interrupted:
        runner.settle(settled)
    measured = [t for t in study.get_trials(deepcopy=False) if t.state.is_finished()]
    return Adapted(outcome, settled, len(measured), runner)


class _Watch:
    """Reasons from outside the study to stop, checked each turn."""

    def __init__(self, live: LiveRun, study: optuna.Study, gpu: bool) -> None:
        self._live, self._study, self._gpu = live, study, gpu

    def reason(self) -> str | None:
        live = self._live
        if live.ended:
            return "the training ended during the search"
        loader = live.loader()
        if loader is not None and not loader.switchable:
            return f"the training loader cannot be switched: {loader.why}"
        if loader is not None and not loader.mid_epoch:
            return ITERABLE
        baseline = baseline_of(self._study.get_trials(deepcopy=False))
        if baseline is not None and usable(baseline):
            record = record_of(baseline)
            wait = record.data_wait_fraction
            if wait is not None and wait < BARELY_WAITS:
                said = (
                    f"the script as written waits for data {wait:.1%} of its time: no loader "
                    "setting can gain more than that"
                )
                if self._gpu:
                    # Its copies to the GPU are in its step, where waiting for data does not
                    # show them, and only copy streams, never tried live, take them out
                    # (measured: docs/benchmarks.md, "Second run, 2026-11-27").
                    said += f" in this run; {NOT_LIVE}"
                return said
        return None
