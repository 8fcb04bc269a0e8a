"""The runner's end of the probe zygote (``autotune/probe/_zygote.py``): one started
interpreter, torch imported, that forks each probe instead of a fresh ``python`` importing
torch again.

A forked probe is the zygote's child, not the runner's, so it comes back as a ``Forked``:
what the runner uses of ``subprocess.Popen`` (``pid``, ``poll``, ``wait``, ``send_signal``,
``kill``, ``returncode``), its exit read from the zygote's reports. Everything else about
the probe is as for an exec'd one: its own session, its log file, its tree's token in its
environment (``ProcessTree.fork``).

The zygote serves one environment: orders whose environment differs from the one it was
started with in anything but ``PER_PROBE`` (read after the fork, or set through torch) get a
new zygote. ``AUTOTUNE_ZYGOTE=0`` turns it off: every probe is exec'd. A zygote whose
preloaded libraries made forking unsafe says so (``tainted``) and exits; the zygotes after it
preload nothing.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import time
import weakref
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Protocol

from autotune.contract import CONFIG_ENV, PRELOAD_ENV, THREAD_ENVS
from autotune.runner._lifecycle import TREE_ENV

# Set it to 0 to exec every probe, as before the zygote.
ZYGOTE_ENV = "AUTOTUNE_ZYGOTE"
# How long the zygote may take to import torch before probes are exec'd instead.
READY_S = 120.0
# Read by each probe after the fork, or applied by the zygote through torch's own call: they
# may differ between probes of one zygote. The tree's token names each probe's tree.
PER_PROBE = frozenset({CONFIG_ENV, TREE_ENV, "CUDA_VISIBLE_DEVICES", *THREAD_ENVS})


class Child(Protocol):
    """What a process tree uses of a root it started (``_lifecycle.py``): ``subprocess.Popen``,
    or a probe the zygote forked (``Forked``)."""

    pid: int
    returncode: int | None

    def poll(self) -> int | None: ...

    def wait(self, timeout: float | None = None) -> int: ...

    def send_signal(self, sig: int) -> None: ...


def zygote_wanted() -> bool:
    return os.environ.get(ZYGOTE_ENV, "1") != "0"


class Forked:
    """A probe forked by the zygote, seen as ``subprocess.Popen`` sees its child."""

    def __init__(self, zygote: Zygote, pid: int) -> None:
        self.pid = pid
        self.returncode: int | None = None
        self._zygote = zygote

    def poll(self) -> int | None:
        if self.returncode is None:
            self._zygote.pump(0.0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.returncode is None:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise subprocess.TimeoutExpired(f"probe {self.pid}", timeout or 0.0)
            self._zygote.pump(left)
        return self.returncode

    def send_signal(self, sig: int) -> None:
        if self.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(self.pid, sig)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


class Zygote:
    """One started ``python -m autotune.probe._zygote`` and the probes it forked."""

    def __init__(self, python: str, env: Mapping[str, str], *, preload: bool = True) -> None:
        self.env = _served(env)
        # Why its preloaded libraries made forking unsafe, once it said so (then it exits).
        self.tainted: str | None = None
        self._proc = subprocess.Popen(
            [python, "-m", "autotune.probe._zygote"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={**env, PRELOAD_ENV: "1" if preload else "0"},
            start_new_session=True,  # neither the terminal's Ctrl-C nor a probe's kill
        )
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._in = self._proc.stdin
        self._out = self._proc.stdout.fileno()
        self._pending = b""
        self._children: dict[int, Forked] = {}
        self._ready = False
        self._gone = False
        self._new: list[int] = []
        # Not closed by its owner: ended when collected, so no zygote outlives its runner.
        self._finalizer = weakref.finalize(self, _end, self._proc)

    def serves(self, env: Mapping[str, str]) -> bool:
        return not self._gone and _served(env) == self.env

    def start(self) -> bool:
        """Wait until torch is imported; False if the zygote could not get there."""
        deadline = time.monotonic() + READY_S
        while not self._ready and not self._gone:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            self.pump(left)
        return self._ready and not self._gone

    def spawn(self, argv: Sequence[str], env: Mapping[str, str], log: Path) -> Forked | None:
        """Fork a probe of ``argv`` (the script and its arguments); None if the zygote is
        gone, so the caller execs the probe instead."""
        order = {"argv": list(argv), "env": dict(env), "cwd": os.getcwd(), "log": str(log)}
        try:
            self._in.write((json.dumps(order) + "\n").encode())
            self._in.flush()
        except OSError:
            self._gone = True
            return None
        while not self._new and not self._gone:
            self.pump(None)
        if not self._new:
            return None
        forked = Forked(self, self._new.pop(0))
        self._children[forked.pid] = forked
        return forked

    def pump(self, timeout: float | None) -> None:
        """Read what the zygote said, waiting up to ``timeout`` (None: until it says
        something) for the first line."""
        if self._gone:
            return
        ready, _, _ = select.select([self._out], [], [], timeout)
        if not ready:
            return
        data = os.read(self._out, 65536)
        if not data:
            self._lost()
            return
        self._pending += data
        while b"\n" in self._pending:
            line, self._pending = self._pending.split(b"\n", 1)
            message = json.loads(line)
            if "ready" in message:
                self._ready = True
            elif "tainted" in message:
                self.tainted = str(message["tainted"])
            elif "pid" in message:
                self._new.append(int(message["pid"]))
            elif "exit" in message:
                pid, code = message["exit"]
                child = self._children.pop(int(pid), None)
                if child is not None:
                    child.returncode = int(code)

    def close(self) -> None:
        self._finalizer()

    def _lost(self) -> None:
        """The zygote died: its probes died with it (PR_SET_PDEATHSIG)."""
        self._gone = True
        for child in self._children.values():
            if child.returncode is None:
                child.returncode = -signal.SIGKILL
        self._children.clear()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._proc.wait(timeout=5.0)


def _served(env: Mapping[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if k not in PER_PROBE}


def _end(proc: subprocess.Popen[bytes]) -> None:
    """Close its orders (it exits at their end), then make sure of it."""
    with contextlib.suppress(OSError):
        if proc.stdin is not None:
            proc.stdin.close()
    try:
        proc.wait(timeout=5.0)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    if proc.stdout is not None:
        proc.stdout.close()
