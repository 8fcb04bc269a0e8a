"""An IterableDataset streaming slow samples."""

import time

import torch
from tiny import parser, step
from torch.utils.data import DataLoader, IterableDataset


class Stream(IterableDataset):
    def __init__(self, latency_s: float) -> None:
        self.latency_s = latency_s

    def __iter__(self):
        i = 0
        while True:
            time.sleep(self.latency_s)
            yield torch.full((4,), float(i)), i % 2
            i += 1


if __name__ == "__main__":
    args = parser().parse_args()
    loader = DataLoader(Stream(args.latency), batch_size=8, num_workers=args.workers)
    for batch in loader:
        step(batch)
