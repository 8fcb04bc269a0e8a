"""The range a search may try: lowered by a failure's cap, never past what can load."""

from __future__ import annotations

from typing import Any

import optuna

from autotune import state
from autotune.contract import LoaderConfig, ProbeResult
from autotune.tuner.evidence._trials import frozen_from_result
from autotune.tuner.policy import Machine, SearchSpace
from autotune.tuner.workers import capped, thread_choices


def test_a_failure_s_cap_lowers_the_range_and_never_raises_it() -> None:
    study = optuna.create_study(direction="maximize")
    space = SearchSpace(max_workers=32)
    assert capped(study, space) == space  # nothing failed, nothing bounds it
    state.cap_workers(study, 11)
    assert capped(study, space).max_workers == 11
    assert capped(study, SearchSpace(max_workers=8)).max_workers == 8


def _baseline(workers: int, *, main_cpu_s: float, worker_cpu_s: float, wait: float) -> Any:
    """The script as written over 10 s with ``workers`` and torch's 2 threads, on 2 cores."""
    result = ProbeResult(
        status="ok",
        samples_per_s=240.0,
        windows=[240.0] * 3,
        applied_config=LoaderConfig(num_workers=workers),
        data_wait_fraction=wait,
        measured_wall_s=10.0,
        main_cpu_s=main_cpu_s,
        worker_cpu_s=worker_cpu_s,
        torch_threads=2,
        cpu_count=2,
    )
    space = SearchSpace(max_workers=8)
    params = space.params(result.applied_config)
    return frozen_from_result(result, "baseline", params, space.distributions(params))


def test_torch_s_threads_are_tried_where_the_loading_takes_a_core_from_them() -> None:
    machine = Machine(cpu_count=2)
    # Two workers decoding images keep a core busy (10 CPU-s in 10 s): the 2-thread step
    # shares the other core's time with them, so 1 thread is worth a probe.
    decoding = _baseline(2, main_cpu_s=12.0, worker_cpu_s=10.0, wait=0.1)
    assert thread_choices(decoding, machine) == (1, None)
    # No workers, but loading that burns a core in the main process: workers will take it.
    serial = _baseline(0, main_cpu_s=9.5, worker_cpu_s=0.0, wait=0.8)
    assert thread_choices(serial, machine) == (1, None)
    # Loading that waits on storage takes no core: torch keeps its threads.
    waiting = _baseline(0, main_cpu_s=2.2, worker_cpu_s=0.0, wait=0.8)
    assert thread_choices(waiting, machine) == ()
    sleeping = _baseline(2, main_cpu_s=2.0, worker_cpu_s=0.8, wait=0.6)
    assert thread_choices(sleeping, machine) == ()
