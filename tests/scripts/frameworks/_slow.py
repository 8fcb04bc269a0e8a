"""Datasets shared by the framework scripts: every sample costs a sleep."""

import time

import torch
from torch.utils.data import Dataset


class SlowTrain(Dataset):
    def __init__(self, size: int = 4096, latency_s: float = 0.002) -> None:
        self.size = size
        self.latency_s = latency_s

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, i: int):
        time.sleep(self.latency_s)
        return torch.full((8,), float(i % 7)), torch.tensor(float(i % 2))


class SlowVal(SlowTrain):
    pass
