"""Ctrl-C while a segment forks its workers: held until the forks are done.

The terminal sends SIGINT to the whole foreground group. Landing while the main process forks
workers, CPython runs its handler inside an at-fork hook (logging's lock release), which
prints "Exception ignored" and drops the KeyboardInterrupt; the worker being born dies of its
own copy with exit status 1. A switch would then take that death for the settings' fault and
load on with the last proven ones: the training would never see its Ctrl-C. So SIGINT is
blocked in the forking thread while the workers start, and let through after, where it raises
KeyboardInterrupt in the training as anywhere else. Each worker lets it through again first
thing (a fork keeps the mask, and so would everything the worker starts); one that came
meanwhile ends that worker as torch's own worker loop ends on KeyboardInterrupt, quietly.
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager

# pthread_sigmask is POSIX's; elsewhere there is no group SIGINT to hold.
_CAN_HOLD = hasattr(signal, "pthread_sigmask")


@contextmanager
def sigint_held() -> Iterator[set[int | signal.Signals]]:
    """SIGINT blocked in this thread inside; yields the mask it had before, which is put back
    on the way out (a SIGINT that came meanwhile is then delivered)."""
    if not _CAN_HOLD:
        yield set()
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield before
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


class UnheldInit:
    """A worker's ``worker_init_fn``: first the mask its parent had before ``sigint_held``,
    then the script's own function, if any. Picklable wherever ``fn`` is (spawn)."""

    def __init__(self, fn: Callable[[int], object] | None, mask: set[int | signal.Signals]) -> None:
        self.fn, self.mask = fn, mask

    def __call__(self, worker_id: int) -> None:
        if _CAN_HOLD:
            signal.pthread_sigmask(signal.SIG_SETMASK, self.mask)
        if self.fn is not None:
            self.fn(worker_id)
