"""Turns at the machine for tests run side by side (pytest-xdist): most tests share it, and a
test marked ``alone`` (it compares rates, or reads other processes' load) runs with no other
test beside it.

A readers-writer lock on two files under the run's own directory, with ``flock`` (the kernel
frees both when a worker dies): every test passes a turnstile, then holds the machine shared;
an ``alone`` test holds the turnstile while it waits for the machine exclusively, so the tests
that follow it wait too and it is never starved.
"""

from __future__ import annotations

import fcntl
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def _folder() -> Path | None:
    """The directory this run's workers share, or None when tests run one at a time."""
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if not run or not os.environ.get("PYTEST_XDIST_WORKER"):
        return None
    folder = Path(tempfile.gettempdir()) / f"autotune-tests-{run}"
    folder.mkdir(exist_ok=True)
    return folder


@contextmanager
def turn(alone: bool) -> Iterator[None]:
    """Held around one test: shared, or the whole machine when ``alone``."""
    folder = _folder()
    if folder is None:
        yield
        return
    with (folder / "turnstile").open("a") as gate, (folder / "machine").open("a") as machine:
        fcntl.flock(gate, fcntl.LOCK_EX)
        try:
            fcntl.flock(machine, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        finally:
            fcntl.flock(gate, fcntl.LOCK_UN)
        try:
            yield
        finally:
            fcntl.flock(machine, fcntl.LOCK_UN)
