"""A fit loop that builds its training and validation DataLoaders anew every epoch, and
keeps its own clock: per epoch, its wall time and the training loader's start-up (from
``iter()`` to the first batch), one JSON line each in --report.

--worker-start makes each worker's start slow (opening a dataset, say), so workers that
restart every epoch cost that much per epoch."""

import json
import time

from tiny import Tiny, parser, step
from torch.utils.data import DataLoader


def slow_start(seconds: float):
    def init(_worker_id: int) -> None:
        time.sleep(seconds)

    return init


if __name__ == "__main__":
    p = parser()
    p.add_argument("--val-size", type=int, default=0)
    p.add_argument("--val-latency", type=float, default=0.001)
    p.add_argument("--worker-start", type=float, default=0.0)
    p.add_argument("--persistent", action="store_true")
    args = p.parse_args()
    report = open(args.report, "a") if args.report else None  # noqa: SIM115
    train_set = Tiny(args.size, args.latency)
    val_set = Tiny(args.val_size, args.val_latency) if args.val_size else None
    init = slow_start(args.worker_start) if args.worker_start and args.workers else None
    for _ in range(args.epochs):
        t_epoch = time.perf_counter()
        train = DataLoader(
            train_set,
            batch_size=8,
            shuffle=True,
            num_workers=args.workers,
            persistent_workers=args.persistent and args.workers > 0,
            worker_init_fn=init,
        )
        t_iter = time.perf_counter()  # iter() starts the workers: their start-up is in it
        it = iter(train)
        startup = None
        for batch in it:
            if startup is None:
                startup = time.perf_counter() - t_iter
            step(batch)
        if val_set is not None:
            val = DataLoader(val_set, batch_size=8)
            for batch in val:
                step(batch)
        if report is not None:
            wall = time.perf_counter() - t_epoch
            report.write(json.dumps({"epoch_s": wall, "startup_s": startup}) + "\n")
            report.flush()
