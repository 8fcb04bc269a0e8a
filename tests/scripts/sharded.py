"""An IterableDataset over a few shards, split among DataLoader workers by whole shards (the
pattern of torch's IterableDataset docs): a worker past the shard count gets none and ends at
once, while the others stream on. No library says the count: only a measurement can."""

import time

import torch
from tiny import parser, step
from torch.utils.data import DataLoader, IterableDataset, get_worker_info


class Shards(IterableDataset):
    def __init__(self, shards: int, latency_s: float) -> None:
        self.shards = list(range(shards))
        self.latency_s = latency_s

    def __iter__(self):
        info = get_worker_info()
        mine = self.shards if info is None else self.shards[info.id :: info.num_workers]
        for shard in mine:
            for i in range(100_000):  # long shards: the probe never reaches their end
                time.sleep(self.latency_s)
                yield torch.full((4,), float(shard)), i % 2


if __name__ == "__main__":
    p = parser()
    p.add_argument("--shards", type=int, default=3)
    args = p.parse_args()
    loader = DataLoader(Shards(args.shards, args.latency), batch_size=8, num_workers=args.workers)
    for batch in loader:
        step(batch)
