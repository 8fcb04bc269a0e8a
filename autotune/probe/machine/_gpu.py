"""GPU figures of one trial: NVML utilisation and memory sampled in a thread, torch's peak.

Everything here is optional. Without CUDA in the process (CPU-only torch, or a CPU trial that
hides the GPUs) the fields stay ``None``; without NVML (no driver library, or no pynvml) the
NVML fields stay ``None`` and one line on stderr says why. Nothing here may fail a trial.

The sampler starts at the first measurement window, not at import: only then do we know
whether the script initialised CUDA, so a CPU-only script never gets a CUDA context from us.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from typing import Any

from autotune.contract import GpuReading


def cuda_sync() -> None:
    """Wait for queued CUDA work, where this process has a CUDA context (never makes one)."""
    import torch

    if torch.cuda.is_available() and torch.cuda.is_initialized():  # type: ignore[no-untyped-call]
        torch.cuda.synchronize()


GPU_KEYS = (
    "device_name",
    "util_mean_pct",
    "util_max_pct",
    "util_samples",
    "util_series",
    "mem_series",
    "mem_used_peak_bytes",
    "max_memory_allocated_bytes",
    "h2d_copy_s",
    "h2d_exposed_s",
    "h2d_hidden_fraction",
    "h2d_batches",
    "num_streams",
)

MAX_SERIES = 500


def empty_gpu_fields() -> dict[str, Any]:
    """The GPU part of a result with nothing known: every field present, every value null."""
    out: dict[str, Any] = dict.fromkeys(GPU_KEYS)
    out["notes"] = []
    return out


def log(message: str) -> None:
    print(f"autotune: {message}", file=sys.stderr, flush=True)


def _nvml_handle(nvml: Any, index: int) -> Any:
    """The NVML handle of torch's CUDA device ``index``.

    NVML numbers every GPU in the machine and ignores CUDA_VISIBLE_DEVICES; torch numbers only
    the visible ones. The UUID names the same device on both sides; the PCI bus id is the
    fallback (MIG slices report UUIDs NVML's lookup does not take).
    """
    import torch

    props = torch.cuda.get_device_properties(index)
    uuid = str(getattr(props, "uuid", "") or "")
    if uuid:
        try:
            return nvml.nvmlDeviceGetHandleByUUID(
                uuid if uuid.startswith(("GPU-", "MIG-")) else f"GPU-{uuid}"
            )
        except nvml.NVMLError:
            pass
    bus = getattr(props, "pci_bus_id", None)
    if bus is not None:
        domain = int(getattr(props, "pci_domain_id", 0))
        dev = int(getattr(props, "pci_device_id", 0))
        try:
            return nvml.nvmlDeviceGetHandleByPciBusId(f"{domain:08X}:{int(bus):02X}:{dev:02X}.0")
        except nvml.NVMLError:
            pass
    visible = os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",")
    physical = visible[index] if index < len(visible) and visible[index].isdigit() else index
    return nvml.nvmlDeviceGetHandleByIndex(int(physical))


class GpuSampler:
    """Samples the script's GPU between :meth:`start` and :meth:`stop` (the measured span)."""

    def __init__(self, interval_s: float) -> None:
        self.interval_s = interval_s
        self.fields = empty_gpu_fields()
        self._nvml: Any = None
        self._handle: Any = None
        self._util: list[int] = []
        self._mem: list[int] = []
        self._mem_peak = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._cuda = False

    def reading(self) -> GpuReading:
        """The fields as the result's typed GPU part (the notes copied, not shared)."""
        return GpuReading.from_dict(self.fields) or GpuReading()

    def note(self, text: str) -> None:
        if text not in self.fields["notes"]:
            self.fields["notes"].append(text)

    def start(self) -> None:
        """Begin sampling if the script is on CUDA; never raises."""
        try:
            self._start()
        except Exception as exc:  # measurement goes on without GPU figures
            self.note(f"GPU sampling unavailable: {type(exc).__name__}: {exc}")
            log(f"GPU sampling unavailable ({type(exc).__name__}: {exc}); GPU fields are null")

    def _start(self) -> None:
        torch = sys.modules.get("torch")
        if torch is None or not torch.cuda.is_available():
            self.note("no CUDA device in this process: GPU fields are null")
            return
        if not torch.cuda.is_initialized():
            self.note("the script did not use CUDA before measuring: GPU fields are null")
            return
        self._cuda = True
        index = torch.cuda.current_device()
        self.fields["device_name"] = torch.cuda.get_device_name(index)
        torch.cuda.reset_peak_memory_stats(index)
        try:
            import pynvml
        except ImportError:
            self.note("pynvml is not installed: GPU utilisation and memory were not sampled")
            log("pynvml is not installed; GPU utilisation and memory are null")
            return
        try:
            pynvml.nvmlInit()
        except pynvml.NVMLError as exc:
            self.note(f"NVML unavailable ({exc}): GPU utilisation and memory were not sampled")
            log(f"NVML unavailable ({exc}); GPU utilisation and memory are null")
            return
        self._nvml = pynvml
        self._handle = _nvml_handle(pynvml, index)
        self._thread = threading.Thread(target=self._loop, name="autotune-nvml", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        nvml, handle = self._nvml, self._handle
        while not self._stop.wait(self.interval_s):
            try:
                util = nvml.nvmlDeviceGetUtilizationRates(handle)
                mem = nvml.nvmlDeviceGetMemoryInfo(handle)
            except nvml.NVMLError:
                continue
            self._util.append(int(util.gpu))
            self._mem.append(int(mem.used))
            self._mem_peak = max(self._mem_peak, int(mem.used))

    def stop(self) -> None:
        """End sampling and fill the fields; idempotent, never raises."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
            self._thread = None
        if self._util:
            self.fields["util_mean_pct"] = sum(self._util) / len(self._util)
            self.fields["util_max_pct"] = max(self._util)
            self.fields["util_samples"] = len(self._util)
            # Over time, for the dashboard's trial page; thinned to at most MAX_SERIES points.
            step = max(1, len(self._util) // MAX_SERIES)
            self.fields["util_series"] = self._util[::step]
            self.fields["mem_series"] = self._mem[::step]
        if self._mem_peak:
            self.fields["mem_used_peak_bytes"] = self._mem_peak
        if self._cuda and self.fields["max_memory_allocated_bytes"] is None:
            # A figure lost is not a trial lost.
            with contextlib.suppress(Exception):
                import torch

                self.fields["max_memory_allocated_bytes"] = int(torch.cuda.max_memory_allocated())
        if self._nvml is not None:
            with contextlib.suppress(Exception):
                self._nvml.nvmlShutdown()
            self._nvml = None
