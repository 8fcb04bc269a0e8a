"""Reaping a probe's process after it was killed."""

from __future__ import annotations

import signal
import subprocess
import sys

from autotune.runner._process import reap


def test_a_process_whose_popen_lock_a_ctrl_c_left_held_is_reaped_all_the_same() -> None:
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    # What a KeyboardInterrupt between Popen's lock and its `try` leaves: the lock held, so
    # Popen.wait() would block for ever.
    assert proc._waitpid_lock.acquire(blocking=False)  # type: ignore[attr-defined]
    proc.kill()
    reap(proc, timeout_s=0.2)
    assert proc.returncode == -signal.SIGKILL


def test_a_process_that_exits_is_reaped_through_popen() -> None:
    proc = subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"])
    reap(proc)
    assert proc.returncode == 3
