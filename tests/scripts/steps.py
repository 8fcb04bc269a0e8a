"""Trains for a fixed number of steps (--steps), over as many epochs as that takes."""

from tiny import Tiny, parser, step
from torch.utils.data import DataLoader

if __name__ == "__main__":
    p = parser()
    p.add_argument("--steps", type=int, default=30)
    args = p.parse_args()
    loader = DataLoader(Tiny(args.size, args.latency), batch_size=8, num_workers=args.workers)
    done = 0
    while done < args.steps:
        for batch in loader:
            step(batch)
            done += 1
            if done >= args.steps:
                break
