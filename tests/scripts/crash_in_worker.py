from tiny import Tiny, parser, step
from torch.utils.data import DataLoader

if __name__ == "__main__":
    args = parser().parse_args()
    loader = DataLoader(Tiny(256, 0.0, fail_at=20), batch_size=8, num_workers=args.workers)
    for _ in range(args.epochs):
        for batch in loader:
            step(batch)
