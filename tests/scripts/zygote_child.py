"""Records, at its exit, who started it and what it was given: its parent, its session, one
environment variable and torch's threads, as JSON lines in the file its first argument names."""

import atexit
import json
import os
import sys

import torch


def record() -> None:
    seen = {
        "pid": os.getpid(),
        "ppid": os.getppid(),
        "sid": os.getsid(0),
        "x": os.environ.get("ZYGOTE_TEST_X"),
        "threads": torch.get_num_threads(),
    }
    with open(sys.argv[1], "a") as fh:
        fh.write(json.dumps(seen) + "\n")


atexit.register(record)  # run at exit, as an interpreter runs it: the probe's fork too
