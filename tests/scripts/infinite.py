"""An infinite sampler, a batch_sampler, and a broad except around the step."""

import torch
from tiny import Tiny, parser, step
from torch.utils.data import BatchSampler, DataLoader, RandomSampler

if __name__ == "__main__":
    args = parser().parse_args()
    dataset = Tiny(args.size, args.latency)
    sampler = RandomSampler(dataset, replacement=True, num_samples=int(1e10))
    loader = DataLoader(
        dataset, batch_sampler=BatchSampler(sampler, 8, drop_last=True), num_workers=args.workers
    )
    for batch in loader:
        try:
            step(batch)
        except Exception as exc:
            print("step failed, carrying on:", exc)
    torch.zeros(1)
