"""Multi-rank probes on one node, like ``torchrun --nproc-per-node N``.

N processes of ``python -m autotune.probe SCRIPT ARGS``, each with torchrun's variables
(RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT, and the
TORCHELASTIC_* ones, so Lightning uses these ranks instead of launching its own), all with
the same trial settings, in one ``ProcessGroup`` that kills every rank's tree on every way
out.
Each rank writes its own result; ``merge_rank_results`` makes the job's result of them.
The ranks stop at the same step by the protocol in ``autotune.probe._ranks``.
"""

from __future__ import annotations

import socket
import statistics
import uuid
from dataclasses import replace
from pathlib import Path

from autotune.contract import (
    FAILED_STATUSES,
    RANK_DIR_ENV,
    ProbeResult,
    TrialConfig,
)
from autotune.runner._base import Target, WindowCallback
from autotune.runner._classify import classify
from autotune.runner._group import EXIT_GRACE_S, ProcessGroup, probe_env

# Of the slowest rank: the job goes at the pace of its slowest rank.
_SLOWEST = (
    "step_p50_s",
    "step_p95_s",
    "data_wait_fraction",
    "wait_per_batch_s",
    "compute_per_batch_s",
    "time_to_first_batch_s",
    "startup_fraction",
    "measured_wall_s",
)
# The job's totals: work done, and host memory (the budget is the job's).
_SUMMED = ("batches", "samples", "peak_rss_bytes", "transport_samples_per_s")
# Per rank, like the settings: CPU seconds read against one rank's workers and cores.
_MEAN = ("main_cpu_s", "worker_cpu_s")


