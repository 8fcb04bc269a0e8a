"""first_line: an exception's message in one line, whatever the message is."""

from __future__ import annotations

import pytest

from autotune._words import first_line


class _Unprintable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no words")


@pytest.mark.parametrize(
    ("exc", "expected"),
    [
        (ValueError("bad value"), "bad value"),
        (ValueError("first\nsecond"), "first"),
        (OSError("\n\n  disk full  \nmore"), "disk full"),
        (RuntimeError(""), "RuntimeError"),
        (RuntimeError("\n"), "RuntimeError"),
        (RuntimeError(" \t\n  \n"), "RuntimeError"),
        (KeyboardInterrupt(), "KeyboardInterrupt"),
        (_Unprintable("hidden"), "_Unprintable"),
    ],
)
def test_the_first_line_with_words_or_the_type(exc: BaseException, expected: str) -> None:
    assert first_line(exc) == expected


def test_long_lines_are_cut_at_the_limit() -> None:
    assert first_line(ValueError("x" * 500)) == "x" * 200
    assert first_line(ValueError("x" * 500), limit=10) == "x" * 10
