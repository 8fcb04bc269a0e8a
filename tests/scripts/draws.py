"""A dataset whose samples get a random flip drawn from a global generator (``--draw``:
torch, random, numpy or none), as a tutorial's augmentation would; shuffled, no workers."""

import random

import torch
from tiny import Tiny, parser, step
from torch.utils.data import DataLoader


class Flipped(Tiny):
    def __init__(self, draw: str, size: int, latency_s: float) -> None:
        super().__init__(size, latency_s)
        self.draw = draw

    def __getitem__(self, i: int):
        x, y = super().__getitem__(i)
        if self.draw == "torch":
            flip = bool(torch.rand(()) < 0.5)
        elif self.draw == "random":
            flip = random.random() < 0.5
        elif self.draw == "numpy":
            import numpy

            flip = bool(numpy.random.rand() < 0.5)
        else:
            flip = False
        return (x.flip(0) if flip else x), y


if __name__ == "__main__":
    p = parser()
    p.add_argument("--draw", default="torch")
    args = p.parse_args()
    loader = DataLoader(
        Flipped(args.draw, args.size, args.latency),
        batch_size=8,
        shuffle=True,
        num_workers=args.workers,
    )
    for _ in range(args.epochs):
        for batch in loader:
            step(batch)
