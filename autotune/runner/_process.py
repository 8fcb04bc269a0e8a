"""What a runner needs of a probe process: kill its group, read its windows and its log."""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path

from autotune.contract import ProgressLine

_TAIL_LINES = 15


def tail_of(path: Path, lines: int = _TAIL_LINES) -> str:
    try:
        with path.open("rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - 16384))
            text = fh.read().decode("utf-8", "replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


def kill_group(pgid: int, sig: int = signal.SIGKILL) -> None:
    """Signal a whole process group; DataLoader workers included."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def last_error_line(tail: str) -> str:
    for line in reversed(tail.splitlines()):
        stripped = line.strip()
        if stripped and not stripped.startswith(("File ", "^", "~")):
            return stripped[:300]
    return ""


class Progress:
    """Reads the lines the probe appends as it measures (``ProgressLine``): its windows, and
    at the end the exit code it reports once its result is final."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.windows: list[float] = []
        self.exit_code: int | None = None  # set once the probe says it is done
        self._offset = 0

    @property
    def done(self) -> bool:
        return self.exit_code is not None

    def poll(self) -> list[tuple[int, float]]:
        """The windows closed since the last poll."""
        try:
            with self.path.open("r", encoding="utf-8") as fh:
                fh.seek(self._offset)
                chunk = fh.read()
        except FileNotFoundError:
            return []
        complete = chunk[: chunk.rfind("\n") + 1]
        self._offset += len(complete.encode("utf-8"))
        new = []
        for text in complete.splitlines():
            line = ProgressLine.from_json(text)
            if line.done:
                self.exit_code = line.exit_code
            elif line.window is not None and line.samples_per_s is not None:
                self.windows.append(line.samples_per_s)
                new.append((line.window, line.samples_per_s))
        return new
