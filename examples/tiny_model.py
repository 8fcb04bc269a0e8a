"""Tiny model: a small MLP on small in-memory batches.

Each step is a handful of tiny kernels, so on a GPU the launch and copy overheads dominate
and the CPU can be faster (seed 004). autotune measures both and keeps the faster device.
The script chooses its device itself (CUDA when visible), as most scripts do.
"""

import torch
from _common import base_parser, device, parse
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

if __name__ == "__main__":
    parser = base_parser(__doc__)
    parser.add_argument("--samples", type=int, default=4096)
    parser.add_argument("--features", type=int, default=32)
    parser.add_argument("--width", type=int, default=64)
    args = parse(parser)
    x = torch.randn(args.samples, args.features)
    y = torch.randint(0, 10, (args.samples,))
    loader = DataLoader(
        TensorDataset(x, y), batch_size=args.batch_size, shuffle=True, num_workers=args.num_workers
    )
    dev = device()
    model = nn.Sequential(
        nn.Linear(args.features, args.width), nn.ReLU(), nn.Linear(args.width, 10)
    ).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=args.lr)
    for epoch in range(args.epochs):
        for features, labels in loader:
            features, labels = features.to(dev), labels.to(dev)
            opt.zero_grad(set_to_none=True)
            nn.functional.cross_entropy(model(features), labels).backward()
            opt.step()
        print(f"epoch {epoch} done", flush=True)
