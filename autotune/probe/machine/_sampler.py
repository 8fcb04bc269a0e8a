"""Background sampling of the process tree: CPU time, host memory, and the host-memory budget.

Host memory is the tree's proportional set size (PSS): pages that forked DataLoader workers
share copy-on-write with the parent are counted once, as the machine pays for them, where
figures built on RSS count them once per worker, many times the cost of a wide tree.

PSS is exact but dear: ``smaps_rollup`` walks page tables, a cost paid for each forked worker
and growing with the parent's memory (measured: docs/benchmarks.md, "Host memory of the
process tree"). So:

- every tick reads the cheap RSS and CPU time of each process (one ``stat`` read each);
- a *partial* PSS reading reads the parent and ``PARTIAL_K`` workers, the stalest first;
  workers not read yet count as the mean PSS of those read (forked workers run the same
  code on the same dataset), and each process read before counts its last PSS plus any
  growth of its RSS since, so the figure can only err high between readings;
- partial readings come at a slow rate, and whenever the figure crosses the budget; a
  process is killed for the budget only after a *full* PSS reading of every process agrees.

Each kind of reading stretches its own interval to stay under ``DUTY`` of one core.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable

from autotune.probe.machine import _procfs

# Share of one core each kind of reading (cheap RSS/CPU, partial PSS) may use; 0.8% in all.
DUTY = 0.004
# Partial PSS readings at most this often even when they are cheap.
EXACT_MIN_INTERVAL_S = 1.0
# Workers read in one partial PSS reading.
PARTIAL_K = 2


class TreeSampler:
    """Samples this process and its descendants (DataLoader workers included)."""

    def __init__(
        self,
        interval_s: float,
        max_host_mem_bytes: int | None = None,
        on_over_budget: Callable[[int], None] | None = None,
        *,
        kill: bool = True,
    ) -> None:
        self.interval_s = interval_s
        self.max_host_mem_bytes = max_host_mem_bytes
        self._on_over_budget = on_over_budget
        self.peak_host_mem = 0  # the largest figure right after a PSS reading, bytes
        self.cpu_s = 0.0  # CPU time this sampler itself used, in any thread
        self.exact_readings = 0
        self._pid = os.getpid()
        self._tripped = False
        # False (a live run): over the budget only calls back, once until ``rearm``.
        self._kill = kill
        self._child_cpu: dict[int, float] = {}
        self._rss: dict[int, int] = {}  # pid -> RSS at the last tick
        self._pss: dict[int, tuple[int, int, float]] = {}  # pid -> (PSS, RSS then, when)
        self._next_exact = 0.0
        self._wait_s = interval_s
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        # The runner made us a group leader; if it dies (SIGKILL, power loss) nobody else
        # would stop this probe and its DataLoader workers.
        self._parent = os.getppid() if os.getpgrp() == os.getpid() else None

    def rearm(self) -> None:
        """Call back again the next time the tree is over the budget (a live run's next
        settings); the peak starts afresh."""
        self._tripped = False
        self.peak_host_mem = 0

    def start(self) -> None:
        """Start sampling; again after ``stop`` too (a live run whose search reopened)."""
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, name="autotune-sampler", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)

    def _loop(self) -> None:
        while not self._stop.wait(self._wait_s):
            if self._parent is not None and os.getppid() != self._parent:
                kill_own_group()
            self.sample()

    def sample(self, *, exact: bool = False) -> int:
        """One reading; returns the tree's host memory in bytes (shared pages counted once).

        ``exact`` forces a partial PSS reading (do not call it inside a window).
        """
        t0 = time.thread_time()
        budget = self.max_host_mem_bytes
        with self._lock:
            rss: dict[int, int] = {}
            for pid in _procfs.tree(self._pid):
                reading = _procfs.cpu_and_rss(pid)
                if reading is None:
                    continue  # a worker that just exited
                if pid != self._pid:
                    self._child_cpu[pid] = reading[0]
                rss[pid] = reading[1]
            self._rss = rss
            self._pss = {pid: v for pid, v in self._pss.items() if pid in rss}
            self._wait_s = max(self.interval_s, (time.thread_time() - t0) / DUTY)
            figure = self._figure()
            over = budget is not None and figure > budget
            if exact or over or time.monotonic() >= self._next_exact:
                figure = self._read_pss(PARTIAL_K)
                if budget is not None and figure > budget:
                    figure = self._read_pss(len(rss))  # confirm before killing anything
            self.cpu_s += time.thread_time() - t0
        if budget is not None and figure > budget and not self._tripped:
            # Writing the result samples the tree again; that nested reading must not kill
            # the probe before the result is on disk.
            self._tripped = True
            if self._on_over_budget is not None:
                self._on_over_budget(figure)
            if self._kill:
                kill_own_group()
        return figure

    def _figure(self) -> int:
        read = [(p, v) for p, v in self._pss.items() if p != self._pid]
        mean = sum(v[0] for _, v in read) // len(read) if read else None
        total = 0
        for pid, now in self._rss.items():
            if pid in self._pss:
                pss, then, _ = self._pss[pid]
                total += pss + max(0, now - then)
            else:
                total += now if mean is None or pid == self._pid else min(now, mean)
        return total

    def _read_pss(self, k: int) -> int:
        t0 = time.thread_time()
        workers = sorted(
            (p for p in self._rss if p != self._pid),
            key=lambda p: self._pss[p][2] if p in self._pss else -1.0,
        )
        now = time.monotonic()
        for pid in [self._pid, *workers[:k]]:
            value = _procfs.pss(pid)
            if value is not None:
                self._pss[pid] = (value, self._rss[pid], now)
        cost = time.thread_time() - t0
        self._next_exact = time.monotonic() + max(EXACT_MIN_INTERVAL_S, cost / DUTY)
        self.exact_readings += 1
        figure = self._figure()
        self.peak_host_mem = max(self.peak_host_mem, figure)
        return figure

    def cpu_snapshot(self, *, exact: bool = False) -> tuple[float, float]:
        """(main-process CPU seconds, CPU seconds of all workers seen so far)."""
        self.sample(exact=exact)
        main = _procfs.cpu_and_rss(self._pid)
        with self._lock:
            workers = sum(self._child_cpu.values())
        return (main[0] if main else 0.0), workers


def kill_own_group() -> None:
    """Kill this probe and its workers; only when the runner made us a group leader.

    Killing the group of a process started from a shell would take the shell with it.
    """
    if os.getpgrp() == os.getpid():
        os.killpg(os.getpgrp(), signal.SIGKILL)
    os._exit(137)
