"""A tiny dataset and loop shared by the test scripts (imported from the script's folder)."""

import argparse
import time

import torch
from torch.utils.data import Dataset


class Tiny(Dataset):
    def __init__(
        self, size: int = 512, latency_s: float = 0.0, fail_at: int = -1, hang_at: int = -1
    ) -> None:
        self.size = size
        self.latency_s = latency_s
        self.fail_at = fail_at
        self.hang_at = hang_at

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, i: int):
        if i == self.fail_at:
            raise ValueError(f"corrupt sample {i}")
        if i == self.hang_at:
            time.sleep(3600)
        if self.latency_s:
            time.sleep(self.latency_s)
        return torch.full((4,), float(i)), i % 2


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser()
    p.add_argument("--workers", type=int, default=0)
    p.add_argument("--epochs", type=int, default=1000)
    p.add_argument("--latency", type=float, default=0.001)
    p.add_argument("--size", type=int, default=512)
    p.add_argument("--report", default="")
    return p


def step(batch) -> None:
    x, _ = batch
    (x * 2).sum().item()
    time.sleep(0.002)
