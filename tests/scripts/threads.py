"""Prints torch's intra-op threads as the training starts, then trains a few batches."""

import torch
from tiny import Tiny
from torch.utils.data import DataLoader

if __name__ == "__main__":
    print(f"torch threads {torch.get_num_threads()}", flush=True)
    for x, _ in DataLoader(Tiny(64), batch_size=8):
        x.sum()
