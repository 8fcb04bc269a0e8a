"""CPU cost of the probe's tree sampler with many forked DataLoader workers.

    python benchmarks/sampler_cost.py --workers 64 --seconds 10 [--budget-gib 4]

A parent holding ``--array-mib`` of touched memory forks ``--workers`` persistent workers;
the sampler runs at the probe's default interval for ``--seconds`` while the loader is
drained. Prints the sampler's own CPU time as a share of one core, and its memory figure
against the sum of RSS (what the old figure was built from).
"""

from __future__ import annotations

import argparse
import json
import time
import warnings

import torch
from torch.utils.data import DataLoader, Dataset

from autotune.contract import ProbeSettings
from autotune.probe.machine import _procfs
from autotune.probe.machine._sampler import TreeSampler


class Rows(Dataset[torch.Tensor]):
    def __init__(self, data: torch.Tensor) -> None:
        self.data = data

    def __len__(self) -> int:
        return 10**8

    def __getitem__(self, i: int) -> torch.Tensor:
        time.sleep(0.002)
        return self.data[i % self.data.shape[0]].sum()


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--workers", type=int, default=64)
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--array-mib", type=int, default=400)
    p.add_argument("--budget-gib", type=float, default=0.0, help="0: no budget")
    args = p.parse_args()
    warnings.filterwarnings("ignore", "This DataLoader will create")
    data = torch.ones(args.array_mib * 256, 1024)
    loader = DataLoader(
        Rows(data), batch_size=16, num_workers=args.workers, persistent_workers=True
    )
    it = iter(loader)
    for _ in range(2 * args.workers):
        next(it)
    budget = int(args.budget_gib * 2**30) or None
    sampler = TreeSampler(ProbeSettings().sample_interval_s, budget, on_over_budget=print)
    start = time.monotonic()
    sampler.start()
    while time.monotonic() - start < args.seconds:
        next(it)
    sampler.stop()
    wall = time.monotonic() - start
    in_run_cpu, in_run_readings = sampler.cpu_s, sampler.exact_readings
    t0 = time.thread_time()
    for _ in range(20):
        sampler._wait_s = 0.0
        sampler._next_exact = float("inf")
        sampler.sample()
    tick_cost = (time.thread_time() - t0) / 20
    tree = _procfs.tree(sampler._pid)
    rss_sum = sum((_procfs.cpu_and_rss(pid) or (0.0, 0))[1] for pid in tree)
    t0 = time.thread_time()
    exact = sampler.sample(exact=True)
    exact_cost = time.thread_time() - t0
    out = {
        "workers": len(tree) - 1,
        "wall_s": round(wall, 2),
        "sampler_cpu_s": round(in_run_cpu, 4),
        "share_of_one_core": round(in_run_cpu / wall, 5),
        "pss_readings": in_run_readings,
        "one_tick_s": round(tick_cost, 5),
        "one_pss_reading_s": round(exact_cost, 4),
        "tree_pss_gib": round(exact / 2**30, 3),
        "rss_sum_gib": round(rss_sum / 2**30, 3),
    }
    print(json.dumps(out))
    it._shutdown_workers()  # type: ignore[attr-defined]


if __name__ == "__main__":
    main()
