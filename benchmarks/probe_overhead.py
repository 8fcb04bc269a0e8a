"""Per-batch cost of the probe's harness, inside the user's process.

Iterates a real DataLoader over an in-memory dataset (0 workers, so the batches are cheap and
the harness is a visible share) plain and through the probe's TimedIterator, interleaved over
several rounds, and reports the median extra cost per batch in microseconds.

    python benchmarks/probe_overhead.py [--batches 20000] [--rounds 7]
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch
from torch.utils.data import DataLoader, TensorDataset

from autotune.contract import ProbeSettings
from autotune.probe.loader._iterators import TimedIterator
from autotune.probe.measure._meter import Meter
from autotune.probe.measure._nvtx import NvtxRanges


def _loader(batches: int) -> DataLoader:  # type: ignore[type-arg]
    data = TensorDataset(torch.zeros(batches, 4), torch.zeros(batches))
    return DataLoader(data, batch_size=1)


def plain(batches: int) -> float:
    start = time.perf_counter()
    for _ in _loader(batches):
        pass
    return (time.perf_counter() - start) / batches


def harnessed(batches: int) -> float:
    # Windows long enough that the run stays inside one: the steady per-batch path.
    meter = Meter(ProbeSettings(warmup_batches=10, warmup_s=0.0, window_s=3600, windows=5))
    start = time.perf_counter()
    meter.iter_started(start)
    it = TimedIterator(iter(_loader(batches)), meter, NvtxRanges(), start)
    for _ in it:
        pass
    return (time.perf_counter() - start) / batches


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--batches", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    plain(1000), harnessed(1000)  # warm caches and lazy imports
    extra, base = [], []
    for _ in range(args.rounds):
        p = plain(args.batches)
        h = harnessed(args.batches)
        base.append(p)
        extra.append(h - p)
    print(f"plain DataLoader step: {statistics.median(base) * 1e6:.1f} us/batch")
    print(
        f"harness overhead:      {statistics.median(extra) * 1e6:.2f} us/batch "
        f"(min {min(extra) * 1e6:.2f}, max {max(extra) * 1e6:.2f}) over {args.rounds} rounds"
    )


if __name__ == "__main__":
    main()
