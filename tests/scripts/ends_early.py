"""Trains for a handful of batches only: shorter than the measurement."""

from tiny import Tiny, step
from torch.utils.data import DataLoader

if __name__ == "__main__":
    loader = DataLoader(Tiny(40, 0.01), batch_size=4)
    for batch in loader:
        step(batch)
