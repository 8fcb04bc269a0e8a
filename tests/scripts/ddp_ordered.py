"""A fixed-length DDP job on gloo: each rank trains on its DistributedSampler shard, shuffled
and seeded, and prints the digest of the samples it trained on, in order; loading sleeps
(latency, like remote storage), so more workers per rank help.

usage: torchrun --nproc-per-node N ddp_ordered.py [--epochs N] [--samples N]
                [--latency-ms MS] [--batch-size B] [--num-workers W]
"""

import argparse
import hashlib
import os
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class Remote(Dataset):
    def __init__(self, size: int, latency_s: float) -> None:
        self.size, self.latency_s = size, latency_s

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, i: int) -> torch.Tensor:
        time.sleep(self.latency_s)
        return torch.tensor([i, 0], dtype=torch.int64)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--samples", type=int, default=512)
    parser.add_argument("--latency-ms", type=float, default=2.0)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--num-workers", type=int, default=0)
    args = parser.parse_args()
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    torch.manual_seed(1234)
    sampler = DistributedSampler(Remote(args.samples, 0), shuffle=True, seed=7)
    loader = DataLoader(
        Remote(args.samples, args.latency_ms / 1000),
        batch_size=args.batch_size,
        sampler=sampler,
        num_workers=args.num_workers,
    )
    model = DistributedDataParallel(torch.nn.Linear(1, 1))
    digest = hashlib.sha256()
    batches = 0
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for batch in loader:
            digest.update(batch[:, 0].numpy().tobytes())
            model(batch[:, :1].float()).sum().backward()  # an all_reduce: ranks in lock-step
            batches += 1
    print(f"rank {rank} digest {digest.hexdigest()} batches {batches}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    main()
