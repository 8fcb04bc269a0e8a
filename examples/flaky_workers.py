"""A setting that fails: I/O-latency-bound loading whose workers each open many files.

Every worker opens its own handles to the dataset's shards in worker_init_fn. Past
``--max-workers`` workers the process runs out of file descriptors ("Too many open files")
and the loader crashes; with ``--fail-mode hang`` the workers block on a lock instead,
the way a connection pool that is exhausted waits forever. The script as written uses
0 workers and is latency-bound, so more workers help right up to the limit: a tuner must
route around the failing settings. Expected diagnosis: input-latency.
"""

import errno
import os
import time
from collections.abc import Callable

import torch
from _common import SmallConvNet, base_parser, parse, train
from torch.utils.data import DataLoader, Dataset, get_worker_info


class ShardedRemoteImages(Dataset[tuple[torch.Tensor, int]]):
    def __init__(self, size: int, latency_s: float) -> None:
        self.size = size
        self.latency_s = latency_s

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, i: int) -> tuple[torch.Tensor, int]:
        time.sleep(self.latency_s)
        return torch.full((3, 32, 32), i % 251, dtype=torch.uint8), i % 10


def make_init(max_workers: int, fail_mode: str) -> Callable[[int], None]:
    def open_shard_handles(worker_id: int) -> None:
        info = get_worker_info()
        assert info is not None
        if info.num_workers <= max_workers:
            return
        if fail_mode == "hang":
            while True:  # waiting for a pooled connection that never frees up
                time.sleep(1)
        raise OSError(errno.EMFILE, f"Too many open files (worker {worker_id}, pid {os.getpid()})")

    return open_shard_handles


if __name__ == "__main__":
    parser = base_parser(__doc__)
    parser.add_argument("--samples", type=int, default=4096)
    parser.add_argument("--latency-ms", type=float, default=3.0)
    parser.add_argument("--max-workers", type=int, default=8)
    parser.add_argument("--fail-mode", choices=["crash", "hang"], default="crash")
    args = parse(parser)
    loader = DataLoader(
        ShardedRemoteImages(args.samples, args.latency_ms / 1000),
        batch_size=args.batch_size,
        shuffle=True,
        num_workers=args.num_workers,
        worker_init_fn=make_init(args.max_workers, args.fail_mode),
    )
    train(SmallConvNet(), loader, args.epochs, args.lr)
