"""A started interpreter that has imported torch and the probe, and forks one probe per order.

An interpreter and ``import torch`` are most of a short probe's start-up, though neither is
the script's and neither changes between trials (measured: docs/benchmarks.md, "Time to an
answer: probes forked from a zygote"). This process pays for them once; each probe is a fork
of it, so the script starts from the same imported torch an exec'd probe would have built,
before the script's first line. Nothing torch starts lazily has started here: no CUDA
context (a forked CUDA context is unusable) and no intra-op thread pool (a forked pool's
threads are gone), so the child builds its own, as an exec'd probe does.

Run by the runner (``autotune/runner/_zygote.py``) as ``python -m autotune.probe._zygote``,
in a session of its own, dying with the runner (PR_SET_PDEATHSIG) and at the end of its
stdin. Orders come on stdin, one JSON object a line: ``argv`` (the script and its
arguments), ``env`` (the probe's whole environment), ``cwd`` and ``log`` (the file for the
probe's stdout and stderr). It answers on stdout, one JSON object a line: ``ready`` once
imported, ``pid`` for each fork, ``exit`` ([pid, code as Popen gives it]) as each ends.

The script's installed libraries (lightning, transformers, monai...) are a probe's other
fixed cost, and the same in every trial. A probe that ran to its end leaves the names of the
modules it imported from site-packages (``_imports``), written before its result is final
(the runner may end it at once after); between probes the zygote imports them too
(``_preload``), so later probes start with them loaded. The script's own modules are never
preloaded, nor anything on a CUDA build of torch (a library may start CUDA or read the
devices at import, and each probe sets its own). A preload that started CUDA or a Python
thread leaves a zygote no fork is safe from: it says ``tainted`` and exits, and the runner starts
the next zygote with ``PRELOAD_ENV`` = 0.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import select
import signal
import sys
import sysconfig
import threading
import traceback
from collections.abc import Iterable
from functools import partial
from typing import Any

# THREAD_ENVS: read by torch when this process imported it; a probe sets its threads through
# torch instead.
from autotune.contract import PRELOAD_ENV, THREAD_ENVS

# Beside a probe's log: the modules it imported from site-packages, one name a line.
IMPORTS_SUFFIX = ".imports"


def _die_with_parent() -> None:
    """SIGKILL this process when its parent dies (Linux only; elsewhere nothing)."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    parent = os.getppid()
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(137)


def _send(message: dict[str, Any]) -> None:
    os.write(1, (json.dumps(message) + "\n").encode())


def _exit_as_python_does(code: int) -> None:
    """What an interpreter does at exit and ``os._exit`` skips: join the script's
    non-daemon threads, run its ``atexit`` functions, flush what it printed."""
    import atexit

    me = threading.current_thread()
    for thread in threading.enumerate():
        if thread is not me and not thread.daemon:
            thread.join()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)


def _site_dirs() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    return tuple({os.path.join(paths[key], "") for key in ("purelib", "platlib")})


def _imports(before: Iterable[str]) -> list[str]:
    """Modules imported since ``before`` from site-packages, in import order: the script's
    libraries, never its own modules nor autotune's."""
    known, sites = set(before), _site_dirs()
    names = []
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if name in known or name.startswith("autotune") or not isinstance(path, str):
            continue
        if path.startswith(sites):
            names.append(name)
    return names


def _write_imports(log: str, before: Iterable[str]) -> None:
    with contextlib.suppress(OSError), open(log + IMPORTS_SUFFIX, "w", encoding="utf-8") as fh:
        fh.write("".join(f"{name}\n" for name in _imports(before)))


