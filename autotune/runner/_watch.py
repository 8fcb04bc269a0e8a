"""The one watch loop over the processes autotune starts: a probe's group (``_group.py``) and
a live run's segment (``_live.py``) are each watched turn by turn in the same order, so a
window, a prune, an ending and the timeout are decided alike for both."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import TypeVar

from autotune.runner._base import WindowCallback

T = TypeVar("T")


def watch(
    *,
    windows: Callable[[], Iterable[tuple[int, float]]],
    on_window: WindowCallback | None,
    pruned: Callable[[], T],
    stop: Callable[[], T | None],
    timed_out: Callable[[], T],
    wait: Callable[[], None],
    started: float,
    timeout_s: float,
    ready: Callable[[], T | None] | None = None,
) -> T:
    """Watches until an ending, and returns it. Each turn, in this order:

    ``ready``: a final answer, which then wins over anything this turn could show (a live
    run's segment reported, its last windows sent unpruned); ``windows`` closed since the
    last turn, each sent to ``on_window``, the first it prunes ends the watch (``pruned``);
    ``stop``: any other ending (processes exited or failed, a result written); the timeout
    from ``started`` (``time.monotonic``; ``timed_out``); then ``wait``, up to one poll.
    """
    while True:
        if ready is not None and (done := ready()) is not None:
            return done
        for index, value in windows():
            if on_window is not None and on_window(index, value):
                return pruned()
        ending = stop()
        if ending is not None:
            return ending
        if time.monotonic() - started > timeout_s:
            return timed_out()
        wait()
