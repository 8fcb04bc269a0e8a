"""Hugging Face ``datasets`` streaming, as its docs show: a dataset from a generator, turned into
an ``IterableDataset`` of a few shards, mapped by a tokenizer, fed to a torch DataLoader. Each
worker streams whole shards, so workers past the shard count get none."""

from __future__ import annotations

import argparse
import time

import torch
import torch.nn.functional as F
from datasets import Dataset
from torch import nn
from torch.utils.data import DataLoader

VOCAB = 1000
LENGTH = 32


def texts(n: int):  # type: ignore[no-untyped-def]
    for i in range(n):
        yield {"text": " ".join(f"w{(i * 7 + j) % VOCAB}" for j in range(LENGTH)), "label": i % 2}


def tokenize(example: dict) -> dict:  # type: ignore[type-arg]
    time.sleep(0.0015)  # stands in for a slow tokenizer or a remote read
    ids = [int(word[1:]) for word in example["text"].split()][:LENGTH]
    return {"input_ids": ids, "label": example["label"]}


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=1000)
    p.add_argument("--samples", type=int, default=4096)
    p.add_argument("--shards", type=int, default=4)
    p.add_argument("--workers", type=int, default=0)
    args = p.parse_args()
    torch.set_num_threads(1)
    ds = Dataset.from_generator(texts, gen_kwargs={"n": args.samples})
    stream = ds.to_iterable_dataset(num_shards=args.shards).map(tokenize, remove_columns=["text"])
    loader = DataLoader(stream.with_format("torch"), batch_size=32, num_workers=args.workers)
    model = nn.Sequential(nn.EmbeddingBag(VOCAB, 16), nn.Linear(16, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for _ in range(args.epochs):
        for batch in loader:
            opt.zero_grad()
            F.cross_entropy(model(batch["input_ids"]), batch["label"]).backward()
            opt.step()


if __name__ == "__main__":
    main()
