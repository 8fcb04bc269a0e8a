"""How far a trial went over the memory budgets: Optuna's constraints (0 or less: within)."""

from __future__ import annotations

from dataclasses import replace

import optuna
from optuna.trial import TrialState

from autotune.contract import ProbeResult
from autotune.runner import Target
from autotune.state import TrialRecord
from autotune.tuner.evidence import trial_state
from autotune.tuner.loop._options import TunerOptions

OVER = "over the memory budget (--max-host-mem/--max-gpu-mem)"


def judged(
    trial: optuna.Trial, result: ProbeResult, role: str, options: TunerOptions, target: Target
) -> tuple[TrialRecord, TrialState]:
    """The trial's record (in ``role``) and state, its constraints set: a trial over a memory
    budget is never recommended (failed), and TPE learns the region from the constraint."""
    record = TrialRecord.of_result(result, role)
    host = over_host_budget(result, options, target.nproc_per_node)
    gpu = over_gpu_budget(result, options)
    trial.set_constraint("host_memory", host)
    trial.set_constraint("gpu_memory", gpu)
    ended = trial_state(result)
    if ended == TrialState.COMPLETE and (host > 0 or gpu > 0):
        return replace(record, status="over_memory", reason=OVER), TrialState.FAIL
    return record, ended


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
