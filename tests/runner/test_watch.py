"""The one watch loop: the order in which a turn decides, with no process behind it."""

from __future__ import annotations

import time

from autotune.runner._watch import watch


def _turns(*batches: list[tuple[int, float]]):  # type: ignore[no-untyped-def]
    pending = list(batches)
    return lambda: pending.pop(0) if pending else []


def test_the_first_window_pruned_ends_the_watch_and_later_ones_are_not_sent() -> None:
    sent: list[int] = []

    def on_window(index: int, value: float) -> bool:
        sent.append(index)
        return value < 10

    got = watch(
        windows=_turns([(0, 50.0)], [(1, 5.0), (2, 60.0)]),
        on_window=on_window,
        pruned=lambda: "pruned",
        stop=lambda: None,
        timed_out=lambda: "timed out",
        wait=lambda: None,
        started=time.monotonic(),
        timeout_s=60,
    )
    assert (got, sent) == ("pruned", [0, 1])


def test_a_ready_answer_wins_over_the_windows_of_its_turn() -> None:
    turns = iter([None, "reported"])
    got = watch(
        windows=_turns([], [(0, 1.0)]),
        on_window=lambda i, v: True,  # would prune, but the segment was already reported
        pruned=lambda: "pruned",
        stop=lambda: None,
        timed_out=lambda: "timed out",
        wait=lambda: None,
        started=time.monotonic(),
        timeout_s=60,
        ready=lambda: next(turns),
    )
    assert got == "reported"


def test_an_ending_comes_before_the_timeout_and_the_timeout_before_the_wait() -> None:
    waits: list[int] = []
    endings = iter([None, "exited"])
    common = {
        "windows": lambda: [],
        "on_window": None,
        "pruned": lambda: "pruned",
        "timed_out": lambda: "timed out",
        "wait": lambda: waits.append(1),
    }
    got = watch(**common, stop=lambda: next(endings), started=time.monotonic(), timeout_s=60)  # type: ignore[arg-type]
    assert (got, waits) == ("exited", [1])
    late = watch(**common, stop=lambda: None, started=time.monotonic() - 2, timeout_s=1)  # type: ignore[arg-type]
    assert (late, waits) == ("timed out", [1])
