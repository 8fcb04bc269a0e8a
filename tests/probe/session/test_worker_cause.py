"""A DataLoader worker's error is recorded in its own words, with the worker named: not as
torch's wrapper line, "Caught ValueError in DataLoader worker process 0."."""

from __future__ import annotations

import sys

import pytest
from torch._utils import ExceptionWrapper

from autotune._words import caught_elsewhere, first_line
from autotune.probe.session._failure import from_exception, short
from tests.conftest import probe

WORKER = "in DataLoader worker process 0"


def _reraised(exc: BaseException, where: str = WORKER) -> BaseException:
    """``exc`` as torch raises it in the main process: through its own ExceptionWrapper."""
    try:
        raise exc
    except BaseException:
        wrapper = ExceptionWrapper(sys.exc_info(), where=where)
    try:
        wrapper.reraise()
    except BaseException as again:
        return again
    raise AssertionError("reraise did not raise")


class _TwoArgs(Exception):
    def __init__(self, code: int, text: str) -> None:
        super().__init__(code, text)


def test_a_worker_error_is_its_own_type_and_message_and_names_the_worker() -> None:
    wrapped = _reraised(ValueError("bad sample [x.py:12]\nsecond line"))
    assert str(wrapped).startswith("Caught ValueError in DataLoader worker process 0.")
    assert short(wrapped) == f"ValueError: bad sample [x.py:12] ({WORKER})"
    assert first_line(wrapped) == f"bad sample [x.py:12] ({WORKER})"
    assert from_exception(wrapped, streams_applied=0) == ("crashed", short(wrapped))


def test_a_type_torch_cannot_rebuild_is_still_named() -> None:
    # torch raises a RuntimeError for it; the worker's type is in the traceback it carries.
    wrapped = _reraised(_TwoArgs(3, "disk on fire"))
    assert type(wrapped) is RuntimeError
    assert short(wrapped) == f"_TwoArgs: (3, 'disk on fire') ({WORKER})"


@pytest.mark.parametrize(
    ("exc", "expected"),
    [
        (KeyError("label"), "KeyError: 'label'"),
        (ValueError(), "ValueError"),
        (OSError(5, "I/O error"), "OSError: [Errno 5] I/O error"),
    ],
)
def test_worker_errors_of_every_shape(exc: BaseException, expected: str) -> None:
    assert short(_reraised(exc)) == f"{expected} ({WORKER})"


def test_a_chained_worker_error_is_the_one_raised_last() -> None:
    try:
        try:
            raise OSError("cannot open /data/3.jpg")
        except OSError as cause:
            raise ValueError("sample 3 unreadable") from cause
    except ValueError as exc:
        wrapped = _reraised(exc)
    assert short(wrapped) == f"ValueError: sample 3 unreadable ({WORKER})"


def test_the_pin_memory_thread_is_named_too() -> None:
    wrapped = _reraised(RuntimeError("pin failed"), where="in pin memory thread for device 0")
    assert short(wrapped) == "RuntimeError: pin failed (in pin memory thread for device 0)"


def test_a_long_worker_message_keeps_the_worker_and_the_limit() -> None:
    reason = short(_reraised(ValueError("x" * 5000)))
    assert len(reason) == 300
    assert reason.endswith(f"x… ({WORKER})")


def test_text_that_cannot_be_stored_is_replaced() -> None:
    reason = short(_reraised(ValueError("name \udcff\udcfe nul \x00 end")))
    assert reason == f"ValueError: name \ufffd\ufffd nul \ufffd end ({WORKER})"
    reason.encode("utf-8")  # no lone surrogate left


def test_an_ordinary_error_is_not_read_as_a_worker_one() -> None:
    exc = ValueError("Caught ValueError in my own code.\nnot a traceback")
    assert caught_elsewhere(exc) is None
    assert short(exc) == "ValueError: Caught ValueError in my own code."


def test_a_real_probe_records_the_workers_own_error() -> None:
    res = probe("crash_in_worker.py", "--workers", "2")
    assert res.status == "crashed"
    assert res.reason == f"ValueError: corrupt sample 20 ({WORKER})"
