"""CPU time the machine spent outside this process tree: other processes on a shared machine.

Another process on the cores moves a probe's rate by 2-10x, and nothing in the rate itself
says so. So at each window edge the probe reads the machine's busy time (``/proc/stat``:
user, nice, system, irq, softirq and steal; guest time is already inside user and nice) and
its own tree's CPU time (this process and every descendant, DataLoader workers included);
the machine's busy time less the tree's, over the window's wall time, is the cores something
else used during that window. Steal counts: on a VM it is another guest on our vCPUs.

The tree's CPU time counts live processes' own time plus the time of children they reaped
(``cutime``/``cstime``), so a worker that exits inside a window moves its seconds from its own
line to its parent's without being lost or counted twice.

Read at window edges only, never per batch: 0.05 ms a reading with no workers, 0.5 ms with 8.
Both sides are kernel tick counts, so a reading carries about one tick per core of error
(0.01 s of 1.5 s windows on 100 Hz ticks); a negative difference is that error, read as 0.
"""

from __future__ import annotations

import os
from time import perf_counter

from autotune.probe.machine import _procfs

try:
    import psutil
except ImportError:  # psutil is optional inside the user's process
    psutil = None  # type: ignore[assignment]

_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
# /proc/stat's "cpu" line: user nice system idle iowait irq softirq steal guest guest_nice.
_BUSY_FIELDS = (0, 1, 2, 5, 6, 7)
# A window shorter than this holds too few ticks to say anything.
MIN_WALL_S = 0.05


def machine_busy_s() -> float | None:
    """CPU seconds every core of the machine spent busy since boot; None where unknown."""
    try:
        with open("/proc/stat", "rb") as fh:
            first = fh.readline().split()
        return sum(int(first[1 + i]) for i in _BUSY_FIELDS) / _TICK
    except (OSError, IndexError, ValueError):
        pass  # no /proc/stat here: psutil's count of the same ticks
    if psutil is None:
        return None
    t = psutil.cpu_times()
    busy = ("user", "nice", "system", "irq", "softirq", "steal")
    return float(sum(getattr(t, name, 0.0) for name in busy))


def _own_and_reaped_s(pid: int) -> float | None:
    """One process's CPU seconds plus those of the children it reaped; None if gone."""
    if not _procfs.HAS_PROC:
        if psutil is None:
            return None
        try:
            t = psutil.Process(pid).cpu_times()
        except psutil.Error:
            return None
        return float(t.user + t.system + t.children_user + t.children_system)
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            raw = fh.read()
    except OSError:
        return None
    fields = raw[raw.rfind(b")") + 2 :].split()  # the name may hold spaces and parentheses
    try:
        return sum(int(fields[i]) for i in (11, 12, 13, 14)) / _TICK  # u, s, cu, cs time
    except (IndexError, ValueError):
        return None


def tree_cpu_s(pid: int) -> float:
    """CPU seconds of ``pid`` and all its descendants, the children they reaped included."""
    return sum(v for p in _procfs.tree(pid) if (v := _own_and_reaped_s(p)) is not None)


class OutsideCpu:
    """Cores used outside this process tree, window by window.

    Each call closes the span since the previous call and returns its outside cores; the
    first call (the first window's start) only marks, and returns None. None also where the
    machine's busy time cannot be read, or the span is too short to read.
    """

    def __init__(self, pid: int | None = None) -> None:
        self._pid = os.getpid() if pid is None else pid
        self._last: tuple[float, float, float] | None = None

    def _reading(self) -> tuple[float, float, float] | None:
        busy = machine_busy_s()
        if busy is None:
            return None
        return perf_counter(), busy, tree_cpu_s(self._pid)

    def __call__(self) -> float | None:
        now, before = self._reading(), self._last
        self._last = now
        if now is None or before is None or now[0] - before[0] < MIN_WALL_S:
            return None
        outside = (now[1] - before[1]) - (now[2] - before[2])
        return max(0.0, outside) / (now[0] - before[0])
