"""A probe's result, assembled from what the session's parts measured."""

from __future__ import annotations

import os
import sys
from time import perf_counter
from typing import TYPE_CHECKING

from autotune.contract import LoaderConfig, ProbeResult, Status

if TYPE_CHECKING:
    from autotune.probe._session import ProbeSession


def _device() -> str:
    if "torch" in sys.modules:
        import torch

        if torch.cuda.is_available():
            return "cuda"
    return "cpu"


def build_result(session: ProbeSession, status: Status, reason: str = "") -> ProbeResult:
    """The result as it stands: final or partial, the status says which."""
    device = _device()
    res = ProbeResult(status=status, reason=reason)
    for key, value in session.meter.summary().items():
        setattr(res, key, value)
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
    if session.meter.measure_start is not None:
        end = session._cpu1 or session.sampler.cpu_snapshot()
        res.main_cpu_s = end[0] - session._cpu0[0]
        res.worker_cpu_s = end[1] - session._cpu0[1]
    res.peak_rss_bytes = session._baseline_peak or session.sampler.peak_host_mem or None
    if session.config.mode == "baseline":
        res.ceiling_status = session.ceiling_status
        if session.ceiling_meter is not None:
            ceiling = session.ceiling_meter.summary()
            res.ceiling_windows = ceiling["windows"]
            res.ceiling_interference_cores = ceiling["interference_cores"]
            if session.ceiling_status == "ok":
                res.ceiling_samples_per_s = ceiling.get("samples_per_s")
            if session._ceiling_tail:
                res.ceiling_windows = [session._ceiling_tail]
                res.ceiling_interference_cores = []
                res.ceiling_samples_per_s = session._ceiling_tail
    gpu = {**session.gpu.fields, "notes": list(session.gpu.fields["notes"])}
    gpu["num_streams"] = session.streams_applied
    if session.copy_stats is not None and session.streams_applied:
        gpu.update(session.copy_stats.summary())
    res.gpu = gpu
    # issue 11: which loader was measured; its first batch, timed before it was chosen.
    res.measured_loader = session.patch.measured_loader
    res.not_applied = session.patch.not_applied
    res.script_batches = session.script_batches
    res.batches += session.patch.unmetered_batches
    if session.patch.time_to_first_batch_s is not None:
        res.time_to_first_batch_s = session.patch.time_to_first_batch_s
    if session._profiled:
        res.profile_path = session.config.profile_path
    if session.transport is not None:
        res.transport_samples_per_s = session.transport.best
        res.transport_by_workers = dict(session.transport.by_workers) or None
        res.transport_reason = session.transport.reason
    res.cpu_count = os.cpu_count()
    res.wall_s = perf_counter() - session.started
    if session.meter.measured_batches and res.samples_per_s:
        res.batch_size = round(session.meter.measured_samples / session.meter.measured_batches)
    return res
