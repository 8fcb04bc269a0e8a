"""The seed respects the machine: cores, memory, open files, the transport ceiling."""

from __future__ import annotations

from dataclasses import replace

from autotune.contract import LoaderConfig, ProbeResult
from autotune.tuner.workers._seed import (
    FDS_PER_WORKER,
    RESERVED_FDS,
    machine_cap,
    open_file_limit,
    seed_workers,
    worker_mem,
)

GiB = 2**30


def latency_bound(batch: int = 32) -> ProbeResult:
    # 0 workers, 0.135 s load and 0.015 s compute per batch; the main process idles while
    # it waits: 1.25 x 0.135 / 0.015 -> 12 workers.
    return ProbeResult(
        applied_config=LoaderConfig(num_workers=0),
        data_wait_fraction=0.9,
        wait_per_batch_s=0.135,
        compute_per_batch_s=0.015,
        measured_wall_s=10.0,
        main_cpu_s=1.1,
        batch_size=batch,
    )


def cpu_bound() -> ProbeResult:
    # The same waits, with the main process busy for 9.8 of its 10 s: the loading is CPU.
    return replace(latency_bound(), main_cpu_s=9.8)


def test_no_bound_known_means_no_cap() -> None:
    assert machine_cap(cpu_count=2).workers is None
    assert seed_workers(latency_bound(), max_workers=64).workers == 12


def test_cpu_bound_loaders_get_the_free_cores() -> None:
    cap = machine_cap(cpu_count=8, cpu_bound=True)
    assert cap.workers == 7
    assert cap.reason == "free cores: 7 of 8"
    assert machine_cap(cpu_count=2, cpu_bound=True).workers == 2
    seed = seed_workers(cpu_bound(), max_workers=64, cpu_count=8)
    assert seed.workers == 7 and seed.capped
    assert (
        seed.note()
        == "seeded 7 workers (capped by free cores: 7 of 8; 12 predicted to hide loading)"
    )
    # A latency-bound loader is not held to the cores.
    assert seed_workers(latency_bound(), max_workers=64, cpu_count=2).workers == 12


def test_memory_per_worker_against_the_budget() -> None:
    # 16 GiB budget, 4 GiB main process: 0.8 x 12 GiB / 1 GiB -> 9 workers.
    cap = machine_cap(
        cpu_count=64, worker_mem_bytes=GiB, mem_budget_bytes=16 * GiB, main_mem_bytes=4 * GiB
    )
    assert cap.workers == 9
    assert cap.reason.startswith("memory: 16.0 GiB budget")
    seed = seed_workers(
        latency_bound(),
        max_workers=64,
        worker_mem_bytes=GiB,
        mem_budget_bytes=16 * GiB,
        main_mem_bytes=4 * GiB,
    )
    assert seed.workers == 9 and seed.capped
    # A budget the main process already fills still leaves one worker, never zero.
    assert (
        machine_cap(
            cpu_count=4, worker_mem_bytes=GiB, mem_budget_bytes=2 * GiB, main_mem_bytes=3 * GiB
        ).workers
        == 1
    )
    # Unknown per-worker memory: no memory bound.
    assert machine_cap(cpu_count=4, mem_budget_bytes=GiB).workers is None


def test_worker_memory_counts_the_tree_above_the_main_process() -> None:
    assert worker_mem(5 * GiB, GiB, 4) == GiB
    assert worker_mem(GiB, GiB, 4) is None
    assert worker_mem(5 * GiB, GiB, 0) is None
    assert worker_mem(None, GiB, 4) is None


def test_open_file_limit_caps_the_seed() -> None:
    cap = machine_cap(cpu_count=2, nofile=256)
    assert cap.workers == (256 - RESERVED_FDS) // FDS_PER_WORKER == 24
    assert cap.reason == "open files: 256"
    seed = seed_workers(latency_bound(batch=32), max_workers=256, ceiling=32 / 0.001, nofile=256)
    assert seed.predicted == 169
    assert seed.workers == 24
    assert seed.note() == (
        "seeded 24 workers (capped by open files: 256; 169 predicted to hide loading)"
    )
    assert machine_cap(cpu_count=2, nofile=10).workers == 1
    limit = open_file_limit()
    assert limit is None or limit > 0


def test_the_tightest_bound_decides() -> None:
    cap = machine_cap(
        cpu_count=4,
        cpu_bound=True,
        worker_mem_bytes=GiB,
        mem_budget_bytes=64 * GiB,
        nofile=1024,
    )
    assert (cap.workers, cap.reason) == (3, "free cores: 3 of 4")
    cap = machine_cap(cpu_count=4, worker_mem_bytes=GiB, mem_budget_bytes=10 * GiB, nofile=1024)
    assert cap.workers == 8 and cap.reason.startswith("memory")


def test_transport_ceiling_floors_the_step_time() -> None:
    res = latency_bound(batch=32)
    # Compute ceiling 32/0.001 s: 169 workers to feed a 1 ms step.
    assert seed_workers(res, max_workers=512, ceiling=32_000).workers == 169
    # The loader's machinery delivers at most 3,200 samples/s: a 10 ms floor, 17 workers.
    assert seed_workers(res, max_workers=512, ceiling=32_000, transport=3_200).workers == 17
    # A transport faster than the compute ceiling changes nothing.
    assert seed_workers(res, max_workers=512, ceiling=3_200, transport=32_000).workers == 17
    # Without a compute ceiling, the measured 15 ms step stands unless transport is slower.
    assert seed_workers(res, max_workers=512, transport=32_000).workers == 12
    assert seed_workers(res, max_workers=512, transport=1_000).workers == 6


def test_max_workers_is_not_reported_as_a_machine_cap() -> None:
    seed = seed_workers(latency_bound(), max_workers=4, nofile=1024)
    assert seed.workers == 4
    assert not seed.capped
    assert seed.note() == "seeded 4 workers predicted to hide loading"


def test_no_input_bottleneck_no_seed() -> None:
    res = ProbeResult(data_wait_fraction=0.02, compute_per_batch_s=0.05, wait_per_batch_s=0.001)
    seed = seed_workers(res, max_workers=64, nofile=256)
    assert seed.workers is None
    assert "no input bottleneck" in seed.note()
