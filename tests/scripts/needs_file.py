"""Fails like a missing dependency until the file named by --needs exists."""

from pathlib import Path

from tiny import Tiny, parser, step
from torch.utils.data import DataLoader

if __name__ == "__main__":
    p = parser()
    p.add_argument("--needs", required=True)
    args = p.parse_args()
    if not Path(args.needs).exists():
        raise ImportError("No module named 'accelerate'")
    loader = DataLoader(Tiny(args.size, args.latency), batch_size=8, num_workers=args.workers)
    for _ in range(args.epochs):
        for batch in loader:
            step(batch)
