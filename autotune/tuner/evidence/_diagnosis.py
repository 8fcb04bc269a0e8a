"""Where the time goes, from what the probes measured, in one plain sentence.

Rules (each follows from a measurement, not from a fitted constant):
- model-bound: the step waits on data for under 10% of its time, or the best run is within
  noise of the compute ceiling: no loader setting can help much.
- start-up-bound: creating the iterator (worker start-up) is a large share of each epoch.
- CPU-bound loading: the loading processes are busy on a CPU while the step waits, so more
  workers than free cores cannot help.
- latency-bound loading: loading waits with the CPU idle, so tens of workers can help.
"""

from __future__ import annotations

from autotune.answer import Diagnosis
from autotune.contract import ProbeResult

INPUT_BOUND_WAIT = 0.10
# Above this many CPU-seconds per second of loading, a loader is busy computing, not waiting.
CPU_BUSY = 0.6
# Share of wall time spent between an epoch's iter() and its first batch.
STARTUP_SHARE = 0.2
# Share of its workers' capacity above which a loader keeps every worker busy (flaky_workers:
# 8 workers at 96 ms a batch can deliver 2,667 samples/s and delivered 2,452, 92 %).
WORKERS_BUSY = 0.85


def load_time_per_batch(result: ProbeResult) -> float | None:
    """Seconds one loading process needs for one batch, inferred from the probe.

    With 0 workers the main process loads, so the wait is the load time. With w workers
    that keep the step waiting, they deliver w batches per load time.
    """
    wait, compute = result.wait_per_batch_s, result.compute_per_batch_s
    if wait is None or compute is None:
        return None
    workers = result.applied_config.num_workers or 0
    if workers == 0:
        return wait
    if (result.data_wait_fraction or 0.0) < INPUT_BOUND_WAIT:
        return None  # workers keep up: the load time is hidden and cannot be read off
    return workers * (wait + compute)


def workers_busy(result: ProbeResult, load_s: float | None) -> bool:
    """Every worker is loading all the time: the run delivers at least ``WORKERS_BUSY`` of
    what its workers can (workers x batch / ``load_s``, the load time of one batch by one
    process, read off the script as written). A deeper prefetch queue then has no idle
    worker to give work to."""
    workers = result.applied_config.num_workers or 0
    rate, batch = result.samples_per_s, result.batch_size
    if not workers or not load_s or load_s <= 0 or not rate or not batch:
        return False
    return rate >= WORKERS_BUSY * workers * batch / load_s


def loader_cpu_per_s(result: ProbeResult) -> float | None:
    """CPU-seconds each loading process burns per second of loading."""
    wall = result.measured_wall_s
    if not wall:
        return None
    workers = result.applied_config.num_workers or 0
    if workers == 0 and result.main_wait_cpu_s is not None:
        # The main thread's own CPU while it waited: its loading.
        load_wall = wall * (result.data_wait_fraction or 0.0)
        return result.main_wait_cpu_s / load_wall if load_wall else None
    if workers == 0:
        # Measured before main_wait_cpu_s was read: an estimate.
        if result.main_cpu_s is None or not result.data_wait_fraction:
            return None
        # Main-process CPU during the step is compute; attribute the rest to loading,
        # assuming compute keeps one core busy.
        compute_wall = wall * (1 - result.data_wait_fraction)
        load_wall = wall * result.data_wait_fraction
        return max(0.0, result.main_cpu_s - compute_wall) / load_wall if load_wall else None
    if result.worker_cpu_s is None:
        return None
    return result.worker_cpu_s / wall / workers


def transport_bound(best: float, transport: float, workers: int, cpu_count: int) -> Diagnosis:
    """The best run is at what the loader's own machinery can deliver with free samples."""
    where = "in the main process" if workers == 0 else f"through {workers} workers"
    cores = (
        f"; more cores would help (workers share {cpu_count})"
        if workers > 0 and workers >= cpu_count
        else ""
    )
    return Diagnosis(
        "transport",
        f"the best settings reach {best / transport:.0%} of what the loader's own machinery "
        f"delivers {where} with zero-cost samples ({transport:,.0f} samples/s): collate, "
        "moving batches between processes and pinning are the limit, not loading. Larger "
        "batches, fewer tensors per sample, a dataset __getitems__ that builds a batch at "
        f"once, or a faster collate_fn move it{cores}.",
    )


