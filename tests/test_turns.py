"""The suite's own turns at the machine (``tests/turns.py``), with a real second process
asking for the lock as another xdist worker would."""

from __future__ import annotations

import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import turns

ASK = """
import fcntl, sys
with open(sys.argv[1], "a") as machine:
    try:
        fcntl.flock(machine, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        print("busy")
    else:
        print("free")
"""


def _other_worker_finds(machine: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-c", ASK, str(machine)], capture_output=True, text=True, timeout=60
    )
    return done.stdout.strip()


@pytest.fixture
def run_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """A run of its own: its lock files apart from the suite's. A lock this test left kept
    is let go after it, so no later test of this worker takes it for the suite's."""
    monkeypatch.setenv("PYTEST_XDIST_TESTRUNUID", uuid.uuid4().hex)
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")
    monkeypatch.setattr(turns.tempfile, "gettempdir", lambda: str(tmp_path))
    folder = turns._folder()
    assert folder is not None
    try:
        yield folder / "machine"
    finally:
        turns._release_held()


def test_an_alone_test_kept_for_the_next_alone_one_holds_the_machine_between_them(
    run_folder: Path,
) -> None:
    with turns.turn(True, keep=True):
        assert _other_worker_finds(run_folder) == "busy"
    # Between the two alone tests: no other worker's test can start.
    assert _other_worker_finds(run_folder) == "busy"
    with turns.turn(True):
        assert _other_worker_finds(run_folder) == "busy"
    assert _other_worker_finds(run_folder) == "free"
    assert turns._Held.machine is None


def test_a_shared_turn_lets_other_workers_share(run_folder: Path) -> None:
    with turns.turn(False):
        assert _other_worker_finds(run_folder) == "free"
    with turns.turn(True):
        assert _other_worker_finds(run_folder) == "busy"
    assert _other_worker_finds(run_folder) == "free"