def _probe(order: dict[str, Any]) -> None:
    """In the forked child: become the probe ``order`` names, run it, and exit."""
    code = 1
    before = frozenset(sys.modules)
    try:
        os.setsid()  # a session of its own, as the runner starts an exec'd probe
        _die_with_parent()
        log = os.open(order["log"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(log, 1)
        os.dup2(log, 2)
        os.close(null)
        os.close(log)
        os.chdir(order["cwd"])
        env: dict[str, str] = order["env"]
        threads = next((env[name] for name in THREAD_ENVS if env.get(name)), None)
        os.environ.clear()
        os.environ.update(env)
        import torch

        if threads is not None and threads.isdigit() and int(threads) > 0:
            # torch read these at its import, in this process's parent: set them as it would.
            torch.set_num_threads(int(threads))
        from autotune.probe import main

        try:
            # Written before the result is final: the runner may end this process right after.
            code = main(list(order["argv"]), partial(_write_imports, order["log"], before))
        except SystemExit as exc:  # as the interpreter turns ``sys.exit(x)`` into a code
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        _exit_as_python_does(code)
    except BaseException:
        traceback.print_exc()
    finally:
        os._exit(code)


def _reap(logs: dict[int, str], wanted: list[str]) -> None:
    """Report each ended probe, and add the modules it left to ``wanted``."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        log = logs.pop(pid, None)
        if log is not None:
            with contextlib.suppress(OSError), open(log + IMPORTS_SUFFIX, encoding="utf-8") as f:
                wanted.extend(line.strip() for line in f if line.strip())
        _send({"exit": [pid, os.waitstatus_to_exitcode(status)]})


def _preload(names: list[str]) -> str | None:
    """Import ``names`` here (their output to nowhere: stdout is the runner's); why no fork
    is safe from this process any more, or None."""
    import torch

    threads = threading.active_count()
    sys.stdout.flush()
    saved, null = os.dup(1), os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    try:
        for name in names:
            if name not in sys.modules:
                with contextlib.suppress(Exception, SystemExit):
                    importlib.import_module(name)
    finally:
        with contextlib.suppress(OSError, ValueError):
            sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)
        os.close(null)
    if torch.cuda.is_initialized():  # type: ignore[no-untyped-call]
        return "a preloaded library started CUDA"
    if threading.active_count() > threads:
        # A Python thread would be gone in every fork. Native ones (a BLAS pool) are what a
        # DataLoader's own fork of the script meets after its imports too.
        return "a preloaded library started a Python thread"
    return None


def _preloads() -> bool:
    """Whether this zygote may preload the script's libraries."""
    import torch

    cuda_build = torch.version.cuda is not None or torch.version.hip is not None
    return os.environ.get(PRELOAD_ENV, "1") != "0" and not cuda_build


def serve() -> int:
    _die_with_parent()
    import torch  # the import every probe would pay: paid here, once

    import autotune.probe  # noqa: F401

    if torch.cuda.is_initialized():  # type: ignore[no-untyped-call]
        return 1  # a forked CUDA context is unusable: the runner execs its probes instead

    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_read, False)
    os.set_blocking(wake_write, False)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.set_wakeup_fd(wake_write)
    _send({"ready": True})
    pending = b""
    preloads = _preloads()
    logs: dict[int, str] = {}  # each running probe's log
    wanted: list[str] = []  # modules the ended probes imported, not preloaded yet
    while True:
        ready, _, _ = select.select([0, wake_read], [], [])
        if wake_read in ready:
            while True:
                try:
                    if not os.read(wake_read, 512):
                        break
                except BlockingIOError:
                    break
        _reap(logs, wanted)
        if wanted and not logs:  # between probes: nothing of a running one is touched
            names, wanted = wanted, []
            tainted = _preload(names) if preloads else None
            if tainted is not None:
                _send({"tainted": tainted})
                return 1
        if 0 not in ready:
            continue
        data = os.read(0, 65536)
        if not data:
            return 0  # the runner is done, or gone: its probes end with this process
        pending += data
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            order = json.loads(line)
            pid = os.fork()
            if pid == 0:
                signal.set_wakeup_fd(-1)
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                os.close(wake_read)
                os.close(wake_write)
                _probe(order)
            logs[pid] = order["log"]
            _send({"pid": pid})


if __name__ == "__main__":
    sys.exit(serve())
