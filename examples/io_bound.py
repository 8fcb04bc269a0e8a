"""I/O-latency-bound: every sample waits on storage (object store, network filesystem).

Loading costs wall time, not CPU, so many more workers than cores help.
"""

import time

import torch
from _common import SmallConvNet, base_parser, parse, train
from torch.utils.data import DataLoader, Dataset


class RemoteImages(Dataset):
    def __init__(self, size: int, latency_s: float) -> None:
        self.size = size
        self.latency_s = latency_s

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, i: int):
        time.sleep(self.latency_s)  # a GET from remote storage
        image = torch.full((3, 32, 32), i % 251, dtype=torch.uint8)
        return image, i % 10


if __name__ == "__main__":
    parser = base_parser(__doc__)
    parser.add_argument("--samples", type=int, default=4096)
    parser.add_argument("--latency-ms", type=float, default=4.0)
    args = parse(parser)
    dataset = RemoteImages(args.samples, args.latency_ms / 1000)
    loader = DataLoader(
        dataset, batch_size=args.batch_size, shuffle=True, num_workers=args.num_workers
    )
    train(SmallConvNet(), loader, args.epochs, args.lr)
