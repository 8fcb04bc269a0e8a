"""What a search passes before each trial: nothing when it probes alone, a turn at the machine
when several joining processes search one study.

Optuna's RDB storage is their queue: each asks, probes and tells; heartbeats fail the trial
of a process that died and queue its settings again. One probe at a time per machine,
because two probes on one machine measure each other.
"""

from __future__ import annotations

import fcntl
import os
import tempfile
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Protocol

import optuna
from optuna.trial import TrialState

from autotune.state import counted
from autotune.tuner.loop._heartbeat import fail_stale_trials

# Containers on one host each have their own /tmp: point AUTOTUNE_LOCK at a shared file there.
LOCK_PATH = Path(
    os.environ.get("AUTOTUNE_LOCK") or Path(tempfile.gettempdir()) / "autotune-probe.lock"
)


class Gate(Protocol):
    def turn(self) -> AbstractContextManager[bool]:
        """Held around one step of the search; says whether a trial may start now."""

    def wait(self) -> None:
        """Between turns that could not start a trial."""

    def settled(self) -> bool:
        """No trial of the search runs anywhere: the leaders may be re-measured."""


@contextmanager
def machine_lock(path: Path = LOCK_PATH) -> Iterator[None]:
    """Held around each probe: the kernel frees it when its process dies, even by SIGKILL."""
    with path.open("a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


class Alone:
    """`autotune probe`: the only search of its study, so every turn may start a trial."""

    @contextmanager
    def turn(self) -> Iterator[bool]:
        yield True

    def wait(self) -> None:
        raise AssertionError("a search alone never waits")

    def settled(self) -> bool:
        return True  # its own trials are done; a RUNNING one is a dead process's, not a rival


class MachineTurn:
    """`autotune join`: a turn holds the machine's probe lock, and starts a trial only while
    the budget has room for it: running trials hold budget too, so processes on several
    machines do not overshoot it."""

    def __init__(
        self, study: optuna.Study, trials: int, *, lock_path: Path = LOCK_PATH, poll_s: float = 1.0
    ) -> None:
        self.study = study
        self.trials = trials
        self.lock_path = lock_path
        self.poll_s = poll_s

    @contextmanager
    def turn(self) -> Iterator[bool]:
        # A process that died holds its trial RUNNING, and so the budget's last slot, until its
        # heartbeat is found stale: look before counting, or the others wait for it forever.
        fail_stale_trials(self.study)
        with machine_lock(self.lock_path):
            all_trials = self.study.get_trials(deepcopy=False)
            done = len(counted(all_trials))
            running = sum(1 for t in all_trials if t.state == TrialState.RUNNING)
            waiting = any(t.state == TrialState.WAITING for t in all_trials)
            yield waiting or done + running < self.trials

    def wait(self) -> None:
        time.sleep(self.poll_s)  # the last trials run elsewhere; wait for them or their retry

    def settled(self) -> bool:
        fail_stale_trials(self.study)  # as in turn(): a dead process's trial is not running
        running = self.study.get_trials(deepcopy=False, states=(TrialState.RUNNING,))
        return not running