def diagnose(
    result: ProbeResult,
    *,
    cpu_count: int,
    ceiling: float | None = None,
    best: float | None = None,
    flat_from: tuple[int, int] | None = None,
    feeds_at_most: int | None = None,
    of: str = "",
) -> Diagnosis:
    """``flat_from``: (n, m) where the search measured m workers no faster than n, so more
    workers do not help past n, whatever the wait says. ``feeds_at_most``: the most workers
    the dataset can feed (its shards, said after this). ``of``: whose run ``result`` is, said
    after its wait (" as written")."""
    wait = result.data_wait_fraction
    if wait is None:
        return Diagnosis("unknown", f"no measurement to diagnose ({result.status}).")
    cpu = loader_cpu_per_s(result)
    pct = f"{wait:.0%} of each step waits for data{of}"
    startup = result.startup_fraction
    if ceiling and best and 0.95 * ceiling <= best <= 1.1 * ceiling and wait < 2 * INPUT_BOUND_WAIT:
        return Diagnosis(
            "model",
            f"the best settings reach {best / ceiling:.0%} of the compute ceiling "
            f"({ceiling:.0f} samples/s): the model step is the limit now, not the data; "
            "a faster step (smaller model, mixed precision, a bigger GPU) is what helps.",
        )
    if wait < INPUT_BOUND_WAIT:
        return Diagnosis(
            "model",
            f"model-bound: only {pct}; the step itself takes the time, so DataLoader "
            "settings cannot make this much faster.",
        )
    if startup is not None and startup >= STARTUP_SHARE and result.epoch_starts:
        # A loader built anew every epoch starts its workers again, persistent or not.
        rebuilt = result.epoch is not None and result.epoch.rebuilt
        advice = (
            "the script builds its DataLoader anew every epoch, so persistent_workers cannot "
            "keep them: build it once, before the epoch loop, or use fewer workers"
            if rebuilt
            else "keep workers alive (persistent_workers=True)"
        )
        return Diagnosis(
            "startup",
            f"start-up-bound: {pct}, and {startup:.0%} of the time goes to starting "
            f"workers at {result.epoch_starts} epoch starts; {advice}.",
        )
    if cpu is not None and cpu >= CPU_BUSY:
        # The main process's own share is read off its CPU time less one core for the step,
        # which torch's threads can exceed: no loading process uses more than the cores.
        cpu = min(cpu, float(cpu_count))
        gpu = " or move to the GPU" if result.applied_config.device == "cuda" else ""
        advice = (
            "more workers than free cores cannot help"
            if cpu_count > 2
            else f"on {cpu_count} cores the transforms themselves must get cheaper{gpu}"
        )
        return Diagnosis(
            "input-cpu",
            f"{pct}; loading uses {cpu:.1f} CPU-s per second: CPU-bound, {advice}.",
        )
    cpu_text = (
        f"loading uses {cpu:.2f} CPU-s per second"
        if cpu is not None
        else ("loading leaves the CPU idle")
    )
    if feeds_at_most is not None:
        return Diagnosis(
            "input-latency",
            f"{pct}; {cpu_text}: latency-bound, but the dataset feeds at most {feeds_at_most} "
            "workers: more would have nothing to load.",
        )
    if flat_from is not None:
        n, m = flat_from
        return Diagnosis(
            "input-latency",
            f"{pct}; {cpu_text}: latency-bound up to about {n} workers; {m} ran no faster, so "
            "something the workers share binds past that (storage that serves a few requests "
            "at once, a connection pool, a rate limit).",
        )
    return Diagnosis(
        "input-latency",
        f"{pct}; {cpu_text}: latency-bound, more workers help (tens are fine).",
    )
