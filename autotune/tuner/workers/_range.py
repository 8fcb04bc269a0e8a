"""The worker range: the most workers a search may try, from the diagnosis, the machine
(open files, memory) and what can have anything to load, lowered by a failure's cap; and the
torch thread counts tried beside it.

Everything here is per rank: with several ranks on a node, each rank's loader has the cores
and the memory budget of one rank (``policy.Machine``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import optuna
from optuna.trial import FrozenTrial

from autotune import state
from autotune.contract import ProbeResult
from autotune.state import baseline_of, usable
from autotune.tuner.evidence import (
    ceiling_rate,
    diagnose,
    loader_cpu_per_s,
    median,
    most_workers,
    steady_load,
    transport_rate,
    trial_result,
)
from autotune.tuner.policy import Machine, SearchSpace
from autotune.tuner.workers._seed import machine_cap, open_file_limit, seed_workers
from autotune.tuner.workers._seed import worker_mem as _worker_mem


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


def worker_range(cpu_count: int, max_workers: int | None = None) -> int:
    """The most workers a search may try before the diagnosis narrows it: the user's
    ``max_workers``, else enough for I/O-latency-bound loaders, which use tens of workers
    whatever the core count (``search_space`` narrows it for CPU- and model-bound ones)."""
    return max_workers if max_workers is not None else max(32, 4 * cpu_count)


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
            cuda=cuda,
            max_workers=worker_range(cpu_count, top),
            script=script,
            tune_batch_size=tune_batch_size,
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
    measured beside a steady load, less those its own loading keeps busy (``loading_cores``):
    workers decoding images beside a 2-thread step compete for the same cores. Each step's
    threads meet at barriers, so one that shares a core with another process or a worker, or
    waits out a quota's throttling, holds up all of them: beside one spinning core of two,
    io_bound's 2-thread step ran at half the rate of a 1-thread one."""
    result = trial_result(baseline)
    torch_threads = result.torch_threads if result is not None else None
    if not torch_threads or result is None:
        return ()
    cores = float(machine.cpu_count)
    load = steady_load([baseline])
    if load is not None and load.cores is not None:
        cores = (machine.cpu_count - load.cores) / machine.ranks
    free = max(1, int(cores - loading_cores(result) + 0.5))
    return (free, None) if free < torch_threads else ()


def loading_cores(result: ProbeResult) -> float:
    """Cores the script's loading keeps busy beside its step: its workers' CPU per second,
    or with none, the loading's share of the main process's CPU (serial with the step as
    written, beside it once workers load)."""
    per_s = loader_cpu_per_s(result)
    if per_s is None:
        return 0.0
    workers = result.applied_config.num_workers or 0
    if workers:
        return per_s * workers
    return per_s * (result.data_wait_fraction or 0.0)


def capped(study: optuna.Study, space: SearchSpace) -> SearchSpace:
    """``space`` below a failure's cap (``back_off``) and the most workers that can have
    anything to load (``most_workers``)."""
    trials = study.get_trials(deepcopy=False)
    most = most_workers(trials, batch_sizes_tuned=bool(space.batch_sizes))
    caps = [state.load(study).worker_cap, most]
    cap = min((int(c) for c in caps if c is not None), default=None)
    if cap is not None and cap < space.max_workers:
        return replace(space, max_workers=max(0, cap))
    return space
