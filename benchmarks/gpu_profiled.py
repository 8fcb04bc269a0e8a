"""The probe's ranges in a torch.profiler trace of a real probe, recorded with CUDA activities.

Needs an NVIDIA GPU; without CUDA it says so and exits 2 without measuring.

One probe (2 workers, pinned, 1 copy stream) of this same file run as a training script
(``--target``): a small copy-and-convolve loop inside ``torch.profiler.profile`` with CPU and
CUDA activities, whose schedule exports a chrome trace after a few steps. The trace is then
searched for the harness's ``autotune:data_wait``, ``autotune:step`` and
``autotune:h2d_copy`` ranges, and for CUDA kernels and memcpys beside them.

    python benchmarks/gpu_profiled.py [--json out.json] [--trace /tmp/probe_trace.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import torch

RANGES = ("autotune:data_wait", "autotune:step", "autotune:h2d_copy")


def target(trace: Path) -> None:
    """The training script the probe runs: the profiler around its loop, as users write it."""
    from torch.profiler import ProfilerActivity, profile, schedule
    from torch.utils.data import DataLoader, TensorDataset

    data = TensorDataset(torch.randint(0, 256, (2048, 3, 64, 64), dtype=torch.uint8))
    loader = DataLoader(data, batch_size=64, shuffle=True)
    conv = torch.nn.Conv2d(3, 16, 3).cuda()

    def export(prof: Any) -> None:
        prof.export_chrome_trace(str(trace))
        print(f"trace written to {trace}", flush=True)

    plan = schedule(wait=5, warmup=2, active=8, repeat=1)
    activities = [ProfilerActivity.CPU, ProfilerActivity.CUDA]
    with profile(activities=activities, schedule=plan, on_trace_ready=export) as prof:
        for _ in range(1000):
            for (x,) in loader:
                x = x.cuda(non_blocking=True)
                conv(x.float()).sum().backward()
                prof.step()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", default="", help="also write the results here")
    parser.add_argument("--trace", default="/tmp/probe_trace.json")
    parser.add_argument("--target", action="store_true", help="be the profiled script")
    args = parser.parse_args()
    trace = Path(args.trace)
    if args.target:
        target(trace)
        return 0
    if not torch.cuda.is_available():
        print(
            "gpu_profiled: no CUDA device here (torch.cuda.is_available() is False); "
            "nothing measured",
            file=sys.stderr,
        )
        return 2
    from autotune.contract import LoaderConfig, ProbeSettings, TrialConfig
    from autotune.runner import SubprocessRunner, Target

    trace.unlink(missing_ok=True)
    config = TrialConfig(
        loader=LoaderConfig(num_workers=2, pin_memory=True, num_streams=1),
        settings=ProbeSettings(warmup_s=1.0, window_s=0.5, windows=3),
    )
    runner = SubprocessRunner()
    try:
        res = runner.run(
            Target(str(Path(__file__).resolve()), ("--target", "--trace", str(trace))),
            config,
            timeout_s=120,
        )
    finally:
        runner.close()
    results: dict[str, Any] = {
        "probe_status": res.status if res.ok else f"{res.status}: {res.reason}",
        "samples_per_s": res.samples_per_s,
        "trace_written": trace.exists(),
    }
    if trace.exists():
        events = json.loads(trace.read_text()).get("traceEvents", [])
        names = Counter(str(e.get("name", "")) for e in events)
        cats = Counter(str(e.get("cat", "")) for e in events)
        results |= {
            "trace_events": len(events),
            "ranges_seen": {r: names.get(r, 0) for r in RANGES},
            "cuda_kernels": cats.get("kernel", 0),
            "cuda_memcpys": cats.get("gpu_memcpy", 0),
        }
    text = json.dumps(results, indent=2)
    print(text)
    if args.json:
        Path(args.json).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
