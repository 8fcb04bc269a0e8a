"""fastai as its tutorials write it: items from a folder, a DataBlock with get_items, get_x,
get_y and a RandomSplitter, dataloaders() with num_workers=0, and Learner.fit, which runs a
validation pass after every epoch. Each record takes 3 ms to read (a slow disk's)."""

import sys
import time
from pathlib import Path

import torch
from fastai.data.all import CategoryBlock, DataBlock, RandomSplitter, TransformBlock
from fastai.learner import Learner
from fastai.losses import CrossEntropyLossFlat
from torch import nn


def read_record(path: Path) -> torch.Tensor:
    time.sleep(0.003)
    values = [float(v) for v in path.read_text().split(",")]
    return torch.tensor(values)


def label_of(path: Path) -> str:
    return path.parent.name


def make_records(root: Path, count: int) -> list[Path]:
    paths = []
    for i in range(count):
        folder = root / ("even" if i % 2 == 0 else "odd")
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{i:05d}.txt"
        if not path.exists():
            path.write_text(",".join(str((i * k) % 7 / 7) for k in range(16)))
        paths.append(path)
    return paths


if __name__ == "__main__":
    epochs = int(sys.argv[1]) if len(sys.argv) > 1 else 10**6
    root = Path(sys.argv[2]) if len(sys.argv) > 2 else Path("records")
    dblock = DataBlock(
        blocks=(TransformBlock, CategoryBlock),
        get_items=lambda source: make_records(source, 1024),
        get_x=read_record,
        get_y=label_of,
        splitter=RandomSplitter(valid_pct=0.2, seed=42),
    )
    dls = dblock.dataloaders(root, bs=16, num_workers=0, device="cpu")
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 2))
    learn = Learner(dls, model, loss_func=CrossEntropyLossFlat())
    learn.fit(epochs, lr=1e-2)
