"""Shared bits of the example training scripts: a tiny model and a standard loop."""

from __future__ import annotations

import argparse
import hashlib
import time

import torch
from torch import nn


def base_parser(description: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--num-workers", type=int, default=0)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--seed", type=int, default=0)
    return parser


def parse(parser: argparse.ArgumentParser) -> argparse.Namespace:
    """The arguments, with torch seeded from ``--seed``: the same command trains on the same
    data in the same order (compare runs with the order digest ``train`` prints)."""
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    return args


def device() -> torch.device:
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


class SmallConvNet(nn.Module):
    def __init__(self, channels: int = 3, classes: int = 10) -> None:
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(channels, 16, 3, padding=1),
            nn.ReLU(),
            nn.AdaptiveAvgPool2d(4),
            nn.Flatten(),
            nn.Linear(16 * 16, classes),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.body(x)


class OrderDigest:
    """Which samples a run trained on, in which order, as one hex digest: two runs that print
    the same one saw the same batches (benchmarks/adapt.py compares them)."""

    def __init__(self) -> None:
        self._hash = hashlib.sha256()

    def add(self, *tensors: torch.Tensor) -> None:
        for t in tensors:
            self._hash.update(t.detach().cpu().contiguous().numpy().tobytes())

    def report(self) -> None:
        print(f"order digest {self._hash.hexdigest()}", flush=True)


def train(model: nn.Module, loader: torch.utils.data.DataLoader, epochs: int, lr: float) -> None:
    digest = OrderDigest()
    dev = device()
    model.to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(epochs):
        start, seen = time.perf_counter(), 0
        for images, labels in loader:
            digest.add(images.reshape(len(images), -1)[:, 0], labels)  # a pixel identifies it
            images = images.to(dev, non_blocking=True).float().div_(255)
            labels = labels.to(dev, non_blocking=True)
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(model(images), labels)
            loss.backward()
            opt.step()
            seen += len(labels)
        print(f"epoch {epoch}: {seen / (time.perf_counter() - start):.0f} samples/s", flush=True)
    digest.report()
