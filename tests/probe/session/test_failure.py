"""How a probe's script ended, in its own words: an exception with no message included."""

from __future__ import annotations

import pytest

from autotune.contract import TOO_FEW_SHARDS, LoaderConfig
from autotune.probe.session._failure import from_exception, short
from tests.conftest import SCRIPTS, probe


def test_short_is_the_type_and_the_first_line() -> None:
    assert short(ValueError("corrupt sample 3\nin worker 1")) == "ValueError: corrupt sample 3"
    assert short(ValueError("\ncorrupt sample 3")) == "ValueError: corrupt sample 3"
    assert len(short(ValueError("x" * 1000))) == 300


def test_an_exception_with_no_message_is_named_by_its_type() -> None:
    assert short(RuntimeError()) == "RuntimeError"
    assert short(RuntimeError("\n ")) == "RuntimeError"
    assert from_exception(AssertionError(), streams_applied=0) == ("crashed", "AssertionError")


def test_a_worker_without_a_shard_is_the_setting_s_failure_not_the_script_s() -> None:
    # WebDataset gives each worker whole shards and fails a worker that got none: four
    # workers over two shards is the trial's count at fault, said so, with the library's words.
    pytest.importorskip("webdataset", reason="webdataset is in the dev extra")
    script = str(SCRIPTS / "libraries" / "webdataset_train.py")
    result = probe(script, "--shards", "2", loader=LoaderConfig(num_workers=4), timeout_s=90)
    assert result.status == "crashed"
    assert result.reason.startswith(TOO_FEW_SHARDS), result.reason
    assert "fewer shards than workers" in result.reason
