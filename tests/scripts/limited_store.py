"""Loading from storage that serves at most --slots requests at once, whatever the number of
DataLoader workers: each sample waits --latency-ms while holding one of the slots, so the
loader's rate grows with the worker count up to --slots workers and not past it."""

import argparse
import multiprocessing
import time

import torch
from torch.utils.data import DataLoader, Dataset


class LimitedStore(Dataset):
    def __init__(self, size: int, latency_s: float, slots: int) -> None:
        self.size, self.latency_s = size, latency_s
        # Shared by every worker the DataLoader forks: the storage's own concurrency limit.
        self.slots = multiprocessing.get_context("fork").BoundedSemaphore(slots)

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, i: int) -> tuple[torch.Tensor, int]:
        with self.slots:
            time.sleep(self.latency_s)
        return torch.full((16,), float(i % 7)), i % 2


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--slots", type=int, default=4)
    p.add_argument("--latency-ms", type=float, default=20.0)
    p.add_argument("--samples", type=int, default=100_000)
    p.add_argument("--num-workers", type=int, default=0)
    args = p.parse_args()
    torch.manual_seed(0)
    model = torch.nn.Linear(16, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    data = LimitedStore(args.samples, args.latency_ms / 1000, args.slots)
    loader = DataLoader(data, batch_size=4, shuffle=True, num_workers=args.num_workers)
    for x, y in loader:
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
