"""MONAI: a dictionary ``Dataset`` with a transform chain, loaded by ``monai.data.DataLoader``
or (--loader thread) ``ThreadDataLoader``, which iterates its DataLoader in a background thread
and hands batches over through a queue."""

from __future__ import annotations

import argparse
import time
from collections.abc import Hashable, Mapping
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from monai.data import DataLoader, Dataset, ThreadDataLoader
from monai.transforms import Compose, EnsureTyped, MapTransform, RandFlipd
from torch import nn


class SlowReadd(MapTransform):
    """Stands in for LoadImaged: every sample costs as much as one read from disk."""

    def __init__(self, keys: str, latency_s: float) -> None:
        super().__init__(keys)
        self.latency_s = latency_s

    def __call__(self, data: Mapping[Hashable, Any]) -> dict[Hashable, Any]:
        time.sleep(self.latency_s)
        return dict(data)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=1000)
    p.add_argument("--size", type=int, default=1024)
    p.add_argument("--latency", type=float, default=0.005)
    p.add_argument("--workers", type=int, default=0)
    p.add_argument("--loader", choices=("dataloader", "thread"), default="dataloader")
    args = p.parse_args()
    # A model this small gains nothing from intra-op threads; on a shared runner they spin
    # against the loader's workers, and the step, not the loading, would be measured.
    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    items = [
        {"image": rng.random((1, 16, 16), dtype=np.float32), "label": i % 2}
        for i in range(args.size)
    ]
    transform = Compose(
        [
            SlowReadd("image", args.latency),
            RandFlipd("image", prob=0.5, spatial_axis=0),
            EnsureTyped("image"),
        ]
    )
    dataset = Dataset(items, transform)
    cls = ThreadDataLoader if args.loader == "thread" else DataLoader
    loader = cls(dataset, batch_size=16, shuffle=True, num_workers=args.workers)
    model = nn.Sequential(nn.Conv2d(1, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 14 * 14, 2))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for _ in range(args.epochs):
        for batch in loader:
            opt.zero_grad()
            loss = F.cross_entropy(model(batch["image"]), batch["label"])
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
