"""Start-up-bound: short epochs, and each worker pays a costly start (opening shards,
connecting to a database). Workers that are restarted every epoch waste that time;
persistent_workers keeps them.
"""

import time

import torch
from _common import SmallConvNet, base_parser, parse, train
from torch.utils.data import DataLoader, Dataset, get_worker_info


class ShardedImages(Dataset):
    def __init__(self, size: int, latency_s: float) -> None:
        self.size = size
        self.latency_s = latency_s

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, i: int):
        time.sleep(self.latency_s)
        return torch.full((3, 32, 32), i % 251, dtype=torch.uint8), i % 10


def open_shards(worker_id: int) -> None:
    info = get_worker_info()
    time.sleep(0.4)  # open shard files, connect to storage
    assert info is not None


if __name__ == "__main__":
    parser = base_parser(__doc__)
    parser.add_argument("--samples", type=int, default=256)
    parser.add_argument("--latency-ms", type=float, default=1.0)
    parser.set_defaults(epochs=200, num_workers=4)
    args = parse(parser)
    loader = DataLoader(
        ShardedImages(args.samples, args.latency_ms / 1000),
        batch_size=args.batch_size,
        shuffle=True,
        num_workers=args.num_workers,
        worker_init_fn=open_shards,
    )
    train(SmallConvNet(), loader, args.epochs, args.lr)
