"""A training loop whose processes say who they are, for the lifecycle tests: which processes
of a probe or a live run are left once autotune ends it, or dies.

usage: lifecycle.py --pids DIR [--workers N] [--epochs N] [--samples N] [--latency-ms MS]
                    [--stuck] [--detach] [--survive] [--out PATH] [--until PATH]

--pids DIR: the main process writes ``main-PID`` at its first batch; each DataLoader worker
writes ``worker-PID`` at its first sample. --detach: the main process also starts a process
in a session of its own (it has left the group it was started in) and writes
``detached-PID``. --stuck: a worker whose parent is gone blocks for good, deaf to SIGTERM,
instead of exiting (a worker stuck at its exit with results nobody reads: what was seen with
~100 workers). --out PATH: lines "started", "interrupted" (the loop saw KeyboardInterrupt)
and "finished batches N". --survive: KeyboardInterrupt ends the epoch, not the training.
--until PATH: the training also ends after the epoch in which PATH appeared, so a test
decides when it ends instead of guessing how long it takes.
"""

import argparse
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import torch
from torch.utils.data import DataLoader, Dataset, get_worker_info


def note(path: str, text: str) -> None:
    if path:
        with open(path, "a") as fh:
            fh.write(text + "\n")


class Slow(Dataset):
    def __init__(self, size: int, latency_s: float, pids: Path, stuck: bool) -> None:
        self.size, self.latency_s, self.pids, self.stuck = size, latency_s, pids, stuck
        self.parent = os.getpid()
        self.seen = False

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, i: int) -> torch.Tensor:
        if get_worker_info() is not None:
            if not self.seen:
                self.seen = True
                if self.stuck:
                    signal.signal(signal.SIGTERM, signal.SIG_IGN)
                (self.pids / f"worker-{os.getpid()}").touch()
            if self.stuck and os.getppid() != self.parent:
                threading.Event().wait()
        time.sleep(self.latency_s)
        return torch.tensor([float(i)])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pids", required=True)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--samples", type=int, default=512)
    parser.add_argument("--latency-ms", type=float, default=10.0)
    parser.add_argument("--stuck", action="store_true")
    parser.add_argument("--detach", action="store_true")
    parser.add_argument("--survive", action="store_true")
    parser.add_argument("--out", default="")
    parser.add_argument("--until", default="")
    args = parser.parse_args()
    pids = Path(args.pids)
    pids.mkdir(parents=True, exist_ok=True)
    note(args.out, "started")
    dataset = Slow(args.samples, args.latency_ms / 1000, pids, args.stuck)
    loader = DataLoader(dataset, batch_size=4, num_workers=args.workers)
    batches = 0
    for _ in range(args.epochs):
        try:
            for batch in loader:
                if batches == 0:
                    if args.detach:
                        sleeper = [sys.executable, "-c", "import time; time.sleep(600)"]
                        child = subprocess.Popen(sleeper, start_new_session=True)
                        (pids / f"detached-{child.pid}").touch()
                    (pids / f"main-{os.getpid()}").touch()
                batch.sum().item()
                batches += 1
        except KeyboardInterrupt:
            note(args.out, "interrupted")
            if not args.survive:
                raise
        if args.until and os.path.exists(args.until):
            break
    note(args.out, f"finished batches {batches}")


if __name__ == "__main__":
    main()
