"""Loader built at module level and trained with no __main__ guard (fork start method)."""

from tiny import Tiny, step
from torch.utils.data import DataLoader

loader = DataLoader(Tiny(256, 0.001), batch_size=8, num_workers=0)
for _ in range(1000):
    for batch in loader:
        step(batch)
