"""Transfer-heavy: large uint8 image batches, normalised on the GPU, then a light model.

Loading is cheap (batches are sliced from memory) and the step is short, so the time goes
into copying ~`batch * 3 * size * size` bytes per batch to the GPU. Copying on side streams
(num_streams > 0) from pinned memory can hide that copy behind the previous step.
Runs on the CPU too (slowly), so the same script serves CPU-only tests.
"""

import torch
from _common import base_parser, device, parse
from torch import nn
from torch.utils.data import DataLoader, Dataset


class Images(Dataset):
    """`pool` random uint8 images served cyclically: large batches without large memory."""

    def __init__(self, samples: int, size: int, pool: int = 512) -> None:
        self.samples = samples
        self.images = torch.randint(0, 256, (pool, 3, size, size), dtype=torch.uint8)
        self.labels = torch.randint(0, 10, (pool,))

    def __len__(self) -> int:
        return self.samples

    def __getitem__(self, i: int):
        j = i % len(self.images)
        return self.images[j], self.labels[j]

    def __getitems__(self, indices: list[int]):
        # One gather per batch instead of one stack of `batch` tensors: keeps loading cheap.
        idx = torch.tensor(indices) % len(self.images)
        return self.images.index_select(0, idx), self.labels.index_select(0, idx)


def as_batch(batch):
    return batch  # __getitems__ already returns the collated (images, labels)


if __name__ == "__main__":
    parser = base_parser(__doc__)
    parser.set_defaults(batch_size=128)
    parser.add_argument("--samples", type=int, default=1 << 20)
    parser.add_argument("--size", type=int, default=224)
    parser.add_argument("--depth", type=int, default=2, help="conv layers: the compute knob")
    args = parse(parser)
    loader = DataLoader(
        Images(args.samples, args.size),
        batch_size=args.batch_size,
        shuffle=False,
        num_workers=args.num_workers,
        collate_fn=as_batch,
    )
    dev = device()
    mean = torch.tensor([0.485, 0.456, 0.406], device=dev).view(1, 3, 1, 1)
    std = torch.tensor([0.229, 0.224, 0.225], device=dev).view(1, 3, 1, 1)
    layers: list[nn.Module] = [nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU()]
    for _ in range(args.depth - 1):
        layers += [nn.Conv2d(16, 16, 3, padding=1), nn.ReLU()]
    model = nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 10))
    model.to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=args.lr)
    for epoch in range(args.epochs):
        for images, labels in loader:
            images = images.to(dev, non_blocking=True)
            labels = labels.to(dev, non_blocking=True)
            x = (images.float().div_(255) - mean) / std
            opt.zero_grad(set_to_none=True)
            nn.functional.cross_entropy(model(x), labels).backward()
            opt.step()
        print(f"epoch {epoch} done", flush=True)
