"""Multi-rank probes on one node, like ``torchrun --nproc-per-node N``.

N processes of ``python -m autotune.probe SCRIPT ARGS``, each with torchrun's variables
(RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT, and the
TORCHELASTIC_* ones, so Lightning uses these ranks instead of launching its own), all with
the same trial settings, in one ``ProcessGroup`` that kills every rank's tree on every way
out.
Each rank writes its own result; ``merge_rank_results`` makes the job's result of them.
The ranks stop at the same step by the protocol in ``autotune.probe.measure._rank_stop``.
"""

from __future__ import annotations

import math
import signal
import socket
import statistics
import uuid
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from autotune.contract import (
    FAILED_STATUSES,
    RANK_DIR_ENV,
    ProbeResult,
    RankFigures,
    TrialConfig,
)
from autotune.runner._base import Target, WindowCallback
from autotune.runner._classify import classify, clearly_slower
from autotune.runner._group import EXIT_GRACE_S, Member, ProcessGroup, probe_env

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
# What a rank's collectives raise when a peer has gone (gloo: "[.../pair.cc:553] Connection
# closed by peer [127.0.0.1]:1234"; NCCL: "communicator was aborted"): the peer's failure
# seen from here, never a cause of its own.
_PEER_LOST = (
    "connection reset by peer",
    "connection closed by peer",
    "broken pipe",
    "socket closed",
    "communicator was aborted",
    "connection refused",
)
# Statuses a rank is given from outside: never the failure that ended the job, if another.
_STOPPED = frozenset({"interrupted", "hung"})
# How the runner's kill ends a rank; any other end of a rank with no result is its own.
_KILLED = (-signal.SIGTERM, -signal.SIGKILL)


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
    results: list[ProbeResult],
    *,
    first_failed: int | None = None,
    failed_at: Sequence[float | None] | None = None,
) -> ProbeResult:
    """The job's result from its ranks' (index = rank).

    A failed rank fails the job with its own status and reason ("rank 1: ..."): the rank that
    failed first (``first_failing``). When other ranks failed too, their errors follow as
    what they most likely are: "rank 1: ValueError: ... (failed first); rank 0: RuntimeError:
    ... Connection closed by peer (a consequence)".
    Otherwise rates are summed over ranks (samples/s of the job; window ``i`` is the sum of
    every rank's window ``i``), times and fractions are the slowest rank's, the settings and
    the measured loader are rank 0's, and the status is the first rank's that is not "ok"
    ("ended_early" when any rank ended early).
    """
    if not results:
        return ProbeResult(status="crashed", reason="no rank started")
    per_rank = [
        RankFigures(
            rank=r,
            status=res.status,
            reason=res.reason,
            samples_per_s=res.samples_per_s,
            windows=list(res.windows),
            step_p50_s=res.step_p50_s,
            exit_code=res.exit_code,
        )
        for r, res in enumerate(results)
    ]
    order = first_failing(results, failed_at=failed_at, first_seen=first_failed)
    if order:
        r = order[0]
        return replace(results[r], reason=_failure_story(results, order), ranks=per_rank)
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


def first_failing(
    results: Sequence[ProbeResult],
    *,
    failed_at: Sequence[float | None] | None = None,
    first_seen: int | None = None,
) -> list[int]:
    """The failed ranks, the one that failed first leading, by the evidence there is.

    1. A rank's own error comes before one that says a peer went away ("Connection reset
       by peer", "Connection closed by peer", ...): that error is the echo of another
       rank's failure, whenever it was recorded (a script that destroys its process group
       in a ``finally`` makes its peers fail before it records its own error).
    2. A rank stopped from outside (``interrupted``: by the runner or a signal; ``hung``:
       the group's timeout, which ends every rank at once) comes after both.
    3. Then the time each rank's failure was recorded (``failed_at``: its result file's
       modification time, see ``run_ranks``), earliest first; a rank with no time after.
    4. Then the rank the runner saw fail first (``first_seen``), then rank order.
    """
    failed = [r for r, res in enumerate(results) if res.status in FAILED_STATUSES]

    def evidence(r: int) -> tuple[bool, bool, float, bool, int]:
        at = failed_at[r] if failed_at is not None and r < len(failed_at) else None
        return (
            results[r].status in _STOPPED,
            peer_lost(results[r].reason),
            math.inf if at is None else at,
            r != first_seen,
            r,
        )

    return sorted(failed, key=evidence)


def peer_lost(reason: str) -> bool:
    """Whether ``reason`` is a collective's error for a peer that went away."""
    text = reason.lower()
    return any(sign in text for sign in _PEER_LOST)


def _failure_story(results: Sequence[ProbeResult], order: Sequence[int]) -> str:
    """ "rank 1: X (failed first); rank 0: Y (a consequence)": the first failure in its own
    words, then the others' that were more than a stop from outside."""
    first, others = order[0], order[1:]
    own = f"rank {first}: {results[first].reason}"
    later = [r for r in others if results[r].status not in _STOPPED]
    if not later:
        if peer_lost(results[first].reason):
            return f"{own} (a consequence: another rank went away first)"
        return own
    parts = [f"{own} (failed first)"]
    for r in later:
        why = "a consequence" if peer_lost(results[r].reason) else "later"
        parts.append(f"rank {r}: {results[r].reason} ({why})")
    return "; ".join(parts)


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
    ending = group.run(
        timeout_s, on_window, fail_fast=True, exit_grace_s=EXIT_GRACE_S, echo=peer_lost
    )
    results: list[ProbeResult] = []
    failed_at: list[float | None] = []
    for r, member in enumerate(group.members):
        if ending.failed is not None and _stopped(member, r, ending.failed):
            # Killed because another rank failed: not this rank's fault.
            res = ProbeResult(status="interrupted", reason="stopped: another rank failed")
            res.exit_code = member.exit_code
            results.append(res)
            failed_at.append(None)
            continue
        results.append(classify(member, ending, timeout_s))
        failed_at.append(_recorded_at(member))
    job = merge_rank_results(results, first_failed=ending.failed, failed_at=failed_at)
    if ending.pruned and ending.failed is None:
        job.status = "pruned"
        job.reason = clearly_slower(job.windows)
    return job


def _stopped(member: Member, rank: int, seen_failing: int) -> bool:
    """The runner stopped this rank: it left no result, and ended by the runner's kill (or
    exited cleanly), not by an error of its own. The rank the runner saw fail is never
    one: it failed whatever its exit."""
    if rank == seen_failing or member.result_path.exists():
        return False
    return member.exit_code in (0, *_KILLED)


def _recorded_at(member: Member) -> float | None:
    """When the rank's failure was recorded, in seconds: its result file's modification
    time (the probe writes the file whole at the failure, then renames it into place), else
    its output's (a rank that died with no result printed its last words then)."""
    for path in (member.result_path, member.log_path):
        try:
            return path.stat().st_mtime_ns / 1e9
        except OSError:
            continue
    return None
