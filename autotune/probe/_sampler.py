"""Background sampling of the process tree: CPU time, peak RSS, and the host-memory budget.

Runs in a daemon thread at a low rate so it costs the measured script almost nothing.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable

try:
    import psutil
except ImportError:  # psutil is optional inside the user's process
    psutil = None  # type: ignore[assignment]


class TreeSampler:
    """Samples this process and its descendants (DataLoader workers included)."""

    def __init__(
        self,
        interval_s: float,
        max_rss_bytes: int | None = None,
        on_over_budget: Callable[[int], None] | None = None,
    ) -> None:
        self.interval_s = interval_s
        self.max_rss_bytes = max_rss_bytes
        self._on_over_budget = on_over_budget
        self.peak_rss = 0
        self._tripped = False
        self._child_cpu: dict[int, float] = {}
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._proc = psutil.Process() if psutil is not None else None
        # The runner made us a group leader; if it dies (SIGKILL, power loss) nobody else
        # would stop this probe and its DataLoader workers.
        self._parent = os.getppid() if os.getpgrp() == os.getpid() else None

    @property
    def available(self) -> bool:
        return self._proc is not None

    def start(self) -> None:
        if self._proc is None:
            return
        self._thread = threading.Thread(target=self._loop, name="autotune-sampler", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)

    def _loop(self) -> None:
        while not self._stop.wait(self.interval_s):
            if self._parent is not None and os.getppid() != self._parent:
                kill_own_group()
            self.sample()

    def sample(self) -> int:
        """One reading; returns the tree's current RSS."""
        proc = self._proc
        if proc is None:
            return 0
        try:
            rss = proc.memory_info().rss
            children = proc.children(recursive=True)
        except psutil.Error:
            return 0
        cpu: dict[int, float] = {}
        for child in children:
            try:
                with child.oneshot():
                    mem = child.memory_info()
                    # Forked workers share the parent's pages; count what is their own.
                    rss += max(0, mem.rss - getattr(mem, "shared", 0))
                    times = child.cpu_times()
                cpu[child.pid] = times.user + times.system
            except psutil.Error:
                continue  # a worker that just exited
        with self._lock:
            self._child_cpu.update(cpu)
            self.peak_rss = max(self.peak_rss, rss)
        if self.max_rss_bytes is not None and rss > self.max_rss_bytes and not self._tripped:
            # Writing the result samples the tree again; that nested reading must not kill
            # the probe before the result is on disk.
            self._tripped = True
            if self._on_over_budget is not None:
                self._on_over_budget(rss)
            kill_own_group()
        return rss

    def cpu_snapshot(self) -> tuple[float, float]:
        """(main-process CPU seconds, CPU seconds of all workers seen so far)."""
        if self._proc is None:
            return 0.0, 0.0
        self.sample()
        main = self._proc.cpu_times()
        with self._lock:
            workers = sum(self._child_cpu.values())
        return main.user + main.system, workers


def kill_own_group() -> None:
    """Kill this probe and its workers; only when the runner made us a group leader.

    Killing the group of a process started from a shell would take the shell with it.
    """
    if os.getpgrp() == os.getpid():
        os.killpg(os.getpgrp(), signal.SIGKILL)
    os._exit(137)
