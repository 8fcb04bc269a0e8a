"""Cheap readings of a process tree straight from Linux's /proc, with psutil as the fallback.

Why not psutil alone: ``Process.children(recursive=True)`` reads the ``stat`` file of every
process on the machine (1.8 ms with 90 processes, far more on a busy node), and
``memory_full_info()`` is the same ``smaps_rollup`` walk we do here plus other reads. A forked
DataLoader worker's RSS counts every page it shares copy-on-write with its parent, so the sum
of RSS over a tree is only an upper bound of what the tree costs the machine; the proportional
set size (PSS) charges each shared page to its sharers in equal parts, so the sum of PSS over
the tree counts pages shared inside the tree once.
"""

from __future__ import annotations

import os

try:
    import psutil
except ImportError:  # psutil is optional inside the user's process
    psutil = None  # type: ignore[assignment]

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _has_proc() -> bool:
    pid = os.getpid()
    return os.path.exists(f"/proc/{pid}/task/{pid}/children") and os.path.exists(
        f"/proc/{pid}/smaps_rollup"
    )


HAS_PROC = _has_proc()


def children(pid: int) -> list[int]:
    """Direct children of ``pid`` (forked by any of its threads)."""
    if not HAS_PROC:
        if psutil is None:
            return []
        try:
            return [c.pid for c in psutil.Process(pid).children()]
        except psutil.Error:
            return []
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as fh:
                found.extend(int(c) for c in fh.read().split())
        except OSError:
            continue  # a thread that just ended
    return found


def tree(pid: int) -> list[int]:
    """``pid`` and all its descendants."""
    out = [pid]
    i = 0
    while i < len(out):
        out.extend(children(out[i]))
        i += 1
    return out


def cpu_and_rss(pid: int) -> tuple[float, int] | None:
    """(CPU seconds, resident bytes) of one process from a single read; None if gone."""
    if not HAS_PROC:
        if psutil is None:
            return None
        try:
            proc = psutil.Process(pid)
            with proc.oneshot():
                times = proc.cpu_times()
                return times.user + times.system, proc.memory_info().rss
        except psutil.Error:
            return None
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            raw = fh.read()
    except OSError:
        return None
    # The command name may hold spaces and parentheses; the fields start after the last ')'.
    fields = raw[raw.rfind(b")") + 2 :].split()
    try:
        cpu = (int(fields[11]) + int(fields[12])) / _TICK  # utime, stime
        return cpu, int(fields[21]) * _PAGE  # rss in pages
    except (IndexError, ValueError):
        return None


def pss(pid: int) -> int | None:
    """Proportional set size of anonymous and shared-memory pages plus the process's own page
    tables, in bytes; None if gone.

    Page tables are the kernel's, not in any PSS, and a forked worker copies its parent's
    for every mapping it shares: 2 MiB per worker per GiB the parent holds, 0.27 GiB for 128
    workers of a probe on this project's machines, which the machine's used memory counts.

    File-backed pages (the libraries torch maps) are left out: they are page cache the kernel
    can drop, the machine's "used" memory does not count them, and their PSS share moves with
    how many unrelated processes map the same files. Kernels older than 5.x without the
    ``Pss_Anon`` line give the whole PSS.

    Reading ``smaps_rollup`` walks the process's page tables: about 14 ms for a forked worker
    of a process holding torch and 400 MB, so callers read it far less often than
    ``cpu_and_rss``.
    """
    if not HAS_PROC:
        if psutil is None:
            return None
        try:
            full = psutil.Process(pid).memory_full_info()
        except (psutil.Error, AttributeError):
            return None
        return int(getattr(full, "pss", 0) or full.rss)
    total = split = 0
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as fh:
            for line in fh:
                if line.startswith(b"Pss:"):
                    total = int(line.split()[1]) * 1024
                elif line.startswith((b"Pss_Anon:", b"Pss_Shmem:")):
                    split += int(line.split()[1]) * 1024
                    if line.startswith(b"Pss_Shmem:"):
                        break
    except (OSError, ValueError):
        return None
    found = split or total
    return found + _page_tables(pid) if found else None


def _page_tables(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status", "rb") as fh:
            for line in fh:
                if line.startswith(b"VmPTE:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0
