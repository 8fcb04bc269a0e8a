"""torchdata's ``StatefulDataLoader``: a drop-in DataLoader whose position in the epoch can be
saved with ``state_dict()`` and resumed, checkpointed every --checkpoint-every steps."""

from __future__ import annotations

import argparse
import time

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import Dataset
from torchdata.stateful_dataloader import StatefulDataLoader


class SlowPoints(Dataset[tuple[torch.Tensor, int]]):
    def __init__(self, size: int, latency_s: float) -> None:
        self.size = size
        self.latency_s = latency_s

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, i: int) -> tuple[torch.Tensor, int]:
        time.sleep(self.latency_s)
        return torch.full((8,), float(i % 7)), i % 2


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=1000)
    p.add_argument("--size", type=int, default=1024)
    p.add_argument("--latency", type=float, default=0.002)
    p.add_argument("--workers", type=int, default=0)
    p.add_argument("--checkpoint-every", type=int, default=20)
    args = p.parse_args()
    # A model this small gains nothing from intra-op threads; on a shared runner they spin
    # against the loader's workers, and the step, not the loading, would be measured.
    torch.set_num_threads(1)
    loader = StatefulDataLoader(
        SlowPoints(args.size, args.latency), batch_size=16, shuffle=True, num_workers=args.workers
    )
    model = nn.Linear(8, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    checkpoint: dict[str, object] = {}
    step = 0
    for _ in range(args.epochs):
        for x, y in loader:
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()
            opt.step()
            step += 1
            if step % args.checkpoint_every == 0:
                checkpoint = {"model": model.state_dict(), "loader": loader.state_dict()}
    assert checkpoint or step < args.checkpoint_every


if __name__ == "__main__":
    main()
