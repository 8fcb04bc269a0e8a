"""Copy-bound: uint8 images already in host memory, a light model on the GPU.

The images are one host tensor, and a batch of consecutive samples is a view of it, so loading
costs nothing and workers cannot be the bound. What is left is the copy: a batch of 256
images of 3x512x512 is 201 MB, moved with a plain ``.to(device)`` from pageable memory every
step, against a step of a few milliseconds on the GPU. How that copy is made (from pinned
memory or not, on side streams ahead of use or in line) decides the speed.

``--width`` and ``--depth`` (3x3 layers after the first) make the model's activations grow, so
that a large batch can run out of GPU memory (what ``autotune probe --tune-batch-size`` must
survive); keep a batch's activation, batch x width x (size / 4)^2, under 2^31 elements, which
some CUDA kernels cannot index past.
Runs on the CPU too (slowly), so the same script serves CPU-only tests.
"""

import time

import torch
from _common import base_parser, device, parse
from torch import nn
from torch.utils.data import DataLoader, Dataset


class InMemoryImages(Dataset):
    """`pool` random uint8 images served cyclically; consecutive samples come as one view."""

    def __init__(self, samples: int, size: int, pool: int) -> None:
        self.samples = samples
        self.images = torch.randint(0, 256, (pool, 3, size, size), dtype=torch.uint8)
        self.labels = torch.randint(0, 10, (pool,))

    def __len__(self) -> int:
        return self.samples

    def __getitem__(self, i: int):
        j = i % len(self.images)
        return self.images[j], self.labels[j]

    def __getitems__(self, indices: list[int]):
        pool = len(self.images)
        start = indices[0] % pool
        if start + len(indices) <= pool and indices == list(
            range(indices[0], indices[0] + len(indices))
        ):
            stop = start + len(indices)
            return self.images[start:stop], self.labels[start:stop]  # no copy at all
        idx = torch.tensor(indices) % pool
        return self.images.index_select(0, idx), self.labels.index_select(0, idx)


def as_batch(batch):
    return batch  # __getitems__ already returns the collated (images, labels)


if __name__ == "__main__":
    parser = base_parser(__doc__)
    parser.set_defaults(batch_size=256)
    parser.add_argument("--samples", type=int, default=1 << 20)
    parser.add_argument("--size", type=int, default=512)
    parser.add_argument("--pool", type=int, default=512, help="distinct images in memory")
    parser.add_argument("--width", type=int, default=8, help="channels of every layer")
    parser.add_argument("--depth", type=int, default=0, help="3x3 layers after the first")
    args = parse(parser)
    loader = DataLoader(
        InMemoryImages(args.samples, args.size, args.pool),
        batch_size=args.batch_size,
        shuffle=False,
        num_workers=args.num_workers,
        collate_fn=as_batch,
    )
    dev = device()
    layers: list[nn.Module] = [nn.Conv2d(3, args.width, 4, stride=4), nn.ReLU()]  # 4x4 patches
    for _ in range(args.depth):
        layers += [nn.Conv2d(args.width, args.width, 3, padding=1), nn.ReLU()]
    model = nn.Sequential(
        *layers,
        nn.AdaptiveAvgPool2d(8),
        nn.Flatten(),
        nn.Linear(args.width * 64, 10),
    ).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=args.lr)
    for epoch in range(args.epochs):
        start, seen = time.perf_counter(), 0
        for images, labels in loader:
            images = images.to(dev)
            labels = labels.to(dev)
            x = images.float().div_(255)
            opt.zero_grad(set_to_none=True)
            nn.functional.cross_entropy(model(x), labels).backward()
            opt.step()
            seen += len(labels)
        if dev.type == "cuda":
            torch.cuda.synchronize()
        print(f"epoch {epoch}: {seen / (time.perf_counter() - start):.0f} samples/s", flush=True)
