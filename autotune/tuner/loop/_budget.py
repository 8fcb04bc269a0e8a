"""How far a trial went over the memory budgets: Optuna's constraints (0 or less: within)."""

from __future__ import annotations

from autotune.contract import ProbeResult
from autotune.tuner.loop._options import TunerOptions


def over_gpu_budget(result: ProbeResult, options: TunerOptions) -> float:
    limit = options.max_gpu_mem_bytes
    peak = result.gpu.max_memory_allocated_bytes if result.gpu else None
    return float(peak - limit) if limit and peak else 0.0


def over_host_budget(result: ProbeResult, options: TunerOptions, ranks: int) -> float:
    # Each rank's probe holds its own tree to its share; the result is the job's sum.
    share = options.settings.max_host_mem_bytes
    limit = share * ranks if share else None
    if result.status == "over_memory":
        return float(max(1, (result.peak_rss_bytes or 0) - (limit or 0)))
    if limit and result.peak_rss_bytes:
        return float(result.peak_rss_bytes - limit)
    return 0.0
