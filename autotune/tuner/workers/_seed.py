"""Profiler-driven seeding: predict the worker count that hides loading from one probe.

The prediction (load time / step time) says what the step could use; ``machine_cap`` says
what the machine can hold: free cores for CPU-bound loaders, memory per worker against the
budget, and the open-file limit. The seed is the smaller of the two, with the bound that
decided it, so the first trials are not spent backing off from a count no machine can run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from autotune.contract import ProbeResult
from autotune.tuner.evidence import (
    CPU_BUSY,
    INPUT_BOUND_WAIT,
    load_time_per_batch,
    loader_cpu_per_s,
)

# Slack over the bare ratio: per-batch load times vary, and a queue that only just keeps
# up still stalls on slow batches.
MARGIN = 1.25

# File descriptors the main process holds per DataLoader worker: the worker's index queue
# (a pipe: 2), its process sentinel (1), and the shared-memory segments of the batches in
# flight (Linux's default `file_descriptor` sharing strategy passes each tensor storage as an
# fd: about 2 storages per batch x prefetch_factor 2 = 4), rounded up to 8 for larger
# prefetch and multi-tensor batches.
FDS_PER_WORKER = 8
# Descriptors the script needs for everything else: stdio, libraries, dataset files, logs.
RESERVED_FDS = 64
# Share of the memory left after the main process that workers may fill: a worker's memory
# grows with the batches it holds and the pages it dirties, and the page cache needs room.
MEM_HEADROOM = 0.8


@dataclass(frozen=True)
class MachineCap:
    """The most workers this machine can hold, and which bound says so (None: no bound)."""

    workers: int | None
    reason: str = ""


def free_cores(cpu_count: int) -> int:
    """Cores a CPU-bound loader can have: one is the training step's (on more than 2)."""
    return max(1, cpu_count - 1) if cpu_count > 2 else max(1, cpu_count)


def _gib(n: float) -> str:
    return f"{n / 2**30:.1f} GiB"


