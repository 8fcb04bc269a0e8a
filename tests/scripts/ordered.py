"""A seeded, shuffled training loop that prints the digest of the samples it trained on, in
order, and of the random numbers its workers drew; loading sleeps (latency, like remote
storage), so more workers help.

usage: ordered.py [--epochs N] [--samples N] [--latency-ms MS] [--batch-size B]
                  [--num-workers W] [--iterable] [--step-ms MS]
                  [--crash-at-workers N] [--hang-at-workers N] [--hog-at-workers N]
                  [--slower-after N --slower-by X --slow-flag PATH]

--crash-at-workers N: a worker raises when its loader has N workers or more;
--hang-at-workers N: a worker blocks forever then; --hog-at-workers N: each worker holds
400 MiB then; --step-ms: each step sleeps (model-bound). --slower-after N: after N batches
trained the main process creates --slow-flag PATH and prints "slower at T" (time.time()); from
then every sample's latency is --slower-by X times longer, in whichever process loads it.
"""

import argparse
import hashlib
import os
import threading
import time

import torch
from torch.utils.data import DataLoader, Dataset, IterableDataset, get_worker_info

BREAK = {"crash": 0, "hang": 0, "hog": 0}
SLOWER = {"flag": "", "by": 1.0}
HELD: list[bytes] = []


def _check_worker() -> None:
    info = get_worker_info()
    if info is None:
        return
    if BREAK["crash"] and info.num_workers >= BREAK["crash"]:
        raise RuntimeError(f"this dataset breaks with {info.num_workers} workers")
    if BREAK["hang"] and info.num_workers >= BREAK["hang"]:
        threading.Event().wait()
    if BREAK["hog"] and info.num_workers >= BREAK["hog"] and not HELD:
        HELD.append(b"\x01" * (400 << 20))  # 400 MiB a worker, touched


class Remote(Dataset):
    def __init__(self, size: int, latency_s: float) -> None:
        self.size, self.latency_s = size, latency_s

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, i: int) -> torch.Tensor:
        _check_worker()
        slower = SLOWER["flag"] and os.path.exists(SLOWER["flag"])
        time.sleep(self.latency_s * (float(SLOWER["by"]) if slower else 1.0))
        return torch.tensor([i, 0], dtype=torch.int64)


class Stream(IterableDataset):
    def __init__(self, size: int, latency_s: float) -> None:
        self.size, self.latency_s = size, latency_s

    def __iter__(self):
        info = get_worker_info()
        start, step = (0, 1) if info is None else (info.id, info.num_workers)
        for i in range(start, self.size, step):
            time.sleep(self.latency_s)
            yield torch.tensor([i, 0], dtype=torch.int64)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--samples", type=int, default=512)
    parser.add_argument("--latency-ms", type=float, default=2.0)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--num-workers", type=int, default=0)
    parser.add_argument("--iterable", action="store_true")
    parser.add_argument("--step-ms", type=float, default=0.0)
    parser.add_argument("--crash-at-workers", type=int, default=0)
    parser.add_argument("--hang-at-workers", type=int, default=0)
    parser.add_argument("--hog-at-workers", type=int, default=0)
    parser.add_argument("--slower-after", type=int, default=0)
    parser.add_argument("--slower-by", type=float, default=1.0)
    parser.add_argument("--slow-flag", default="")
    args = parser.parse_args()
    SLOWER.update(flag=args.slow_flag, by=args.slower_by)
    BREAK.update(crash=args.crash_at_workers, hang=args.hang_at_workers, hog=args.hog_at_workers)
    torch.manual_seed(1234)
    latency = args.latency_ms / 1000
    if args.iterable:
        dataset = Stream(args.samples, latency)
        loader = DataLoader(dataset, batch_size=args.batch_size, num_workers=args.num_workers)
    else:
        loader = DataLoader(
            Remote(args.samples, latency),
            batch_size=args.batch_size,
            shuffle=True,
            num_workers=args.num_workers,
        )
    model = torch.nn.Linear(1, 1)
    digest = hashlib.sha256()
    batches = 0
    for _ in range(args.epochs):
        for batch in loader:
            digest.update(batch[:, 0].numpy().tobytes())
            model(batch[:, :1].float()).sum().backward()
            if args.step_ms:
                time.sleep(args.step_ms / 1000)
            batches += 1
            if args.slower_after and batches == args.slower_after:
                with open(args.slow_flag, "w"):
                    pass
                print(f"slower at {time.time()}", flush=True)
    print(f"digest {digest.hexdigest()} batches {batches}", flush=True)


if __name__ == "__main__":
    main()
