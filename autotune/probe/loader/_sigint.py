"""Ctrl-C while a segment forks its workers: held until the forks are done.

The terminal sends SIGINT to the whole foreground group. Landing while the main process forks
workers, CPython runs its handler inside an at-fork hook (logging's lock release), which
prints "Exception ignored" and drops the KeyboardInterrupt; the worker being born dies of its
own copy with exit status 1. A switch would then take that death for the settings' fault and
load on with the last proven ones: the training would never see its Ctrl-C.

So while the workers start, SIGINT is held twice. The forking thread blocks it: the workers
are born with it blocked, and each lets it through again first thing (a fork keeps the mask,
and so would everything the worker starts); one that came meanwhile ends that worker as
torch's own worker loop ends on KeyboardInterrupt, quietly. And the main thread's handler only
notes it: with any other thread in the process (the probe's sampler, a pin-memory thread) the
kernel hands a SIGINT the forking thread blocks to that thread, and CPython still runs the
handler in the main thread, inside the fork. After the forks the script's handler is back and
a noted SIGINT is raised again, where it raises KeyboardInterrupt in the training as anywhere
else (or does whatever the script's own handler does).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

# pthread_sigmask is POSIX's; elsewhere there is no group SIGINT to hold.
_CAN_HOLD = hasattr(signal, "pthread_sigmask")


class _Noting:
    """The main thread's SIGINT handler while held: it only notes that one came."""

    def __init__(self) -> None:
        self.came = False

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        self.came = True


@dataclass
class Held:
    """What ``sigint_held`` changed, for the workers born inside it to put back: the forking
    thread's mask, and the script's SIGINT handler (None where it was not replaced)."""

    mask: set[int | signal.Signals] = field(default_factory=set)
    handler: Any = None


@contextmanager
def sigint_held() -> Iterator[Held]:
    """SIGINT held inside (the module's docstring); on the way out the mask and the handler
    are put back, and a SIGINT that came meanwhile is raised again."""
    if not _CAN_HOLD:
        yield Held()
        return
    noting = _Noting()
    # Only the main thread may set handlers, and one set outside Python (None) cannot be put
    # back: there the mask alone holds.
    main = threading.current_thread() is threading.main_thread()
    handler = signal.getsignal(signal.SIGINT) if main else None
    if handler is not None:
        signal.signal(signal.SIGINT, noting)
    try:
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            yield Held(mask, handler)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    finally:
        if handler is not None:
            signal.signal(signal.SIGINT, handler)
    if noting.came:
        signal.raise_signal(signal.SIGINT)  # to the script's own handler, outside the forks


class UnheldInit:
    """A worker's ``worker_init_fn``: first what ``sigint_held`` changed is put back (the
    script's handler, which a fork copies, then the mask), then the script's own function,
    if any. Picklable wherever ``fn`` is (spawn); a spawned worker starts its own interpreter,
    with its own handler, so the script's is not sent to it."""

    def __init__(self, fn: Callable[[int], object] | None, held: Held) -> None:
        self.fn, self.mask, self.handler = fn, held.mask, held.handler

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "handler": None}

    def __call__(self, worker_id: int) -> None:
        if _CAN_HOLD:
            if self.handler is not None and isinstance(signal.getsignal(signal.SIGINT), _Noting):
                signal.signal(signal.SIGINT, self.handler)
            signal.pthread_sigmask(signal.SIG_SETMASK, self.mask)
        if self.fn is not None:
            self.fn(worker_id)
