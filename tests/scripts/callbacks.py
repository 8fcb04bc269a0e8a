"""A DataLoader subclass built inside a callback every epoch, and an eval loader built in
another callback that must keep the script's own settings."""

import json
import sys

from tiny import Tiny, parser, step
from torch.utils.data import DataLoader


class MyLoader(DataLoader):
    def __init__(self, dataset, **kwargs):
        self.extra = "kept"
        super().__init__(dataset, batch_size=8, **kwargs)


def train_loader(args):
    return MyLoader(Tiny(64, args.latency), num_workers=args.workers)


def eval_loader():
    return DataLoader(Tiny(16), batch_size=4, num_workers=0)


if __name__ == "__main__":
    args = parser().parse_args()
    seen = {}
    for _ in range(args.epochs):
        loader = train_loader(args)
        assert loader.extra == "kept"
        for batch in loader:
            step(batch)
        ev = eval_loader()
        for _ in ev:
            pass
        seen = {
            "train_workers": loader.num_workers,
            "eval_workers": ev.num_workers,
            "train_type": type(loader).__name__,
        }
        if args.report:
            with open(args.report, "w") as fh:
                json.dump(seen, fh)
    sys.exit(0)
