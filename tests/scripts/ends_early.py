"""Trains for a handful of batches only: shorter than the measurement."""

from torch.utils.data import DataLoader

from tiny import Tiny, step

if __name__ == "__main__":
    loader = DataLoader(Tiny(40, 0.01), batch_size=4)
    for batch in loader:
        step(batch)
