"""An exception in a few words: the one line of it that an error message quotes.

Standard library only: the probe (inside the user's process) and ``autotune.recommended``
use it as well as the store, the CLI and the API.
"""

from __future__ import annotations


def first_line(exc: BaseException, limit: int = 200) -> str:
    """The first non-blank line of ``exc``'s message, at most ``limit`` characters, or the
    exception's type name when the message has none (``KeyError()``, ``OSError("\\n")``).

    Never raises: it is called in ``except`` blocks whose whole point is to carry on,
    ``autotune.recommended`` among them, whose promise is that training never stops.
    """
    try:
        text = str(exc)
    except Exception:  # a broken __str__ must not replace the error being reported
        text = ""
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:limit]
    return type(exc).__name__
