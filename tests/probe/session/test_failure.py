"""How a probe's script ended, in its own words: an exception with no message included."""

from __future__ import annotations

from autotune.probe.session._failure import from_exception, short


def test_short_is_the_type_and_the_first_line() -> None:
    assert short(ValueError("corrupt sample 3\nin worker 1")) == "ValueError: corrupt sample 3"
    assert short(ValueError("\ncorrupt sample 3")) == "ValueError: corrupt sample 3"
    assert len(short(ValueError("x" * 1000))) == 300


def test_an_exception_with_no_message_is_named_by_its_type() -> None:
    assert short(RuntimeError()) == "RuntimeError"
    assert short(RuntimeError("\n ")) == "RuntimeError"
    assert from_exception(AssertionError(), streams_applied=0) == ("crashed", "AssertionError")
