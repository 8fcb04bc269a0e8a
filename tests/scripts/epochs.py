"""A fit loop that builds its training and validation DataLoaders anew every epoch (or once,
with --build-once), and
keeps its own clock: per epoch, its wall time, the training loader's start-up (from
``iter()`` to the first batch), the validation pass's time and the order of its samples (a
digest), one JSON line each in --report.

--worker-start makes each worker's start slow (opening a dataset, say), so workers that
restart every epoch cost that much per epoch."""

import hashlib
import json
import time

from tiny import Tiny, parser, step
from torch.utils.data import DataLoader, get_worker_info


class MainProcessOnly(Tiny):
    """A validation set that fails in a worker (a handle that cannot cross processes)."""

    def __getitem__(self, i: int):
        if get_worker_info() is not None:
            raise RuntimeError("this dataset's handle cannot be used in a worker")
        return super().__getitem__(i)


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
    p.add_argument("--val-main-only", action="store_true", help="validation fails in workers")
    p.add_argument("--build-once", action="store_true", help="build the loaders before the loop")
    args = p.parse_args()
    report = open(args.report, "a") if args.report else None  # noqa: SIM115
    train_set = Tiny(args.size, args.latency)
    val_class = MainProcessOnly if args.val_main_only else Tiny
    val_set = val_class(args.val_size, args.val_latency) if args.val_size else None
    init = slow_start(args.worker_start) if args.worker_start and args.workers else None

    def train_loader() -> DataLoader:
        return DataLoader(
            train_set,
            batch_size=8,
            shuffle=True,
            num_workers=args.workers,
            persistent_workers=args.persistent and args.workers > 0,
            worker_init_fn=init,
        )

    def val_loader() -> DataLoader:
        return DataLoader(val_set, batch_size=8)

    train = train_loader() if args.build_once else None
    val = val_loader() if args.build_once and val_set is not None else None
    for _ in range(args.epochs):
        t_epoch = time.perf_counter()
        if not args.build_once:
            train = train_loader()
        t_iter = time.perf_counter()  # iter() starts the workers: their start-up is in it
        it = iter(train)
        startup = None
        for batch in it:
            if startup is None:
                startup = time.perf_counter() - t_iter
            step(batch)
        val_s, order = None, hashlib.sha256()
        if val_set is not None:
            if not args.build_once:
                val = val_loader()
            t_val = time.perf_counter()
            for batch in val:
                order.update(batch[0][:, 0].numpy().tobytes())
                step(batch)
            val_s = time.perf_counter() - t_val
        if report is not None:
            wall = time.perf_counter() - t_epoch
            line = {"epoch_s": wall, "startup_s": startup, "val_s": val_s}
            report.write(json.dumps({**line, "val_order": order.hexdigest()}) + "\n")
            report.flush()