def free_port() -> int:
    """A TCP port on 127.0.0.1 nothing listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def rank_env(rank: int, world: int, port: int, run_id: str = "autotune") -> dict[str, str]:
    """The variables torchrun gives rank ``rank`` of ``world`` on a single node."""
    return {
        "RANK": str(rank),
        "LOCAL_RANK": str(rank),
        "WORLD_SIZE": str(world),
        "LOCAL_WORLD_SIZE": str(world),
        "GROUP_RANK": "0",
        "GROUP_WORLD_SIZE": "1",
        "ROLE_RANK": str(rank),
        "ROLE_WORLD_SIZE": str(world),
        "ROLE_NAME": "default",
        "MASTER_ADDR": "127.0.0.1",
        "MASTER_PORT": str(port),
        "TORCHELASTIC_RUN_ID": run_id,
        "TORCHELASTIC_RESTART_COUNT": "0",
        "TORCHELASTIC_MAX_RESTARTS": "0",
    }


def merge_rank_results(
    results: list[ProbeResult], *, first_failed: int | None = None
) -> ProbeResult:
    """The job's result from its ranks' (index = rank).

    A failed rank fails the job with its own status and reason ("rank 1: ..."): the rank
    ``first_failed`` (the first seen to fail), else the first failed in rank order.
    Otherwise rates are summed over ranks (samples/s of the job; window ``i`` is the sum of
    every rank's window ``i``), times and fractions are the slowest rank's, the settings and
    the measured loader are rank 0's, and the status is the first rank's that is not "ok"
    ("ended_early" when any rank ended early).
    """
    if not results:
        return ProbeResult(status="crashed", reason="no rank started")
    per_rank = [
        {
            "rank": r,
            "status": res.status,
            "reason": res.reason,
            "samples_per_s": res.samples_per_s,
            "windows": list(res.windows),
            "step_p50_s": res.step_p50_s,
            "exit_code": res.exit_code,
        }
        for r, res in enumerate(results)
    ]
    failed = [r for r, res in enumerate(results) if res.status in FAILED_STATUSES]
    if first_failed is not None:
        failed.insert(0, first_failed)
    if failed:
        r = failed[0]
        return replace(results[r], reason=f"rank {r}: {results[r].reason}", ranks=per_rank)
    job = replace(results[0], ranks=per_rank)
    not_ok = [(r, res) for r, res in enumerate(results) if res.status != "ok"]
    if not_ok:
        r, res = not_ok[0]
        job.status, job.reason = res.status, f"rank {r}: {res.reason}"
    n = min(len(res.windows) for res in results)
    job.windows = [sum(res.windows[i] for res in results) for i in range(n)]
    job.interference_cores = _job_interference(results, n)
    rates = [res.samples_per_s for res in results]
    job.samples_per_s = (
        statistics.median(job.windows)
        if job.windows
        else (sum(x for x in rates if x is not None) if all(x is not None for x in rates) else None)
    )
    for name in _SLOWEST:
        values = [getattr(res, name) for res in results if getattr(res, name) is not None]
        setattr(job, name, max(values) if values else None)
    for name in _SUMMED:
        values = [getattr(res, name) for res in results if getattr(res, name) is not None]
        setattr(job, name, sum(values) if values else None)
    for name in _MEAN:
        values = [getattr(res, name) for res in results if getattr(res, name) is not None]
        setattr(job, name, statistics.fmean(values) if values else None)
    by_workers = [res.transport_by_workers for res in results if res.transport_by_workers]
    if len(by_workers) == len(results):
        # The job's transport, like its rates: every rank's loader delivers at once.
        job.transport_by_workers = {
            k: sum(b.get(k, 0.0) for b in by_workers) for k in by_workers[0]
        }
    job.batches, job.samples = job.batches or 0, job.samples or 0
    job.wall_s = max((res.wall_s or 0.0) for res in results)
    return job


def _job_interference(results: list[ProbeResult], n: int) -> list[float]:
    """Outside cores of the job's first ``n`` windows. Each rank reads the other ranks as
    outside its own tree: their mean cores over the measurement are taken back out."""
    if any(len(res.interference_cores) < n for res in results):
        return []
    trees = [
        ((res.main_cpu_s or 0.0) + (res.worker_cpu_s or 0.0)) / res.measured_wall_s
        if res.measured_wall_s
        else 0.0
        for res in results
    ]
    others = [sum(trees) - own for own in trees]
    return [
        statistics.fmean(
            max(0.0, res.interference_cores[i] - others[r]) for r, res in enumerate(results)
        )
        for i in range(n)
    ]


def run_ranks(
    group: ProcessGroup,
    tmp: Path,
    target: Target,
    config: TrialConfig,
    timeout_s: float,
    on_window: WindowCallback | None,
) -> ProbeResult:
    """Run ``target.nproc_per_node`` ranks of one probe in ``group``, files in ``tmp``; their
    merged result.

    Every rank gets the same settings. A rank that fails ends the trial at once, with that
    rank's error; no result within ``timeout_s`` is ``hung``; pruning, a timeout, an
    interrupt or any error kill every rank's process group before this returns.
    """
    world = target.nproc_per_node
    port = free_port()
    run_id = f"autotune-{uuid.uuid4().hex[:12]}"
    env = {**probe_env(target, config), RANK_DIR_ENV: str(tmp)}
    env.setdefault("OMP_NUM_THREADS", "1")  # as torchrun does for several ranks
    for r in range(world):
        group.add(tmp / f"rank{r}", config, {**env, **rank_env(r, world, port, run_id)})
    ending = group.run(timeout_s, on_window, fail_fast=True, exit_grace_s=EXIT_GRACE_S)
    results = []
    for r, member in enumerate(group.members):
        if ending.failed is not None and r != ending.failed and not member.result_path.exists():
            # Killed because another rank failed: not this rank's fault.
            res = ProbeResult(status="interrupted", reason=f"stopped: rank {ending.failed} failed")
            res.exit_code = member.exit_code
            results.append(res)
            continue
        results.append(classify(member, ending, timeout_s))
    job = merge_rank_results(results, first_failed=ending.failed)
    if ending.pruned and ending.failed is None:
        job.status = "pruned"
        job.reason = f"stopped after {len(job.windows)} windows: clearly slower than best"
    return job
