"""Records, as its last line runs, who started it and what it was given: its parent, its
session, one environment variable and torch's threads, as JSON lines in the file its first
argument names. Not at exit: once a probe's result is final the runner may end its process
before the interpreter's exit runs (tests/runner/test_subprocess.py)."""

import json
import os
import sys

import torch

seen = {
    "pid": os.getpid(),
    "ppid": os.getppid(),
    "sid": os.getsid(0),
    "x": os.environ.get("ZYGOTE_TEST_X"),
    "threads": torch.get_num_threads(),
}
with open(sys.argv[1], "a") as fh:
    fh.write(json.dumps(seen) + "\n")
