"""One lifecycle for every process autotune starts: a probe's (each process in a session of its
own) and a live run's (in autotune's own process group, so that Ctrl-C reaches the training as
it would from a terminal).

A ``ProcessTree`` starts its roots with a token in their environment. Every process they
start inherits it (a forked DataLoader worker shares its parent's environment byte for byte),
so the tree is: the roots, every process carrying the token, the roots' own process groups
where they lead one, and every descendant of any of these. Ending it SIGKILLs all of them
until none is left; a process that left its group (``setsid``) or was reparented to init
when its parent died is still found by its token.

The probe already asks the kernel for SIGKILL when its runner dies (PR_SET_PDEATHSIG, in
``autotune/probe/__main__.py``), but that signal is cleared by fork: the DataLoader workers
never had it. They were reparented to init, and torch's watchdog (a worker checks its parent
between two indices) cannot free a worker blocked in a sample or in its exit, behind a result
pipe nobody reads: 8 of ~100 workers were still alive 32 s after `kill -9` of `autotune
probe`. So each tree has a watcher that needs nothing of the user's process: this file, run
by the interpreter on its own (standard library only, in a session of its own), blocked on
the read end of a pipe whose write end only autotune holds. However autotune dies, the
kernel closes that end and the watcher reads EOF. A probe's tree is then ended at once. A
live run's tree is the user's training: the watcher writes the run's last order (its own
settings, for the rest of the run), waits for the training to end, ends what is left of the
tree and removes the run's folder. A tree that ends while autotune lives tells its watcher,
which exits, and autotune reaps it: no watcher outlives its tree.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # run as a file by the watcher: no autotune import at run time
    from autotune.runner._zygote import Child, Zygote

# Carried by every process of a tree; the value names the tree.
TREE_ENV = "AUTOTUNE_TREE"
# How long ending a tree keeps finding and killing its processes before it gives up.
KILL_DEADLINE_S = 10.0
# How long a released watcher may take to exit before it is killed.
RELEASE_S = 5.0
# An orphaned watcher without pidfd support: how often it looks whether the training ended.
ROOT_POLL_S = 0.25
_KILL_POLL_S = 0.02
_SELF = os.path.abspath(__file__)  # run by path: no package import, so no autotune import
_KILL = "kill"  # the watcher's mode for a probe: its tree ends with autotune
_OUTLIVE = "outlive"  # for a live run: its tree is left to end by itself


@dataclass(frozen=True)
class Stat:
    """What ``/proc/PID/stat`` says of one process."""

    pid: int
    ppid: int
    pgid: int
    sid: int
    start: int  # clock ticks after boot: with the pid, names one process for good
    live: bool  # neither a zombie nor dead


def stat_of(pid: int) -> Stat | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    # The command name (field 2) may hold spaces and parentheses: fields follow the last ')'.
    rest = data[data.rfind(b")") + 2 :].split()
    try:
        return Stat(
            pid=pid,
            ppid=int(rest[1]),
            pgid=int(rest[2]),
            sid=int(rest[3]),
            start=int(rest[19]),
            live=rest[0] not in (b"Z", b"X", b"x"),
        )
    except (IndexError, ValueError):
        return None


def _live_processes() -> dict[int, Stat]:
    found = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return {}
    for name in names:
        if name.isdigit():
            stat = stat_of(int(name))
            if stat is not None and stat.live:
                found[stat.pid] = stat
    return found


def _carries(pid: int, needle: bytes) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as fh:
            return needle in b"\0" + fh.read()
    except OSError:  # gone, or another user's
        return False


def _needle(token: str) -> bytes:
    return f"\0{TREE_ENV}={token}\0".encode()


def tree_pids(token: str, roots: Mapping[int, int], *, groups: bool) -> set[int]:
    """The live processes of the tree ``token`` started from ``roots`` (pid: start ticks):
    each root still the process it was, with ``groups`` every member of a root's process
    group or session, every process carrying the token, and all their descendants."""
    procs = _live_processes()
    me = os.getpid()
    since = min(roots.values()) if roots else 0  # nothing of the tree is older than a root
    needle = _needle(token)
    found = set()
    for pid, stat in procs.items():
        if pid == me:
            continue
        if (
            roots.get(pid) == stat.start
            or (groups and (stat.pgid in roots or stat.sid in roots))
            or (stat.start >= since and _carries(pid, needle))
        ):
            found.add(pid)
    children: dict[int, list[int]] = {}
    for stat in procs.values():
        children.setdefault(stat.ppid, []).append(stat.pid)
    todo = list(found)
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in found and child != me:
                found.add(child)
                todo.append(child)
    return found


def end_tree(
    token: str, roots: Mapping[int, int], *, groups: bool, deadline_s: float = KILL_DEADLINE_S
) -> set[int]:
    """SIGKILL every process of the tree until none is left; those still alive at the
    deadline (none, unless a process cannot be killed)."""
    if groups:
        for pid in roots:  # first the groups whole: a process forking now cannot slip out
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)
    end = time.monotonic() + deadline_s
    while True:
        left = tree_pids(token, roots, groups=groups)
        if not left or time.monotonic() > end:
            return left
        for pid in left:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(_KILL_POLL_S)


class ProcessTree:
    """The processes autotune starts for one probe or one live run, and all they start.

    ``own_sessions``: each root leads a session (and process group) of its own, which is
    signalled whole (a probe, away from the terminal's Ctrl-C). Otherwise the roots stay in
    autotune's group, where a terminal's signals reach them (a live run), and only the roots
    themselves are sent SIGTERM. ``outlive``: should autotune die, the tree runs to its end
    (the user's training) rather than being killed; then ``folder`` is removed.
    """

    def __init__(
        self,
        *,
        own_sessions: bool,
        outlive: bool = False,
        folder: Path | None = None,
        python: str = sys.executable,
    ) -> None:
        self.own_sessions = own_sessions
        self.token = uuid.uuid4().hex
        self.roots: list[Child] = []
        self._starts: dict[int, int] = {}
        read, self._pipe = os.pipe()
        os.set_blocking(self._pipe, False)  # autotune never waits on its guard
        mode = _OUTLIVE if outlive else _KILL
        try:
            # Its own session: neither the terminal's Ctrl-C nor a kill of the tree's groups
            # reaches it. It holds nothing autotune's callers wait on (stdout, stderr).
            self.watcher: subprocess.Popen[bytes] = subprocess.Popen(
                [python, "-I", "-S", _SELF, str(read), mode, self.token, str(folder or "")],
                pass_fds=(read,),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        except BaseException:
            os.close(self._pipe)
            raise
        finally:
            os.close(read)
        self._closed = False

    def __enter__(self) -> ProcessTree:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def start(
        self, cmd: Sequence[str], *, env: Mapping[str, str], **popen: Any
    ) -> subprocess.Popen[bytes]:
        """Start a root of the tree (``popen``: what else ``subprocess.Popen`` is given)."""
        proc: subprocess.Popen[bytes] = subprocess.Popen(
            list(cmd),
            env={**env, TREE_ENV: self.token},
            start_new_session=self.own_sessions,
            **popen,
        )
        self._adopt(proc)
        return proc

    def fork(
        self, zygote: Zygote, argv: Sequence[str], env: Mapping[str, str], log: Path
    ) -> Child | None:
        """Start a root forked by ``zygote`` (``argv``: the script and its arguments, its
        output to ``log``); None if the zygote is gone, so the caller starts it itself."""
        proc = zygote.spawn(argv, {**env, TREE_ENV: self.token}, log)
        if proc is not None:
            self._adopt(proc)
        return proc

    def _adopt(self, proc: Child) -> None:
        stat = stat_of(proc.pid)  # not reaped yet: there even if it already exited
        self._starts[proc.pid] = stat.start if stat is not None else 0
        self.roots.append(proc)
        self._tell({"root": [proc.pid, self._starts[proc.pid]]})

    def will(self, paths: Sequence[Path], text: str) -> None:
        """Should autotune die, the watcher writes ``text`` to the first of ``paths`` that
        does not exist (none: nothing is written)."""
        self._tell({"will": [[str(p) for p in paths], text]})

    def pids(self) -> set[int]:
        """Every live process of the tree."""
        return tree_pids(self.token, self._starts, groups=self.own_sessions)

    def terminate(self, grace_s: float) -> None:
        """SIGTERM (each root's whole group, with ``own_sessions``), so that a script that
        handles it can clean up; its roots are waited for up to ``grace_s``. ``kill`` ends
        what is left."""
        for proc in self.roots:
            if self.own_sessions:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(proc.pid, signal.SIGTERM)
            elif proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + grace_s
        for proc in self.roots:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=max(0.0, deadline - time.monotonic()))

    def ended(self, proc: Child) -> bool:
        """Whether the root ``proc`` has exited (reaped or not: nothing is reaped here)."""
        return not _same(proc.pid, self._starts.get(proc.pid, 0))

    def kill(self) -> set[int]:
        """SIGKILL the whole tree; what could not be killed (nothing, normally)."""
        return end_tree(self.token, self._starts, groups=self.own_sessions)

    def close(self) -> None:
        """The tree is over: its watcher is told and reaped."""
        if self._closed:
            return
        self._closed = True
        self._tell({"release": True})
        os.close(self._pipe)
        try:
            self.watcher.wait(timeout=RELEASE_S)
        except subprocess.TimeoutExpired:
            self.watcher.kill()
            self.watcher.wait()

    def _tell(self, message: dict[str, Any]) -> None:
        with contextlib.suppress(OSError):  # a watcher that died cannot be told anything
            os.write(self._pipe, (json.dumps(message) + "\n").encode())


# --- the watcher: this file run on its own -------------------------------------------------


def _messages(fd: int) -> Iterator[dict[str, Any]]:
    """What autotune tells, until the pipe reaches EOF (autotune is gone)."""
    buffer = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except InterruptedError:
            continue
        if not chunk:
            return
        buffer += chunk
        *lines, buffer = buffer.split(b"\n")
        for line in lines:
            with contextlib.suppress(ValueError):
                yield json.loads(line)


def _write_will(paths: list[str], text: str) -> None:
    for path in paths:
        if not os.path.exists(path):
            tmp = f"{path}.will"
            with open(tmp, "w", encoding="utf-8") as fh:
                fh.write(text)
            os.replace(tmp, path)  # readers never see half a file
            return


def _same(pid: int, start: int) -> bool:
    stat = stat_of(pid)
    return stat is not None and stat.live and stat.start == start


def _wait_for_end(pid: int, start: int) -> None:
    """Until the process ``pid`` that started at ``start`` has ended."""
    fd = None
    with contextlib.suppress(OSError, AttributeError):
        fd = os.pidfd_open(pid)
    try:
        if fd is not None and _same(pid, start):  # the pidfd is that process's
            select.select([fd], [], [])
            return
        while _same(pid, start):
            time.sleep(ROOT_POLL_S)
    finally:
        if fd is not None:
            os.close(fd)


def _unknown_roots(token: str) -> dict[int, int]:
    """The tree's roots when autotune died before saying which: processes carrying the
    token whose parent does not."""
    procs = _live_processes()
    needle = _needle(token)
    carriers = {pid for pid in procs if _carries(pid, needle)}
    return {pid: procs[pid].start for pid in carriers if procs[pid].ppid not in carriers}


def watch(fd: int, mode: str, token: str, folder: str) -> None:
    """The watcher: returns when told (the tree is autotune's to end), or at EOF, once the
    tree is ended (and for a live run, once it ended by itself)."""
    roots: dict[int, int] = {}
    will: list[Any] | None = None
    for message in _messages(fd):
        if message.get("release"):
            return
        if "root" in message:
            pid, start = message["root"]
            roots[int(pid)] = int(start)
        if "will" in message:
            will = message["will"]
    if mode == _OUTLIVE:
        if will:
            with contextlib.suppress(OSError):
                _write_will(will[0], will[1])
        for pid, start in (roots or _unknown_roots(token)).items():
            _wait_for_end(pid, start)
    end_tree(token, roots, groups=mode == _KILL)
    if folder:
        shutil.rmtree(folder, ignore_errors=True)


def _main(argv: list[str]) -> int:
    # A session of its own already keeps the terminal's signals away; a stray one must not
    # end the guard either.
    for sig in (signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)
    fd, mode, token, folder = int(argv[0]), argv[1], argv[2], argv[3]
    watch(fd, mode, token, folder)
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
