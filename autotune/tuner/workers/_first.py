"""The first guesses of a search: the seed (the worker count predicted to hide loading, or a
stored answer's for this hardware), and the few configs worth measuring before the climb.

Per rank, as the range is (``_range.py``).
"""

from __future__ import annotations

from dataclasses import replace

import optuna

from autotune import state
from autotune.contract import DEFAULT_PREFETCH, LoaderConfig, ProbeResult
from autotune.state import SeedRecord
from autotune.tuner.evidence import ceiling_rate, transport_rate
from autotune.tuner.policy import Machine, SearchSpace
from autotune.tuner.workers._range import machine_figures
from autotune.tuner.workers._seed import Seed, seed_workers
from autotune.tuner.workers._warm import Warm, shape_now, warm_start


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
        # line (measured: docs/benchmarks.md, "Warm starts, and what held-out scripts found").
        seed = replace(seed, workers=warm.workers, warm=warm.note(seed.predicted or 0))
        first = replace(first, num_workers=warm.workers)
        workers = warm.workers
    if cuda:
        first = replace(first, device="cuda", pin_memory=True, num_streams=1)
    found = [first]
    if cuda and workers != (script.num_workers or 0):
        # The copy's question apart from the workers': the script's own loader with its
        # batches pinned and copied ahead on a stream, so that a losing worker count cannot
        # hide what the copy alone gains (measured: docs/benchmarks.md, "Second run,
        # 2026-11-27").
        found.append(
            LoaderConfig(
                num_workers=script.num_workers or 0, device="cuda", pin_memory=True, num_streams=1
            )
        )
    fewer = next((t for t in space.threads if t is not None), None)
    if fewer is not None:
        # Another process, or the script's own loading, holds cores: the same loader with
        # torch's threads on the cores left is measured first (a short search may have time
        # for one probe), then torch's own count, so that only the threads differ.
        found.insert(0, replace(first, threads=fewer))
    if cuda:
        # CPU against GPU is a question a few kernels a step can answer either way (a small
        # model can run faster on the CPU; measured: docs/benchmarks.md, "GPU path", CPU
        # against GPU): asked early, never left to chance in a short search. A GPU-bound
        # step measured on the CPU is pruned after one window.
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
