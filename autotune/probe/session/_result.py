"""A probe's result, assembled from what the session's parts measured: the lead phase's
meter gives the main figures, then each phase writes its own part."""

from __future__ import annotations

import sys
from dataclasses import replace
from time import perf_counter
from typing import Protocol

from autotune.contract import LoaderConfig, ProbeResult, Status
from autotune.hardware import job_cores
from autotune.probe.loader import CopyStats, GlobalDraws, LoaderPatch
from autotune.probe.machine import GpuSampler, TreeSampler
from autotune.probe.session._phases import BasePhase, BatchPhase


class Measured(Protocol):
    """What a probe's session holds when its result is built (``ProbeSession``): named here
    so that the result depends on the parts, not on the session that runs them."""

    @property
    def started(self) -> float: ...
    @property
    def lead(self) -> BatchPhase | None: ...
    @property
    def patch(self) -> LoaderPatch: ...
    @property
    def phases(self) -> list[BasePhase]: ...
    @property
    def gpu(self) -> GpuSampler: ...
    @property
    def sampler(self) -> TreeSampler: ...
    @property
    def copy_stats(self) -> CopyStats | None: ...
    @property
    def streams_applied(self) -> int: ...
    @property
    def script_batches(self) -> int | None: ...
    @property
    def cpu_at_start(self) -> tuple[float, float]: ...
    @property
    def cpu_at_end(self) -> tuple[float, float] | None: ...
    @property
    def idle_workers(self) -> int | None: ...
    @property
    def global_draws(self) -> GlobalDraws: ...


def _device() -> str:
    if "torch" in sys.modules:
        import torch

        if torch.cuda.is_available():
            return "cuda"
    return "cpu"


def _torch_threads() -> int | None:
    """torch's intra-op threads in this process: its default (every core it sees), or what
    OMP_NUM_THREADS or the script set."""
    if "torch" in sys.modules:
        import torch

        return int(torch.get_num_threads())
    return None


def build_result(session: Measured, status: Status, reason: str = "") -> ProbeResult:
    """The result as it stands: final or partial, the status says which."""
    device = _device()
    res = ProbeResult(status=status, reason=reason)
    lead = session.lead
    if lead is not None:
        lead.meter.figures().fill(res)
        if status == "ended_early" and res.samples_per_s is None:
            # The script ended inside the warm-up (19 workers finished a 3-epoch script before
            # the ramp settled): the run after the warm-up's batch count, ramp included, with
            # no window; the tuner measures a config that fast again, fitted to the script.
            res.samples_per_s = lead.meter.tail_rate()
    res.script_config = session.patch.script_config or LoaderConfig()
    res.applied_config = session.patch.applied_config or LoaderConfig()
    res.applied_config = LoaderConfig(
        **{
            **res.applied_config.to_dict(),
            "num_streams": session.streams_applied,
            "device": device,
        }
    )
    res.script_config = LoaderConfig(**{**res.script_config.to_dict(), "device": device})
    res.torch_threads = _torch_threads()
    if lead is not None and lead.meter.measure_start is not None:
        end = session.cpu_at_end or session.sampler.cpu_snapshot()
        res.main_cpu_s = end[0] - session.cpu_at_start[0]
        res.worker_cpu_s = end[1] - session.cpu_at_start[1]
    res.peak_rss_bytes = session.sampler.peak_host_mem or None
    for phase in session.phases:
        phase.report(res)
    gpu = replace(session.gpu.reading(), num_streams=session.streams_applied)
    if session.copy_stats is not None and session.streams_applied:
        gpu = session.copy_stats.onto(gpu)
    res.gpu = gpu
    # Which loader was measured; its first batch, timed before it was chosen.
    res.measured_loader = session.patch.measured_loader
    if res.measured_loader is not None and session.global_draws.found:
        found = sorted(session.global_draws.found)
        res.measured_loader = replace(res.measured_loader, global_draws=found)
    res.not_applied = session.patch.not_applied
    res.idle_workers = session.idle_workers
    res.script_batches = session.script_batches
    res.batches += session.patch.unmetered_batches
    res.samples += session.patch.unmetered_samples
    if session.patch.time_to_first_batch_s is not None:
        res.time_to_first_batch_s = session.patch.time_to_first_batch_s
    res.cpu_count = job_cores().usable
    res.wall_s = perf_counter() - session.started
    if lead is not None and lead.meter.measured_batches and res.samples_per_s:
        res.batch_size = round(lead.meter.measured_samples / lead.meter.measured_batches)
    return res
