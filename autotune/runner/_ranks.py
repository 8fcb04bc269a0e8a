"""Multi-rank probes on one node, like ``torchrun --nproc-per-node N``.

N processes of ``python -m autotune.probe SCRIPT ARGS``, each with torchrun's variables
(RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT, and the
TORCHELASTIC_* ones, so Lightning uses these ranks instead of launching its own), all with
the same trial settings, all in one process group (led by rank 0) that is killed whole on
every way out.
Each rank writes its own result; ``merge_rank_results`` makes the job's result of them.
The ranks stop at the same step by the protocol in ``autotune.probe._ranks``.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import time
import uuid
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from autotune.contract import (
    CONFIG_ENV,
    FAILED_STATUSES,
    ProbeResult,
    ProgressLine,
    TrialConfig,
)
from autotune.runner._process import Progress, kill_group

if TYPE_CHECKING:
    from autotune.runner._base import Target, WindowCallback
    from autotune.runner._subprocess import SubprocessRunner

RANK_DIR_ENV = "AUTOTUNE_RANK_DIR"  # the same name as autotune.probe._ranks.RANK_DIR_ENV
_TERM_GRACE_S = 3.0
_EXIT_GRACE_S = 5.0  # after every rank wrote its result, how long they may take to exit

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


class _RankProgress:
    """Window lines of every rank; window ``i`` is reported once every rank closed it."""

    def __init__(self, paths: list[Path]) -> None:
        self._paths = paths
        self._offsets = [0] * len(paths)
        self.windows: list[list[float]] = [[] for _ in paths]
        self.done = [False] * len(paths)  # each rank's result final, its script unwound
        self._reported = 0

    def poll(self) -> list[tuple[int, float]]:
        for r, path in enumerate(self._paths):
            try:
                with path.open("r", encoding="utf-8") as fh:
                    fh.seek(self._offsets[r])
                    chunk = fh.read()
            except FileNotFoundError:
                continue
            complete = chunk[: chunk.rfind("\n") + 1]
            self._offsets[r] += len(complete.encode("utf-8"))
            for text in complete.splitlines():
                line = ProgressLine.from_json(text)
                if line.done:
                    self.done[r] = True
                elif line.samples_per_s is not None:
                    self.windows[r].append(line.samples_per_s)
        ready = min(len(w) for w in self.windows)
        new = [(i, sum(w[i] for w in self.windows)) for i in range(self._reported, ready)]
        self._reported = ready
        return new


def _popen(
    cmd: list[str], env: dict[str, str], log: Path, pgid: int | None
) -> subprocess.Popen[bytes]:
    # Rank 0 leads a new process group (in this session: a process can only join a group of
    # its own session); the other ranks join it, so one killpg ends them all.
    group = 0 if pgid is None else pgid
    kwargs: dict[str, Any] = {}
    if sys.version_info >= (3, 11):
        kwargs["process_group"] = group
    else:  # pragma: no cover - Python 3.10
        kwargs["preexec_fn"] = lambda: os.setpgid(0, group)
    with log.open("wb") as fh:
        return subprocess.Popen(
            cmd, stdin=subprocess.DEVNULL, stdout=fh, stderr=subprocess.STDOUT, env=env, **kwargs
        )


def run_ranks(
    runner: SubprocessRunner,
    tmp: Path,
    target: Target,
    config: TrialConfig,
    timeout_s: float,
    on_window: WindowCallback | None,
) -> ProbeResult:
    """Run ``target.nproc_per_node`` ranks of one probe in ``tmp``; their merged result.

    Every rank gets the same settings. A rank that fails ends the trial at once, with that
    rank's error; no result within ``timeout_s`` is ``hung``; pruning, a timeout, an
    interrupt or any error kill the ranks' whole process group before this returns.
    """

    world = target.nproc_per_node
    port = free_port()
    run_id = f"autotune-{uuid.uuid4().hex[:12]}"
    dirs = [tmp / f"rank{r}" for r in range(world)]
    base_env = {**os.environ, **target.env, RANK_DIR_ENV: str(tmp)}
    if config.loader.device == "cpu":
        base_env["CUDA_VISIBLE_DEVICES"] = ""
    base_env.setdefault("OMP_NUM_THREADS", "1")  # as torchrun does for several ranks
    cmd = [runner.python, "-m", "autotune.probe", target.script, *target.args]
    procs: list[subprocess.Popen[bytes]] = []
    progress = _RankProgress([d / "progress.jsonl" for d in dirs])
    started = time.monotonic()
    pgid: int | None = None
    timed_out = pruned = False
    failed_rank: int | None = None
    try:
        for r, d in enumerate(dirs):
            d.mkdir()
            cfg = replace(
                config,
                result_path=str(d / "result.json"),
                progress_path=str(d / "progress.jsonl"),
            )
            (d / "config.json").write_text(cfg.to_json())
            env = {
                **base_env,
                **rank_env(r, world, port, run_id),
                CONFIG_ENV: str(d / "config.json"),
            }
            proc = _popen(cmd, env, d / "output.log", pgid)
            procs.append(proc)
            pgid = proc.pid if pgid is None else pgid
        all_written_at: float | None = None
        while True:
            with contextlib.suppress(subprocess.TimeoutExpired):
                procs[0].wait(timeout=runner.poll_s)
            for index, value in progress.poll():
                if on_window is not None and not pruned and on_window(index, value):
                    pruned = True
            failed_rank = _first_failed(procs, dirs)
            if pruned or failed_rank is not None or all(p.poll() is not None for p in procs):
                break
            if all(progress.done):
                break  # every rank's result is final: their interpreters' exit is not read
            if all((d / "result.json").exists() for d in dirs):
                all_written_at = all_written_at or time.monotonic()
                if time.monotonic() - all_written_at > _EXIT_GRACE_S:
                    break  # every rank reported: do not wait on a slow unwind
            if time.monotonic() - started > timeout_s:
                timed_out = True
                break
        if pgid is not None and any(p.poll() is None for p in procs) and not all(progress.done):
            kill_group(pgid, signal.SIGTERM)
            deadline = time.monotonic() + _TERM_GRACE_S
            while any(p.poll() is None for p in procs) and time.monotonic() < deadline:
                time.sleep(0.05)
    finally:
        if pgid is not None:
            kill_group(pgid)  # workers that outlived their rank, ranks that ignored SIGTERM
        for p in procs:
            p.wait()
    for index, value in progress.poll():
        if on_window is not None and not pruned:
            on_window(index, value)
    wall = time.monotonic() - started
    results = []
    for r, (proc, d) in enumerate(zip(procs, dirs, strict=False)):
        rank_progress = Progress(d / "progress.jsonl")
        rank_progress.poll()
        rc = proc.returncode if rank_progress.exit_code is None else rank_progress.exit_code
        if failed_rank is not None and r != failed_rank and not (d / "result.json").exists():
            # Killed because another rank failed: not this rank's fault.
            res = ProbeResult(status="interrupted", reason=f"stopped: rank {failed_rank} failed")
            res.exit_code = rc
            results.append(res)
            continue
        results.append(
            runner._classify(
                rc,
                d / "result.json",
                d / "output.log",
                rank_progress,
                timed_out,
                pruned,
                timeout_s,
                wall,
            )
        )
    job = merge_rank_results(results, first_failed=failed_rank)
    if pruned and failed_rank is None:
        job.status = "pruned"
        job.reason = f"stopped after {len(job.windows)} windows: clearly slower than best"
    return job


def _first_failed(procs: list[subprocess.Popen[bytes]], dirs: list[Path]) -> int | None:
    """The first rank that exited with an error, or wrote a failed result."""
    for r, (proc, d) in enumerate(zip(procs, dirs, strict=False)):
        rc = proc.poll()
        if rc is not None and rc != 0:
            return r
        result = d / "result.json"
        if result.exists():
            with contextlib.suppress(ValueError, OSError):
                if json.loads(result.read_text()).get("status") in FAILED_STATUSES:
                    return r
    return None
