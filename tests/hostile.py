"""A real `autotune probe` of tests/scripts/hostile_worker.py, whose DataLoader workers raise
errors full of text hostile to renderers; the tests of each face (terminal, --json, REST,
dashboard) read what it stored. The script is copied under a hostile file name and given a
hostile argument, so the study's name, script path and arguments are hostile too.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import MARK_ENV, SCRIPTS, assert_no_orphans, only_study_name

WORKER = "(in DataLoader worker process 0)"
# What the workers raise (tests/scripts/hostile_worker.py), as the reason must keep it:
# bytes that were not UTF-8 and NUL replaced by U+FFFD, everything else as it was.
FIRST = (
    "[bold]x[/] [/__w/a/pair.cc:553] <script>alert(1)</script> <img src=x onerror=alert(2)> "
    "\x1b[31mred\x1b[0m bytes:\ufffd\ufffd nul:\ufffd :x: "
)
LONG = "L" * 5000
MORE = "second <b>line</b> \x1b]0;title\x07\x1b[2J [red]not red[/red]"
REASON_CHARS = 300  # the probe keeps a reason's first 300 characters
REASON = f"ValueError: {FIRST}{LONG}"[: REASON_CHARS - len(WORKER) - 2] + "… " + WORKER
DATASET = "Samples[/__w/b/pair.cc:9]<i>x</i>"
ARG = "[bold]arg[/] <b>a</b> [/x]"
SCRIPT_NAME = "hostile [red]<i>x.py"
# Pieces with no space in them, so a table that wraps its cells keeps each on one line.
SHOWN_AS_IS = [
    "[bold]x[/]",
    "[/__w/a/pair.cc:553]",
    "<script>alert(1)</script>",
    "onerror=alert(2)>",
    ":x:",
]
FAST = ["--warmup", "0.2", "--window", "0.25", "--windows", "3", "--trial-timeout", "60"]


@dataclass(frozen=True)
class Probed:
    url: str
    study: str
    script: Path
    code: int
    out: str
    err: str


def autotune(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The installed command in a subprocess, its output read as a terminal would get it."""
    exe = shutil.which("autotune") or str(Path(sys.executable).with_name("autotune"))
    return subprocess.run(
        [exe, *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="strict",  # output that is not UTF-8 fails the test, not a later decode
        timeout=600,
        env=env or terminal_env(),
    )


def terminal_env(**extra: str) -> dict[str, str]:
    """No colour forced on, so any escape sequence in the output came from a script; wide
    enough that a table keeps short pieces on one line."""
    env = {k: v for k, v in os.environ.items() if k not in _FORCING}
    return {**env, "COLUMNS": "160", "LINES": "50", **extra}


_FORCING = ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "CLICOLOR_FORCE")


def probe_hostile(directory: Path, trials: int = 3) -> Probed:
    """A real probe of the hostile script; the search ends with the script as written."""
    script = directory / SCRIPT_NAME
    shutil.copy(SCRIPTS / "hostile_worker.py", script)
    url = f"sqlite:///{directory / 'hostile.db'}"
    mark = uuid.uuid4().hex
    done = autotune(
        "probe", str(script), "--storage", url, "--trials", str(trials), *FAST, "--", "--tag", ARG,
        env=terminal_env(**{MARK_ENV: mark}),
    )  # fmt: skip
    assert_no_orphans(mark)
    return Probed(url, only_study_name(url), script, done.returncode, done.stdout, done.stderr)
