"""Profiler-driven seeding: predict the worker count that hides loading from one probe."""

from __future__ import annotations

import math

from autotune.contract import ProbeResult
from autotune.tuner._diagnosis import (
    CPU_BUSY,
    INPUT_BOUND_WAIT,
    load_time_per_batch,
    loader_cpu_per_s,
)

# Slack over the bare ratio: per-batch load times vary, and a queue that only just keeps
# up still stalls on slow batches.
MARGIN = 1.25


def predict_workers(
    result: ProbeResult,
    *,
    max_workers: int,
    cpu_count: int = 1,
    ceiling: float | None = None,
) -> int | None:
    """Workers needed so loading one batch per worker takes no longer than the step uses them.

    Each worker delivers one batch per load time L; the step consumes one per compute time C;
    so about L / C workers keep up. With a measured compute ceiling (samples/s with no data
    cost), C is the ceiling's step time when that is shorter: a step that waited for data
    often runs slower than one that did not (cold caches, idle thread pools). CPU-bound
    loaders get at most the free cores (one core is the training step's), latency-bound
    ones up to ``max_workers``. None when the probe shows
    no input bottleneck.
    """
    if (result.data_wait_fraction or 0.0) < INPUT_BOUND_WAIT:
        return None
    load = load_time_per_batch(result)
    compute = result.compute_per_batch_s
    if load is None or compute is None:
        return None
    if ceiling and result.batch_size:
        compute = min(compute, result.batch_size / ceiling)
    need = max_workers if compute <= 0 else math.ceil(MARGIN * load / compute)
    cpu = loader_cpu_per_s(result)
    if cpu is not None and cpu >= CPU_BUSY:
        # Loaders that burn a core each cannot outrun the cores there are.
        need = min(need, max(1, cpu_count - 1) if cpu_count > 2 else cpu_count)
    return max(1, min(max_workers, need))
