"""The GPU machine's own figures, and whether autotune's NVTX ranges reach CUDA's tools.

Needs an NVIDIA GPU; without CUDA it says so and exits 2 without measuring.

1. The card, driver, CUDA and torch versions, and the PCIe link NVML reports.
2. Host-to-device bandwidth: pinned and pageable, 256 MiB copies, timed with CUDA events
   (median of 10 after 3 warm-ups), against the link's nominal rate.
3. NVTX: the probe's own ``NvtxRanges`` pushed around real CUDA work while torch.profiler
   records; the exported trace is searched for the range names. ``--ncu-target`` instead runs
   the same loop without the profiler, for ``ncu --nvtx --nvtx-include 'autotune@step/'``,
   which profiles a kernel only when it ran inside autotune's ``step`` range.

    python benchmarks/gpu_checks.py [--json out.json] [--trace trace.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

import torch

from autotune.probe.measure import NvtxRanges

# Nominal per-direction rates of a x16 link, GB/s, after line coding.
PCIE_X16_GBPS = {3: 15.75, 4: 31.5, 5: 63.0, 6: 121.0}
RANGES = ("data_wait", "h2d_copy", "step")


def _nvml() -> dict[str, Any]:
    try:
        import pynvml

        pynvml.nvmlInit()
        h = pynvml.nvmlDeviceGetHandleByIndex(0)
        gen = pynvml.nvmlDeviceGetCurrPcieLinkGeneration(h)
        width = pynvml.nvmlDeviceGetCurrPcieLinkWidth(h)
        info = {
            "driver": pynvml.nvmlSystemGetDriverVersion(),
            "pcie_gen": gen,
            "pcie_width": width,
            "pcie_max_gen": pynvml.nvmlDeviceGetMaxPcieLinkGeneration(h),
            "pcie_max_width": pynvml.nvmlDeviceGetMaxPcieLinkWidth(h),
        }
        nominal = PCIE_X16_GBPS.get(int(gen))
        info["pcie_nominal_gbps"] = nominal * width / 16 if nominal else None
        return info
    except Exception as exc:  # a figure we report, never one we rely on
        return {"nvml_error": repr(exc)}


def _h2d_gbps(pinned: bool, mib: int = 256) -> float:
    host = torch.empty(mib << 20, dtype=torch.uint8, pin_memory=pinned)
    host.random_(0, 255)
    dev = torch.empty_like(host, device="cuda")
    times = []
    for i in range(13):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        dev.copy_(host, non_blocking=pinned)
        end.record()
        end.synchronize()
        if i >= 3:
            times.append(start.elapsed_time(end) / 1000)
    if not torch.equal(dev[:4096].cpu(), host[:4096]):
        raise RuntimeError("the copy did not land")
    return (mib << 20) / statistics.median(times) / 1e9


def _loop(ranges: NvtxRanges, steps: int) -> None:
    x = torch.randn(64, 3, 64, 64).pin_memory()
    conv = torch.nn.Conv2d(3, 16, 3).cuda()
    for _ in range(steps):
        ranges.push_wait()
        batch = x + 0  # the "loader"
        ranges.pop()
        ranges.push_copy()
        on_gpu = batch.to("cuda", non_blocking=True)
        ranges.pop()
        ranges.push_step()
        conv(on_gpu).sum().item()
        ranges.pop()


def _nvtx_in_profiler(trace: Path) -> dict[str, Any]:
    ranges = NvtxRanges()
    if ranges._domain is None:
        return {"nvtx_package": False}
    from torch.profiler import ProfilerActivity, profile

    _loop(ranges, 3)  # warm: cuDNN picks its kernels outside the trace
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        _loop(ranges, 20)
    prof.export_chrome_trace(str(trace))
    events = json.loads(trace.read_text()).get("traceEvents", [])
    names = [str(e.get("name", "")) for e in events]
    return {
        "nvtx_package": True,
        "trace_events": len(events),
        "ranges_seen": {r: sum(1 for n in names if r in n) for r in RANGES},
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", default="", help="also write the results here")
    parser.add_argument("--trace", default="gpu_checks_trace.json")
    parser.add_argument("--ncu-target", action="store_true", help="only the loop, for ncu")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print(
            "gpu_checks: no CUDA device here (torch.cuda.is_available() is False); "
            "nothing measured",
            file=sys.stderr,
        )
        return 2
    if args.ncu_target:
        _loop(NvtxRanges(), 5)
        torch.cuda.synchronize()
        return 0
    results: dict[str, Any] = {
        "gpu": torch.cuda.get_device_name(0),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        **_nvml(),
        "h2d_pinned_gbps": _h2d_gbps(pinned=True),
        "h2d_pageable_gbps": _h2d_gbps(pinned=False),
        "nvtx": _nvtx_in_profiler(Path(args.trace)),
    }
    text = json.dumps(results, indent=2)
    print(text)
    if args.json:
        Path(args.json).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
