"""Turns at the machine for tests run side by side (pytest-xdist): most tests share it, and a
test marked ``alone`` (it compares rates, or reads other processes' load) runs with no other
test beside it.

A readers-writer lock on two files under the run's own directory, with ``flock`` (the kernel
frees both when a worker dies): every test passes a turnstile, then holds the machine shared;
an ``alone`` test holds the turnstile while it waits for the machine exclusively, so the tests
that follow it wait too and it is never starved.

Each alone test first waits for the tests beside it to end, the other worker idle meanwhile.
So the alone tests are collected first (one worker gets them all, in a row: xdist hands each
worker a contiguous share), and an alone test whose next test is alone too keeps the machine
for it: the wait is paid once, not once per alone test.
"""

from __future__ import annotations

import fcntl
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO


def _folder() -> Path | None:
    """The directory this run's workers share, or None when tests run one at a time."""
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if not run or not os.environ.get("PYTEST_XDIST_WORKER"):
        return None
    folder = Path(tempfile.gettempdir()) / f"autotune-tests-{run}"
    folder.mkdir(exist_ok=True)
    return folder


class _Held:
    """The machine's lock file while this worker holds it alone across tests."""

    machine: IO[str] | None = None


def _release_held() -> None:
    if _Held.machine is not None:
        fcntl.flock(_Held.machine, fcntl.LOCK_UN)
        _Held.machine.close()
        _Held.machine = None


@contextmanager
def turn(alone: bool, keep: bool = False) -> Iterator[None]:
    """Held around one test: shared, or the whole machine when ``alone``; ``keep`` (alone
    only): the machine stays held after it, for the next test, which is alone too."""
    folder = _folder()
    if folder is None:
        yield
        return
    if alone and _Held.machine is not None:  # the last test kept it for this one
        machine = _Held.machine
    else:
        _release_held()
        machine = (folder / "machine").open("a")
        with (folder / "turnstile").open("a") as gate:
            fcntl.flock(gate, fcntl.LOCK_EX)
            try:
                fcntl.flock(machine, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
            except BaseException:
                machine.close()
                raise
            finally:
                fcntl.flock(gate, fcntl.LOCK_UN)
    _Held.machine = None
    try:
        yield
    finally:
        if alone and keep:
            _Held.machine = machine
        else:
            fcntl.flock(machine, fcntl.LOCK_UN)
            machine.close()
