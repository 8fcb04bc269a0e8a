"""torchrun-style ranks on gloo, in lock-step, where one rank's DataLoader worker raises.

--fail-rank R: rank R's dataset raises ValueError at sample --fail-at, in a worker when the
loader has workers. Each step ends in an all_reduce, so the other ranks wait for rank R there
and lose their connection to it when it goes ("Connection closed by peer").
--destroy: the script destroys its process group in a ``finally``, as many DDP scripts do;
the failing rank then closes its connections before the probe records its error.
--only-in-workers: rank R fails only where its loader has workers (the script as written,
with none, trains).
--sample-ms M: each sample takes M ms to load, so the loader, not the all_reduce, bounds the
step and a search has worker counts worth trying.
"""

import argparse
import os
import time

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset, get_worker_info


class Samples(Dataset):
    def __init__(
        self, size: int, fail_rank: int, fail_at: int, only_in_workers: bool, sample_s: float
    ) -> None:
        self.size = size
        self.sample_s = sample_s
        self.rank = int(os.environ.get("RANK", "0"))
        self.fail = self.rank == fail_rank
        self.fail_at = fail_at
        self.only_in_workers = only_in_workers

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, i: int):
        in_worker = get_worker_info() is not None
        if self.fail and i >= self.fail_at and (in_worker or not self.only_in_workers):
            where = "a worker" if get_worker_info() is not None else "the main process"
            raise ValueError(f"bad sample {i} on rank {self.rank} [{where}]")
        if self.sample_s:
            time.sleep(self.sample_s)
        return torch.full((4,), float(i))


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--fail-rank", type=int, default=1)
    p.add_argument("--fail-at", type=int, default=64)
    p.add_argument("--destroy", action="store_true")
    p.add_argument("--only-in-workers", action="store_true")
    p.add_argument("--sample-ms", type=float, default=0.0)
    args = p.parse_args()
    dist.init_process_group("gloo")
    samples = Samples(
        100_000, args.fail_rank, args.fail_at, args.only_in_workers, args.sample_ms / 1000
    )
    loader = DataLoader(samples, batch_size=4)
    try:
        for batch in loader:
            total = batch.sum()
            dist.all_reduce(total)  # lock-step: every rank waits for every other here
    finally:
        if args.destroy and dist.is_initialized():
            dist.destroy_process_group()


if __name__ == "__main__":
    main()
