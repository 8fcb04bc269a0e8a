"""The study's diagnosis: what the baseline shows, and what the search found past it.

It is per rank (``Machine``): with several ranks on a node, each rank's loader has the cores
of one rank, and the job's rates are shared out among them.
"""

from __future__ import annotations

from dataclasses import replace

import optuna
from optuna.trial import FrozenTrial

from autotune import state
from autotune.answer import Diagnosis
from autotune.state import baseline_of, compared_windows, usable
from autotune.tuner.evidence import (
    MAX_CEILING_GAP,
    best_usable,
    bound_for,
    ceiling_rate,
    clearly_better,
    diagnose,
    epoch_bound,
    near,
    shard_bound,
    sustained,
    transport_bound,
    trial_config,
    trial_result,
)
from autotune.tuner.policy._machine import Machine


def diagnose_study(study: optuna.Study, machine: Machine) -> Diagnosis | None:
    """The diagnosis a user reads: the baseline shows the bottleneck as written; the best run
    shows what remains once loading is fixed, when it still waits for data."""
    trials = study.get_trials(deepcopy=False)
    base = baseline_of(trials)
    result = trial_result(base) if base is not None else None
    if base is None or result is None:
        return None
    best = best_usable(trials)
    best_result = trial_result(best) if best is not None else None
    cpu_count = machine.cpu_count
    known = state.load(study).ceiling
    ceiling = ceiling_rate(known)
    best_value = best.value if best is not None else None
    subject = result
    if (
        best is not None
        and best.number != base.number
        and best_result is not None
        and (best_result.data_wait_fraction or 0) >= 0.1
    ):
        subject = best_result
    if best is not None and best_value:
        workers = int(trial_config(best).num_workers or 0)
        bound, kind = bound_for(known, workers, cpu_count)
        if kind == "transport" and bound and best_value >= (1 - MAX_CEILING_GAP) * bound:
            return transport_bound(best_value, bound, workers, cpu_count)
    # The dataset's shards explain a rate that stops growing with the count, where known.
    shards = shard_bound(trials)
    flat = _flat_from(trials) if shards is None else None
    feeds = shards.workers if shards is not None else None
    # Whose wait the sentence gives: the script as written's, or the fastest run's.
    written = " as written"
    of = written if subject is result or best is None else f" in the fastest run (#{best.number})"
    diagnosis = diagnose(
        subject,
        cpu_count=cpu_count,
        ceiling=ceiling,
        best=best_value,
        flat_from=flat,
        feeds_at_most=feeds,
        of=of,
    )
    if subject is not result:
        first = diagnose(result, cpu_count=cpu_count)
        if first.bottleneck != diagnosis.bottleneck:
            diagnosis = diagnose(
                result, cpu_count=cpu_count, ceiling=ceiling, best=best_value, of=written
            )
    most = max((_workers(t) for t in trials if t.number != base.number), default=0)
    if shards is not None:
        diagnosis = replace(diagnosis, summary=f"{diagnosis.summary} {shards.sentence(most)}")
    epoch = epoch_bound(trials)
    if epoch is not None and most == epoch and (shards is None or shards.workers > epoch):
        said = (
            f"An epoch has {epoch} batches, handed out one to a worker in turn: a worker past "
            f"{epoch} has nothing to load, so the search tried no more than {epoch}."
        )
        diagnosis = replace(diagnosis, summary=f"{diagnosis.summary} {said}")
    return diagnosis


def _workers(trial: FrozenTrial) -> int:
    return int(trial_config(trial).num_workers or 0)


def _flat_from(trials: list[FrozenTrial]) -> tuple[int, int] | None:
    """(the fewest workers that may be as fast as the fastest, within the drift between
    probes (``near``), the most measured) where the most, at least twice as many, ran no
    faster than those fewest beyond noise: the rate stopped growing with the count."""
    line = [t for t in trials if usable(t) and int(trial_config(t).num_workers or 0) > 0]
    if not line:
        return None
    count = {t.number: int(trial_config(t).num_workers or 0) for t in line}
    fastest = max(
        line, key=lambda t: sustained(compared_windows(t)) if compared_windows(t) else 0.0
    )
    top = compared_windows(fastest)
    knee = min(
        (t for t in line if near(compared_windows(t), top) or t is fastest),
        key=lambda t: count[t.number],
    )
    most = max(line, key=lambda t: count[t.number])
    if count[most.number] < 2 * count[knee.number]:
        return None
    if clearly_better(compared_windows(most), compared_windows(knee)):
        return None
    return count[knee.number], count[most.number]
