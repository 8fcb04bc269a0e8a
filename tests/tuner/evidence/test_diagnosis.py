"""Diagnosis rules and the seeded worker prediction, from measured figures."""

from __future__ import annotations

from autotune.contract import LoaderConfig, ProbeResult
from autotune.tuner import diagnose, seed_workers


def measured(
    workers: int,
    *,
    wait: float,
    step: float,
    main_cpu: float = 0.5,
    worker_cpu: float = 0.0,
    startup: float = 0.0,
    epochs: int = 0,
    batch: int = 32,
    wait_cpu: float | None = None,
) -> ProbeResult:
    wall = 10.0
    return ProbeResult(
        applied_config=LoaderConfig(num_workers=workers),
        data_wait_fraction=wait,
        wait_per_batch_s=step * wait,
        compute_per_batch_s=step * (1 - wait),
        measured_wall_s=wall,
        main_cpu_s=main_cpu,
        main_wait_cpu_s=wait_cpu,
        worker_cpu_s=worker_cpu,
        startup_fraction=startup,
        epoch_starts=epochs,
        batch_size=batch,
        samples_per_s=batch / step,
        windows=[batch / step] * 3,
    )


def test_model_bound_when_the_step_barely_waits() -> None:
    d = diagnose(measured(0, wait=0.04, step=0.05, main_cpu=9.5), cpu_count=2)
    assert d.bottleneck == "model"
    assert "4% of each step waits" in d.summary


def test_latency_bound_when_loading_leaves_the_cpu_idle() -> None:
    # 0 workers, 90% waiting, main process nearly idle while it waits.
    d = diagnose(measured(0, wait=0.9, step=0.15, main_cpu=1.1), cpu_count=2)
    assert d.bottleneck == "input-latency"
    assert "more workers help" in d.summary


def test_cpu_bound_when_loading_burns_a_core() -> None:
    d = diagnose(measured(0, wait=0.9, step=0.15, main_cpu=9.8), cpu_count=2)
    assert d.bottleneck == "input-cpu"
    assert "CPU-bound, on 2 cores the transforms themselves must get cheaper." in d.summary
    assert d.summary.count("CPU-bound") == 1
    assert "GPU" not in d.summary  # the script runs on the CPU: no GPU to move them to
    # torch's threads in the step can make the main process's share read above the cores.
    busy = diagnose(measured(0, wait=0.5, step=0.15, main_cpu=30.0), cpu_count=2)
    assert "loading uses 2.0 CPU-s per second" in busy.summary


def test_with_no_workers_loading_is_the_cpu_the_main_thread_spent_waiting() -> None:
    # A step on 2 threads burns 2 cores: the main process's CPU less one core read as loading
    # (held-out, files.py: "loading uses 2.0 CPU-s per second" for reads that mostly waited).
    # What the thread spent inside the loader's __next__ is its loading.
    files = measured(0, wait=0.5, step=0.02, main_cpu=15.0, wait_cpu=1.0)
    latency = diagnose(files, cpu_count=2)
    assert latency.bottleneck == "input-latency", latency.summary
    assert "loading uses 0.20 CPU-s per second" in latency.summary
    decoding = diagnose(measured(0, wait=0.5, step=0.02, main_cpu=15.0, wait_cpu=4.6), cpu_count=2)
    assert decoding.bottleneck == "input-cpu", decoding.summary
    assert "loading uses 0.9 CPU-s per second" in decoding.summary


def test_cpu_bound_with_workers_reads_worker_cpu() -> None:
    d = diagnose(measured(2, wait=0.6, step=0.05, worker_cpu=18.0), cpu_count=2)
    assert d.bottleneck == "input-cpu"
    latency = diagnose(measured(8, wait=0.6, step=0.05, worker_cpu=0.8), cpu_count=2)
    assert latency.bottleneck == "input-latency"


def test_startup_bound_when_epochs_restart_workers() -> None:
    d = diagnose(measured(4, wait=0.6, step=0.05, startup=0.45, epochs=6), cpu_count=2)
    assert d.bottleneck == "startup"
    assert "persistent_workers=True" in d.summary


def test_a_loader_rebuilt_every_epoch_is_not_told_to_keep_workers_alive() -> None:
    from dataclasses import replace

    from autotune.contract import EpochFigures

    result = measured(4, wait=0.6, step=0.05, startup=0.45, epochs=6)
    rebuilt = replace(result, epoch=EpochFigures(epoch_s=0.5, rebuilt=True))
    d = diagnose(rebuilt, cpu_count=2)
    assert d.bottleneck == "startup"
    assert "builds its DataLoader anew every epoch" in d.summary
    assert "persistent_workers=True" not in d.summary


def test_at_the_ceiling_only_when_the_best_barely_waits() -> None:
    at = diagnose(measured(8, wait=0.05, step=0.01), cpu_count=2, ceiling=3300, best=3200)
    assert at.bottleneck == "model"
    waiting = diagnose(measured(8, wait=0.4, step=0.01), cpu_count=2, ceiling=3300, best=3200)
    assert waiting.bottleneck != "model"


def test_prediction_hides_loading() -> None:
    # 0 workers: load 0.135 s/batch (the wait), compute 0.015 s: ~9 x 1.25 margin.
    res = measured(0, wait=0.9, step=0.15, main_cpu=1.1)
    assert seed_workers(res, max_workers=64).workers == 12
    # The ceiling says a step without waiting takes 32/6400 = 5 ms: more workers.
    assert seed_workers(res, max_workers=64, ceiling=6400).workers == 34


def test_prediction_from_a_run_with_workers() -> None:
    # 4 workers keep the step waiting half the time: each loads a batch in 4 x 0.02 s.
    res = measured(4, wait=0.5, step=0.02, worker_cpu=0.4)
    assert seed_workers(res, max_workers=64).workers == 10


def test_prediction_is_capped_by_cores_for_cpu_bound_loading() -> None:
    res = measured(0, wait=0.9, step=0.15, main_cpu=9.8)
    assert seed_workers(res, max_workers=64, cpu_count=2).workers == 2
    assert seed_workers(res, max_workers=64, cpu_count=8).workers == 7


def test_no_prediction_without_an_input_bottleneck() -> None:
    assert seed_workers(measured(0, wait=0.02, step=0.05), max_workers=64).workers is None


def test_latency_bound_up_to_a_count_where_more_ran_no_faster() -> None:
    d = diagnose(measured(6, wait=0.6, step=0.05, worker_cpu=0.8), cpu_count=2, flat_from=(6, 256))
    assert d.bottleneck == "input-latency"
    assert "latency-bound up to about 6 workers; 256 ran no faster" in d.summary
    assert "more workers help" not in d.summary
