"""Planning a study from its measurements: the diagnosis, the worker range, the seeds.

Everything here is per rank: with several ranks on a node, each rank's loader has the cores
and the memory budget of one rank, and the job's rates are shared out among them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import optuna
from optuna.trial import FrozenTrial

from autotune import state
from autotune.answer import Diagnosis
from autotune.contract import DEFAULT_PREFETCH, LoaderConfig, ProbeResult
from autotune.state import SeedRecord, baseline_of, compared_windows, usable
from autotune.tuner.evidence import (
    MAX_CEILING_GAP,
    best_usable,
    bound_for,
    ceiling_rate,
    clearly_better,
    diagnose,
    epoch_bound,
    median,
    most_workers,
    near,
    shard_bound,
    steady_load,
    sustained,
    transport_bound,
    transport_rate,
    trial_config,
    trial_result,
)
from autotune.tuner.policy._seed import Seed, machine_cap, open_file_limit, seed_workers
from autotune.tuner.policy._seed import worker_mem as _worker_mem
from autotune.tuner.policy._space import SearchSpace
from autotune.tuner.policy._warm import Warm, shape_now, warm_start


@dataclass(frozen=True)
class Machine:
    """What one rank has: its share of the cores and of the host-memory budget."""

    cpu_count: int
    ranks: int = 1
    mem_budget_bytes: int | None = None

    def per_rank(self, rate: float | None) -> float | None:
        """A job's samples/s (summed over ranks) as one rank's."""
        return rate / self.ranks if rate else rate


def machine_figures(study: optuna.Study, machine: Machine) -> dict[str, Any]:
    """What bounds the worker count on this machine, from what the study measured: the
    open-file limit, the memory budget, the main process's memory (the baseline's, when it
    ran without workers) and the memory each worker costs (from trials that had workers;
    none yet in a fresh study, so memory bounds a rerun or a worker, not the first plan)."""
    trials = study.get_trials(deepcopy=False)
    base = baseline_of(trials)
    base_result = trial_result(base) if base is not None else None
    main = 0
    if base_result is not None and not base_result.applied_config.num_workers:
        main = (base_result.peak_rss_bytes or 0) // machine.ranks
    per_worker = []
    for t in trials:
        result = trial_result(t) if usable(t) else None
        workers = result.applied_config.num_workers if result is not None else 0
        if result is not None and workers and main:
            tree = (result.peak_rss_bytes or 0) // machine.ranks
            figure = _worker_mem(tree, main, workers)
            if figure:
                per_worker.append(figure)
    return {
        "nofile": open_file_limit(),
        "mem_budget_bytes": machine.mem_budget_bytes,
        "main_mem_bytes": main,
        "worker_mem_bytes": int(median(per_worker)) if per_worker else None,
    }


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
    diagnosis = diagnose(
        subject,
        cpu_count=cpu_count,
        ceiling=ceiling,
        best=best_value,
        flat_from=flat,
        feeds_at_most=feeds,
    )
    if subject is not result:
        first = diagnose(result, cpu_count=cpu_count)
        if first.bottleneck != diagnosis.bottleneck:
            diagnosis = diagnose(result, cpu_count=cpu_count, ceiling=ceiling, best=best_value)
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


def search_space(
    study: optuna.Study,
    baseline: FrozenTrial,
    *,
    machine: Machine,
    cuda: bool,
    tune_batch_size: bool,
    max_workers: int | None,
    tune_threads: bool = True,
) -> SearchSpace:
    """The worker range follows the diagnosis: cores for CPU-bound loaders, tens for
    latency-bound ones, a few for a model-bound step, and never past what the machine can
    run (open files, memory). ``max_workers`` (the user's) wins. ``tune_threads``: torch's
    threads may be tried (``thread_choices``); never in a live run, whose process is not
    started anew for a trial."""
    script = state.record_of(baseline).script_config
    cpu_count = machine.cpu_count
    threads = thread_choices(baseline, machine) if tune_threads else ()

    def space(top: int | None) -> SearchSpace:
        return SearchSpace.for_machine(
            cpu_count,
            cuda=cuda,
            script=script,
            tune_batch_size=tune_batch_size,
            max_workers=top,
            threads=threads,
        )

    # Never more workers than can have anything to load (the dataset's shards, an epoch's
    # batches), the user's range included.
    # The user's bound wins over the diagnosis; the epoch's own bound narrows both.
    users = max_workers
    most = most_workers(study.get_trials(deepcopy=False), batch_sizes_tuned=tune_batch_size)
    if most is not None:
        max_workers = min(max_workers or most, most)
    wide = space(max_workers)
    result = trial_result(baseline)
    if result is None or not result.ok or users is not None:
        return wide
    bottleneck = diagnose(result, cpu_count=cpu_count).bottleneck
    known = state.load(study).ceiling
    top = wide.max_workers
    if bottleneck == "input-cpu":
        top = max(2, 2 * cpu_count)
    elif bottleneck == "model":
        top = max(2, cpu_count)
    elif bottleneck == "input-latency":
        predicted = seed_workers(
            result,
            max_workers=4 * wide.max_workers,
            cpu_count=cpu_count,
            ceiling=machine.per_rank(ceiling_rate(known)),
            transport=machine.per_rank(transport_rate(known, 1, cpu_count)),
        ).workers
        top = max(top, 2 * (predicted or 0))
    # Never past what the machine can run: open files, and memory once a trial showed it.
    cap = machine_cap(cpu_count=cpu_count, **machine_figures(study, machine)).workers
    if cap is not None:
        top = min(top, cap)
    if most is not None:
        top = min(top, most)
    return space(max(top, script.num_workers or 0))


def thread_choices(baseline: FrozenTrial, machine: Machine) -> tuple[int | None, ...]:
    """torch's intra-op threads worth trying: the cores the job has free, beside torch's
    default (None), when the script as written ran more threads than that; none otherwise.
    Free: the job's cores (its CPU set, less its CPU quota: torch counts the node where a
    quota limits the job), less those another process took when the script as written was
    measured beside a steady load. Each step's threads meet at barriers, so one that shares a
    core with another process, or waits out a quota's throttling, holds up all of them:
    beside one spinning core of two, io_bound's 2-thread step ran at half the rate of a
    1-thread one."""
    result = trial_result(baseline)
    torch_threads = result.torch_threads if result is not None else None
    if not torch_threads:
        return ()
    free = machine.cpu_count
    load = steady_load([baseline])
    if load is not None and load.cores is not None:
        free = max(1, int(machine.cpu_count / machine.ranks - load.cores / machine.ranks + 0.5))
    return (free, None) if free < torch_threads else ()


def _warm(
    study: optuna.Study, result: ProbeResult, seed: Seed, space: SearchSpace, machine: Machine
) -> Warm | None:
    """The stored answer this study starts from (``warm_start``), bounded like the model's
    seed by the search space and the machine (``seed.cap``: free cores for CPU-bound loading,
    memory, open files), except as far as the stored answer itself measured past that bound
    on this hardware. None where it would seed what the model seeds anyway: a start that
    changes nothing is not said to be one (cpu_bound's stored 2 workers, scaled to 3 on 2
    cores, cost a trial)."""
    known = state.load(study)
    now = shape_now(result, seed.predicted, machine.per_rank(ceiling_rate(known.ceiling)))
    if seed.workers is None or seed.predicted is None or now is None:
        return None  # no input bottleneck, or a shape that cannot be compared
    identity = known.identity
    warm = warm_start(
        state.stored_shapes(study),
        own=study.study_name,
        script=identity.script,
        hardware_id=identity.hardware.get("id"),
        nproc_per_node=identity.nproc_per_node,
        now=now,
        predicted=seed.predicted,
    )
    if warm is None:
        return None
    picked = warm.config.num_workers or 0
    bound = max(seed.cap.workers, picked) if seed.cap.workers is not None else warm.workers
    workers = max(1, min(warm.workers, space.max_workers, bound))
    return None if workers == seed.workers else replace(warm, workers=workers)


# Share of the as-written epoch its workers' start-up must take for no workers to be seeded.
RESTART_SHARE = 0.25


def seeds(
    study: optuna.Study,
    result: ProbeResult,
    space: SearchSpace,
    *,
    machine: Machine,
    cuda: bool,
) -> tuple[list[LoaderConfig], Seed]:
    """The configs worth trying first, and the seed: the worker count predicted to hide
    loading, bounded by what the machine can run."""
    script = result.script_config
    known = state.load(study).ceiling
    seed = seed_workers(
        result,
        max_workers=space.max_workers,
        cpu_count=machine.cpu_count,
        ceiling=machine.per_rank(ceiling_rate(known)),
        transport=machine.per_rank(transport_rate(known, 1, machine.cpu_count)),
        **machine_figures(study, machine),
    )
    warm = _warm(study, result, seed, space, machine)
    state.save_seed(
        study,
        warm.workers if warm is not None else seed.workers,
        SeedRecord(
            seed.predicted,
            seed.cap.workers,
            seed.cap.reason,
            from_study=warm.study if warm is not None else None,
        ),
    )
    workers = seed.workers if seed.workers is not None else (script.num_workers or 0)
    first = LoaderConfig(
        num_workers=workers, prefetch_factor=DEFAULT_PREFETCH, persistent_workers=True
    )
    if warm is not None:
        # The stored worker count only: a deeper prefetch it carried is the climb's to try,
        # and a seed that starts with one fills a longer queue before every window of its
        # line (cpu_bound's warm searches took 1.5x the cold ones with prefetch 8 carried).
        seed = replace(seed, workers=warm.workers, warm=warm.note(seed.predicted or 0))
        first = replace(first, num_workers=warm.workers)
        workers = warm.workers
    if cuda:
        first = replace(first, device="cuda", pin_memory=True, num_streams=1)
    found = [first]
    if cuda and workers != (script.num_workers or 0):
        # The copy's question apart from the workers': the script's own loader with its
        # batches pinned and copied ahead on a stream. On an H200 one worker of 38 MB batches
        # ran at half the script's rate and hid what the copy alone would have shown.
        found.append(
            LoaderConfig(
                num_workers=script.num_workers or 0, device="cuda", pin_memory=True, num_streams=1
            )
        )
    fewer = next((t for t in space.threads if t is not None), None)
    if fewer is not None:
        # Another process holds cores: the same loader with torch's threads on the cores it
        # left is measured first (a short search may have time for one probe), then torch's
        # own count, so that only the threads differ between the two.
        found.insert(0, replace(first, threads=fewer))
    if cuda:
        # CPU against GPU is a question a few kernels a step can answer either way (on an
        # H200 a small MLP ran 2.3x faster on the CPU): asked early, never left to chance in
        # a short search. A GPU-bound step measured on the CPU is pruned after one window.
        found.append(LoaderConfig(device="cpu"))
    epoch = result.epoch
    if (
        epoch is not None
        and epoch.epoch_s
        and (script.num_workers or 0) > 0
        and epoch.charged_startup_s >= RESTART_SHARE * epoch.epoch_s
    ):
        # Workers started anew at every epoch cost a large share of it: no workers pays no
        # start-up, and may beat any count whose start-up costs more than it saves.
        found.append(LoaderConfig(num_workers=0))
    # With no workers torch ignores prefetch and persistence: such a seed is the baseline.
    as_written = script.under_torch_rules()
    return [c for c in found if c.merged_over(script).under_torch_rules() != as_written], seed
