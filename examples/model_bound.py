"""Model-bound: data is already in memory; the step itself takes the time.

No DataLoader setting can make this much faster; a tuner should say so.
"""

import torch
from _common import OrderDigest, base_parser, device, parse
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

if __name__ == "__main__":
    parser = base_parser(__doc__)
    parser.add_argument("--samples", type=int, default=8192)
    parser.add_argument("--width", type=int, default=1536)
    args = parse(parser)
    x = torch.randn(args.samples, 256)
    y = torch.randint(0, 10, (args.samples,))
    loader = DataLoader(
        TensorDataset(x, y), batch_size=args.batch_size, shuffle=True, num_workers=args.num_workers
    )
    dev = device()
    model = nn.Sequential(
        nn.Linear(256, args.width),
        nn.ReLU(),
        nn.Linear(args.width, args.width),
        nn.ReLU(),
        nn.Linear(args.width, args.width),
        nn.ReLU(),
        nn.Linear(args.width, 10),
    ).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=args.lr)
    digest = OrderDigest()
    for epoch in range(args.epochs):
        for features, labels in loader:
            digest.add(features[:, 0], labels)
            features, labels = features.to(dev), labels.to(dev)
            opt.zero_grad(set_to_none=True)
            nn.functional.cross_entropy(model(features), labels).backward()
            opt.step()
        print(f"epoch {epoch} done", flush=True)
    digest.report()
