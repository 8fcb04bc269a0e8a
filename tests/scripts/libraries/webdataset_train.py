"""WebDataset: tar shards (written here, into a temporary folder) read by a ``WebDataset``
pipeline that batches in the workers; ``wds.WebLoader`` wraps the torch DataLoader over it and
re-batches in the main process (unbatched, shuffled, batched), as the webdataset docs show."""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
import webdataset as wds
from torch import nn


def write_shards(folder: Path, shards: int, per_shard: int) -> list[str]:
    rng = np.random.default_rng(0)
    urls = []
    for s in range(shards):
        url = str(folder / f"train-{s:04d}.tar")
        with wds.TarWriter(url) as sink:
            for i in range(per_shard):
                key = f"{s:04d}_{i:05d}"
                sink.write({"__key__": key, "x.npy": rng.random(8, dtype=np.float32), "cls": i % 2})
        urls.append(url)
    return urls


class SlowDecode:
    """Stands in for image decoding: every sample costs CPU-free wall time, as I/O does."""

    def __init__(self, latency_s: float) -> None:
        self.latency_s = latency_s

    def __call__(self, sample: tuple[np.ndarray, int]) -> tuple[torch.Tensor, int]:
        time.sleep(self.latency_s)
        x, y = sample
        return torch.from_numpy(x), y


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=1000)
    # At least as many shards as workers: webdataset gives each worker whole shards.
    p.add_argument("--shards", type=int, default=16)
    p.add_argument("--per-shard", type=int, default=64)
    p.add_argument("--latency", type=float, default=0.002)
    p.add_argument("--workers", type=int, default=0)
    args = p.parse_args()
    # A model this small gains nothing from intra-op threads; on a shared runner they spin
    # against the loader's workers, and the step, not the loading, would be measured.
    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as tmp:
        urls = write_shards(Path(tmp), args.shards, args.per_shard)
        dataset = (
            wds.WebDataset(urls, shardshuffle=len(urls))
            .decode()
            .to_tuple("x.npy", "cls")
            .map(SlowDecode(args.latency))
            .batched(16)
        )
        loader = wds.WebLoader(dataset, batch_size=None, num_workers=args.workers)
        loader = loader.unbatched().shuffle(256).batched(16)
        model = nn.Linear(8, 2)
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        for _ in range(args.epochs):
            for x, y in loader:
                opt.zero_grad()
                F.cross_entropy(model(x), y).backward()
                opt.step()


if __name__ == "__main__":
    main()
