"""An exception in a few words: the one line of it that an error message quotes; and text
from a script made safe to keep (``storable``) and to show on a terminal (``visible``).

Standard library only: the probe (inside the user's process) and ``autotune.recommended``
use it as well as the store, the CLI and the API.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# torch's ExceptionWrapper.reraise: "Caught ValueError in DataLoader worker process 0.\n
# Original Traceback (most recent call last):\n ...". The worker's own error ends the text.
_CAUGHT = re.compile(
    r"Caught (?P<kind>\S+) (?P<where>in [^\n]+?)\.?[ \t]*\nOriginal (?P<tb>.*)", re.S
)
_TRACEBACK_HEAD = "Traceback (most recent call last):"
_EXCEPTION_LINE = re.compile(r"(?P<kind>[A-Za-z_][\w.]*)(?:: (?P<message>.*))?\Z", re.S)

# Characters a terminal acts on rather than shows: C0 and C1 controls (ESC starts colour and
# cursor sequences; the C1 CSI, U+009B, starts them on some terminals alone) and DEL.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_CONTROL_BUT_LINES = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# Lone surrogates: bytes that were not UTF-8, decoded with "surrogateescape" (file names,
# os.environ); no UTF-8 writer, database or terminal takes them.
_SURROGATE = re.compile(r"[\ud800-\udfff]")
_UNSTORABLE = re.compile(r"[\x00\ud800-\udfff]")
_ESCAPES = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


@dataclass(frozen=True)
class Caught:
    """An error torch caught in another process or thread and raised again in this one."""

    kind: str  # the original's type name, e.g. "ValueError"
    message: str  # the original's message, every line
    where: str  # "in DataLoader worker process 0", "in pin memory thread for device 0"


def caught_elsewhere(exc: BaseException) -> Caught | None:
    """The original error inside torch's re-raised one, or None when ``exc`` is not one.

    torch re-raises a DataLoader worker's error in the main process with the message
    "Caught X in DataLoader worker process N." and the worker's own traceback after it; the
    worker's error is the last exception of that traceback, after its indented frames.
    """
    match = _CAUGHT.match(_message(exc).lstrip("\n"))
    if match is None:
        return None
    text = match["tb"]
    start = text.rfind(_TRACEBACK_HEAD)  # the last one: the error raised, not its causes
    if start < 0:
        return None
    lines = text[start + len(_TRACEBACK_HEAD) :].split("\n")
    at = next((i for i, line in enumerate(lines) if line.strip() and line[:1] not in " \t"), None)
    if at is None:
        return None
    own = _EXCEPTION_LINE.match("\n".join(lines[at:]).rstrip("\n"))
    if own is None:
        return None
    # A type's module is left out, as ``type(exc).__name__`` names a type everywhere else.
    kind = own["kind"].rsplit(".", 1)[-1]
    return Caught(kind=kind, message=own["message"] or "", where=match["where"])


def first_line(exc: BaseException, limit: int = 200) -> str:
    """The first non-blank line of ``exc``'s message, at most ``limit`` characters, or the
    exception's type name when the message has none (``KeyError()``, ``OSError("\\n")``).

    An error torch re-raised from a DataLoader worker is quoted by the worker's own words,
    with the worker named: "corrupt sample 3 (in DataLoader worker process 0)".

    Never raises: it is called in ``except`` blocks whose whole point is to carry on,
    ``autotune.recommended`` among them, whose promise is that training never stops.
    """
    try:
        caught = caught_elsewhere(exc)
    except Exception:  # the error being reported matters more than how it is quoted
        caught = None
    if caught is not None:
        where = f" ({caught.where})"
        line = _first_of(caught.message) or caught.kind
        return clip(line, max(1, limit - len(where))) + where
    return (_first_of(_message(exc)) or type(exc).__name__)[:limit]


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, the cut marked with an ellipsis."""
    return text if len(text) <= limit else text[: max(0, limit - 1)] + "…"


def storable(text: str) -> str:
    """``text`` with what no database or JSON writer takes replaced by U+FFFD: lone
    surrogates (bytes that were not UTF-8) and NUL (PostgreSQL's text refuses it)."""
    return _UNSTORABLE.sub("\ufffd", text)


def visible(text: str, *, lines: bool = False) -> str:
    """``text`` with every character a terminal would act on written out as an escape
    (``\\x1b``, ``\\n``), so text from a script can neither colour, move nor clear a
    terminal. ``lines``: newlines and tabs are kept, for text of several lines."""
    control = _CONTROL_BUT_LINES if lines else _CONTROL
    text = control.sub(lambda m: _ESCAPES.get(m[0], f"\\x{ord(m[0]):02x}"), text)
    return _SURROGATE.sub(lambda m: f"\\u{ord(m[0]):04x}", text)


def _message(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception:  # a broken __str__ must not replace the error being reported
        return ""


def _first_of(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")
