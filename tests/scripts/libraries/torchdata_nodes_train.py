"""torchdata.nodes, as its docs compose a pipeline: a sampler's indices wrapped, mapped by
threads (ParallelMapper), batched, collated, prefetched, and iterated through a Loader. No
torch DataLoader anywhere."""

import argparse
import time

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import default_collate
from torchdata.nodes import Batcher, IterableWrapper, Loader, Mapper, ParallelMapper, Prefetcher


def load(i: int) -> tuple[torch.Tensor, int]:
    time.sleep(0.002)  # a read from remote storage
    return torch.full((8,), float(i % 7)), i % 2


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=1000)
    p.add_argument("--samples", type=int, default=2048)
    p.add_argument("--workers", type=int, default=1)
    args = p.parse_args()
    node = IterableWrapper(range(args.samples))
    node = ParallelMapper(node, map_fn=load, num_workers=args.workers, method="thread")
    node = Batcher(node, batch_size=32)
    node = Mapper(node, default_collate)
    node = Prefetcher(node, prefetch_factor=2)
    loader = Loader(node)
    model = nn.Linear(8, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for _ in range(args.epochs):
        for x, y in loader:
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()
            opt.step()


if __name__ == "__main__":
    main()
