"""Keeps every batch's scratch memory: the process tree grows until something stops it."""

import torch
from tiny import Tiny, parser, step
from torch.utils.data import DataLoader

if __name__ == "__main__":
    args = parser().parse_args()
    kept = []
    loader = DataLoader(Tiny(args.size, args.latency), batch_size=8, num_workers=args.workers)
    for _ in range(args.epochs):
        for batch in loader:
            step(batch)
            kept.append(torch.ones(1024 * 1024))  # 4 MiB a step, never freed
