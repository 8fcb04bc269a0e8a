"""Long-tail I/O latency: most reads are fast (~2 ms) but 2% stall for ~50 ms (a cold
object-store key, a busy NFS server).

Loading waits on storage, not on the CPU, so many more workers than cores help; the tail
makes one slow sample hold up its whole batch, so a deeper queue of batches in flight
(more workers, a larger prefetch_factor) smooths it out. Expected diagnosis: input-latency.
"""

import random
import time

import torch
from _common import SmallConvNet, base_parser, parse, train
from torch.utils.data import DataLoader, Dataset


class TailLatencyImages(Dataset[tuple[torch.Tensor, int]]):
    def __init__(self, size: int, fast_s: float, slow_s: float, slow_share: float) -> None:
        self.size = size
        self.fast_s, self.slow_s, self.slow_share = fast_s, slow_s, slow_share

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, i: int) -> tuple[torch.Tensor, int]:
        # Which reads are slow is random per read, as with a real cache, not fixed per index.
        slow = random.random() < self.slow_share
        time.sleep(self.slow_s if slow else self.fast_s)
        image = torch.full((3, 32, 32), i % 251, dtype=torch.uint8)
        return image, i % 10


if __name__ == "__main__":
    parser = base_parser(__doc__)
    parser.add_argument("--samples", type=int, default=4096)
    parser.add_argument("--fast-ms", type=float, default=2.0)
    parser.add_argument("--slow-ms", type=float, default=50.0)
    parser.add_argument("--slow-share", type=float, default=0.02)
    args = parse(parser)
    dataset = TailLatencyImages(
        args.samples, args.fast_ms / 1000, args.slow_ms / 1000, args.slow_share
    )
    loader = DataLoader(
        dataset, batch_size=args.batch_size, shuffle=True, num_workers=args.num_workers
    )
    train(SmallConvNet(), loader, args.epochs, args.lr)
