"""The progress file: one JSON line per closed window (the runner prunes on it), then the
last line that says the result is final."""

from __future__ import annotations

from collections.abc import Callable

from autotune.contract import ProgressLine


def append_progress(path: str, line: ProgressLine) -> None:
    """One line of the progress file (``ProgressLine``); nothing when there is none."""
    if path:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(line.to_json() + "\n")


def progress_writer(path: str) -> Callable[[int, float], None]:
    """Appends one line per closed window, so the runner can prune mid-trial."""
    return lambda index, value: append_progress(path, ProgressLine(index, value))
