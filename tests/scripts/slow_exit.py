"""A script whose interpreter takes minutes to exit (an atexit hook that waits on a remote
service), with its own clean-up in a ``finally``."""

import atexit
import time
from pathlib import Path

from tiny import Tiny, parser, step
from torch.utils.data import DataLoader

if __name__ == "__main__":
    args = parser().parse_args()
    atexit.register(time.sleep, 600)
    loader = DataLoader(Tiny(args.size, args.latency), batch_size=8, num_workers=args.workers)
    try:
        for _ in range(args.epochs):
            for batch in loader:
                step(batch)
    finally:
        Path(args.report).write_text("cleaned up")
