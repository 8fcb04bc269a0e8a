"""The study's diagnosis: what the baseline shows, and what the search found past it."""

from __future__ import annotations

import optuna

from autotune.contract import LoaderConfig, ProbeResult
from autotune.tuner.evidence._trials import frozen_from_result
from autotune.tuner.policy._diagnosis import diagnose_study
from autotune.tuner.policy._machine import Machine
from autotune.tuner.policy._space import SearchSpace

SPACE = SearchSpace(max_workers=512)


def _add(study: optuna.Study, workers: int, windows: list[float], role: str = "seeded") -> None:
    config = LoaderConfig(num_workers=workers, prefetch_factor=2 if workers else None)
    result = ProbeResult(
        status="ok",
        samples_per_s=sorted(windows)[len(windows) // 2],
        windows=windows,
        applied_config=config,
        data_wait_fraction=0.9 if workers == 0 else 0.6,
        measured_wall_s=10.0,
        main_cpu_s=1.2,
        worker_cpu_s=0.05 * 10.0 * workers,
    )
    params = SPACE.params(config)
    study.add_trial(frozen_from_result(result, role, params, SPACE.distributions(params)))


def test_a_rate_that_stopped_growing_is_not_told_that_more_workers_help() -> None:
    # Storage that serves 6 requests at once: 6 workers reach it, 256 read bursty windows.
    study = optuna.create_study(direction="maximize")
    _add(study, 0, [111.0, 112.0, 111.0], role="baseline")
    _add(study, 256, [811.0, 520.0, 790.0, 640.0, 830.0])
    _add(study, 29, [771.0, 760.0, 745.0])
    _add(study, 6, [733.0, 720.0, 728.0])
    _add(study, 4, [481.0, 478.0, 484.0])
    diagnosis = diagnose_study(study, Machine(2))
    assert diagnosis is not None
    assert "latency-bound up to about 6 workers; 256 ran no faster" in diagnosis.summary


def test_a_rate_still_growing_keeps_the_advice_to_add_workers() -> None:
    study = optuna.create_study(direction="maximize")
    _add(study, 0, [111.0, 112.0, 111.0], role="baseline")
    _add(study, 8, [800.0, 805.0, 798.0])
    _add(study, 16, [1590.0, 1600.0, 1610.0])
    diagnosis = diagnose_study(study, Machine(2))
    assert diagnosis is not None
    assert "more workers help" in diagnosis.summary


def test_the_wait_said_is_named_as_the_script_s_or_the_fastest_run_s() -> None:
    # The best still waits (60%): its wait is said, named; a best that barely waits leaves
    # the baseline's (90%), said as written (held out: one study said its baseline's 61% and
    # another its best run's 34%, both as "each step waits").
    study = optuna.create_study(direction="maximize")
    _add(study, 0, [111.0, 112.0, 111.0], role="baseline")
    _add(study, 8, [800.0, 805.0, 798.0])
    diagnosis = diagnose_study(study, Machine(2))
    assert diagnosis is not None
    assert "60% of each step waits for data in the fastest run (#1)" in diagnosis.summary
    alone = optuna.create_study(direction="maximize")
    _add(alone, 0, [111.0, 112.0, 111.0], role="baseline")
    said = diagnose_study(alone, Machine(2))
    assert said is not None and "90% of each step waits for data as written" in said.summary