def machine_cap(
    *,
    cpu_count: int,
    cpu_bound: bool = False,
    worker_mem_bytes: int | None = None,
    mem_budget_bytes: int | None = None,
    main_mem_bytes: int = 0,
    nofile: int | None = None,
    fds_per_worker: int = FDS_PER_WORKER,
) -> MachineCap:
    """The tightest of the machine's bounds on the worker count, never below 1.

    - ``cpu_bound``: loaders that burn a core each get the free cores (``free_cores``).
    - memory: ``MEM_HEADROOM`` x (``mem_budget_bytes`` - ``main_mem_bytes``) /
      ``worker_mem_bytes``; a bound only when both the budget and the per-worker figure are
      known. The per-worker figure must be real cost (PSS, or the machine's used memory),
      not RSS: forked workers share the parent's pages.
    - open files: (``nofile`` - ``RESERVED_FDS``) // ``fds_per_worker``, ``nofile`` being
      the soft RLIMIT_NOFILE (``open_file_limit()``).

    For the search space, pass ``cpu_bound=False``: more workers than cores can still win a
    little (the cpu_bound benchmark), so cores bound the seed, not the range.
    """
    bounds: list[tuple[int, str]] = []
    if cpu_bound:
        bounds.append(
            (free_cores(cpu_count), f"free cores: {free_cores(cpu_count)} of {cpu_count}")
        )
    if worker_mem_bytes and worker_mem_bytes > 0 and mem_budget_bytes is not None:
        room = max(0.0, MEM_HEADROOM * (mem_budget_bytes - main_mem_bytes))
        bounds.append(
            (
                max(1, int(room // worker_mem_bytes)),
                f"memory: {_gib(mem_budget_bytes)} budget, {_gib(main_mem_bytes)} main process, "
                f"{_gib(worker_mem_bytes)} per worker",
            )
        )
    if nofile is not None and nofile > 0:
        bounds.append(
            (
                max(1, (nofile - RESERVED_FDS) // max(1, fds_per_worker)),
                f"open files: {nofile}",
            )
        )
    if not bounds:
        return MachineCap(None)
    workers, reason = min(bounds, key=lambda b: b[0])  # first listed wins a tie
    return MachineCap(workers, reason)


def open_file_limit() -> int | None:
    """The soft RLIMIT_NOFILE probes inherit; None where unlimited or unknown (Windows)."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not on POSIX
        return None
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    return None if soft == resource.RLIM_INFINITY or soft <= 0 else int(soft)


def worker_mem(tree_bytes: int | None, main_bytes: int | None, workers: int) -> int | None:
    """Memory one worker costs, from a probe with ``workers`` workers: (tree - main) / workers.

    ``tree_bytes`` must count shared pages once (PSS, or the machine's used memory); with
    RSS a forked worker counts the parent's pages again (13.8 GiB "used" for 0.8 GiB real).
    """
    if not workers or tree_bytes is None or main_bytes is None or tree_bytes <= main_bytes:
        return None
    return (tree_bytes - main_bytes) // workers


@dataclass(frozen=True)
class Seed:
    """The seeded worker count (None: the probe shows no input bottleneck)."""

    workers: int | None
    predicted: int | None  # what hiding the load needs, before the machine's bounds
    cap: MachineCap
    # Set when a stored answer gave ``workers`` (a warm start): how, in words.
    warm: str | None = None

    @property
    def capped(self) -> bool:
        # The machine's bound decided, not the search space's max_workers.
        return (
            self.predicted is not None
            and self.cap.workers is not None
            and self.workers == self.cap.workers < self.predicted
        )

    def note(self) -> str:
        if self.warm is not None:
            return self.warm
        if self.workers is None:
            return "no seed: the baseline shows no input bottleneck"
        if self.capped:
            return (
                f"seeded {self.workers} workers (capped by {self.cap.reason}; "
                f"{self.predicted} predicted to hide loading)"
            )
        return f"seeded {self.workers} workers predicted to hide loading"


def seed_workers(
    result: ProbeResult,
    *,
    max_workers: int,
    cpu_count: int = 1,
    ceiling: float | None = None,
    transport: float | None = None,
    worker_mem_bytes: int | None = None,
    mem_budget_bytes: int | None = None,
    main_mem_bytes: int = 0,
    nofile: int | None = None,
) -> Seed:
    """Workers needed so loading one batch per worker takes no longer than the step uses them.

    Each worker delivers one batch per load time L; the step consumes one per compute time C;
    so about L / C workers keep up. With a measured compute ceiling (samples/s with no data
    cost), C is the ceiling's step time when that is shorter: a step that waited for data
    often runs slower than one that did not (cold caches, idle thread pools), while a ceiling
    probe that read long was most likely unlucky on a busy machine (it is re-measured once a
    trial disproves it, often after the seed). With a measured transport ceiling (samples/s
    the loader's machinery delivers with zero-cost samples), C is never shorter than
    batch / transport: workers beyond that rate only queue. Then ``machine_cap`` bounds the
    count (free cores only when the probe shows CPU-bound loading), and ``max_workers`` (the
    search space) last.
    """
    if (result.data_wait_fraction or 0.0) < INPUT_BOUND_WAIT:
        return Seed(None, None, MachineCap(None))
    load = load_time_per_batch(result)
    compute = result.compute_per_batch_s
    if load is None or compute is None:
        return Seed(None, None, MachineCap(None))
    if result.batch_size and ceiling:
        compute = min(compute, result.batch_size / ceiling)
    if result.batch_size and transport:
        compute = max(compute, result.batch_size / transport)
    need = max_workers if compute <= 0 else math.ceil(MARGIN * load / compute)
    cpu = loader_cpu_per_s(result)
    cap = machine_cap(
        cpu_count=cpu_count,
        cpu_bound=cpu is not None and cpu >= CPU_BUSY,
        worker_mem_bytes=worker_mem_bytes,
        mem_budget_bytes=mem_budget_bytes,
        main_mem_bytes=main_mem_bytes,
        nofile=nofile,
    )
    predicted = max(1, need)
    workers = predicted if cap.workers is None else min(predicted, cap.workers)
    return Seed(max(1, min(max_workers, workers)), predicted, cap)
