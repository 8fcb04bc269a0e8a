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
--outlive-peers DIR: each rank writes its pid in DIR, and rank R, failing, waits until every
other rank's process is gone before its error goes on, so its error is recorded after their
"Connection closed by peer" (as when the failing rank's own teardown is slow).
"""

import argparse
import os
import time
from pathlib import Path

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
    p.add_argument("--outlive-peers", type=Path)
    args = p.parse_args()
    dist.init_process_group("gloo")
    if args.outlive_peers:
        (args.outlive_peers / f"rank{dist.get_rank()}.pid").write_text(str(os.getpid()))
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
        if args.outlive_peers and samples.fail:
            outlive(args.outlive_peers, os.getpid())


def outlive(directory: Path, own: int, limit_s: float = 60.0) -> None:
    """Until every other rank's process is gone (the runner reaps them as they exit)."""
    peers = [int(f.read_text()) for f in directory.glob("rank*.pid")]
    deadline = time.monotonic() + limit_s
    for pid in peers:
        while pid != own and time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.02)


if __name__ == "__main__":
    main()
