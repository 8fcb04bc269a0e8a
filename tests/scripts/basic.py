"""The plain case, with a choice of multiprocessing start method."""

from tiny import Tiny, parser, step
from torch.utils.data import DataLoader

if __name__ == "__main__":
    p = parser()
    p.add_argument("--context", default=None)
    args = p.parse_args()
    loader = DataLoader(
        Tiny(args.size, args.latency),
        batch_size=8,
        shuffle=True,
        num_workers=args.workers,
        multiprocessing_context=args.context,
    )
    for _ in range(args.epochs):
        for batch in loader:
            step(batch)
