"""Host memory with many workers: the probe's figure against the machine's own used-memory rise.

    python benchmarks/memory_at_scale.py [--workers 32,64,96,128] [--workloads io_bound,longtail_io]
                                         [--out memory.json]

For each latency-bound example and worker count (persistent workers, the default prefetch),
one real probe (``SubprocessRunner``, default ``ProbeSettings``: the memory budget is half of
RAM) runs while this process samples the memory the kernel counts as held by processes
(AnonPages + Shmem + PageTables in /proc/meminfo, every 50 ms). Reported
per probe: its status (never ``over_memory`` is the point), the tree's peak figure that the
budget is checked against (PSS, ``peak_rss_bytes``), the machine's peak rise over its reading
before the probe, and their ratio. One probe at a time: the sampler thread only reads.
"""

from __future__ import annotations

import argparse
import json
import platform
import threading
import time
from pathlib import Path
from typing import Any

import psutil

from autotune.contract import LoaderConfig, ProbeSettings, TrialConfig
from autotune.runner import SubprocessRunner, Target

ROOT = Path(__file__).resolve().parent.parent
GIB = 2**30


def process_memory() -> int:
    """The kernel's count of memory processes hold (anonymous, shmem, page tables): see
    tests/probe/machine/test_sampler.py for why not psutil's "used" on these VMs."""
    fields = dict(line.split(":", 1) for line in Path("/proc/meminfo").read_text().splitlines())
    return sum(int(fields[k].split()[0]) * 1024 for k in ("AnonPages", "Shmem", "PageTables"))


class UsedPeak:
    """The machine's peak process memory while it runs, above the reading it started from."""

    def __init__(self, interval_s: float = 0.05) -> None:
        self.interval_s = interval_s
        self.start = process_memory()
        self.peak = self.start
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        while not self._stop.wait(self.interval_s):
            self.peak = max(self.peak, process_memory())

    def __enter__(self) -> UsedPeak:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    @property
    def rise(self) -> int:
        return self.peak - self.start


def probe_once(workload: str, workers: int, timeout_s: float) -> dict[str, Any]:
    config = LoaderConfig(num_workers=workers, persistent_workers=True)
    # The CLI's default budget: half of RAM.
    settings = ProbeSettings(max_host_mem_bytes=psutil.virtual_memory().total // 2)
    target = Target(script=str(ROOT / "examples" / f"{workload}.py"), args=("--epochs", "1000"))
    time.sleep(1.0)  # the previous probe's tree is gone and its memory returned
    with UsedPeak() as used:
        res = SubprocessRunner().run(
            target, TrialConfig(loader=config, settings=settings), timeout_s=timeout_s
        )
    figure = res.peak_rss_bytes or 0
    return {
        "workload": workload,
        "workers": workers,
        "status": res.status,
        "reason": res.reason,
        "samples_per_s": res.samples_per_s,
        "tree_figure_bytes": figure,
        "machine_rise_bytes": used.rise,
        "ratio": figure / used.rise if used.rise > 0 else None,
        "budget_bytes": settings.max_host_mem_bytes,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--workers", default="32,64,96,128")
    parser.add_argument("--workloads", default="io_bound,longtail_io")
    parser.add_argument("--timeout", type=float, default=180.0)
    parser.add_argument("--out", default="")
    args = parser.parse_args()
    rows = []
    for workload in args.workloads.split(","):
        for workers in (int(w) for w in args.workers.split(",")):
            row = probe_once(workload, workers, args.timeout)
            rows.append(row)
            budget = row["budget_bytes"] / GIB if row["budget_bytes"] else float("nan")
            ratio = f"{row['ratio']:.2f}" if row["ratio"] else "-"
            print(
                f"{workload:12s} {workers:4d} workers  {row['status']:12s} "
                f"tree {row['tree_figure_bytes'] / GIB:5.2f} GiB  "
                f"machine +{row['machine_rise_bytes'] / GIB:5.2f} GiB  ratio {ratio}  "
                f"budget {budget:.1f} GiB  {row['samples_per_s'] or 0:,.0f} samples/s",
                flush=True,
            )
    if args.out:
        meta = {
            "machine": platform.processor() or platform.machine(),
            "cpu_count": psutil.cpu_count(),
            "memory_gib": round(psutil.virtual_memory().total / GIB, 1),
        }
        Path(args.out).write_text(json.dumps({"machine": meta, "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
