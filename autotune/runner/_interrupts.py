"""The terminal's signals while the user's training runs beside autotune (a live run)."""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable
from types import FrameType
from typing import Any


class Interrupts:
    """Ctrl-C while the user's training runs in the foreground, beside autotune.

    The terminal sends SIGINT to the whole foreground group: the training has it as it would
    without autotune, and decides what it means. autotune only notes when it came (``at``)
    and stops its own work where that is safe, never at whatever line the signal lands on:
    never by killing the training. A handler, not SIG_IGN: an ignored SIGINT would be
    inherited by the training, whose interpreter would then never raise KeyboardInterrupt.
    Once ``alone()`` (the training has ended), Ctrl-C is autotune's again: KeyboardInterrupt.
    """

    def __init__(self, alone: Callable[[], bool]) -> None:
        self.alone = alone
        self.at: float | None = None
        self._previous: Any = None
        self._installed = False

    def __enter__(self) -> Interrupts:
        # Python runs signal handlers in the main thread only, and only it may set them.
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._note)
            self._installed = True
        return self

    def __exit__(self, *exc: object) -> None:
        if self._installed:
            # None: a handler set outside Python, which cannot be put back; the default can.
            previous = signal.SIG_DFL if self._previous is None else self._previous
            signal.signal(signal.SIGINT, previous)
            self._installed = False

    def _note(self, signum: int, frame: FrameType | None) -> None:
        if self.alone():
            raise KeyboardInterrupt
        self.at = self.at or time.monotonic()


def exit_status(returncode: int) -> int:
    """A process's status as a shell reports it: a death by signal N is 128 + N."""
    return 128 - returncode if returncode < 0 else returncode
