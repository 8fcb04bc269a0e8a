"""The ceilings under noise: what may drop the compute ceiling, and what an unknown one means."""

from __future__ import annotations

from typing import Any

import optuna

from autotune import state
from autotune.contract import LoaderConfig, ProbeResult, TrialConfig
from autotune.runner import Target
from autotune.state import Ceiling
from autotune.tuner import StudyKey, Tuner, TunerOptions, open_study, summarize
from autotune.tuner.evidence._ceiling import (
    bound_for,
    ceiling_suspect,
    ceiling_windows,
    measure_ceiling,
    missing,
)
from tests.tuner.fake_runner import FakeRunner

HW = {"id": "test-hw", "cpu_count": 2}


def trial(number: int, windows: list[float], cores: list[float] | None) -> optuna.trial.FrozenTrial:
    result = ProbeResult(windows=windows, cpu_count=2, data_wait_fraction=0.05)
    if cores is not None:
        result.interference_cores = cores
    t = state.new_trial(
        state.TrialRecord(role="search", status="ok", result=result),
        optuna.trial.TrialState.COMPLETE,
        sorted(windows)[len(windows) // 2],
        {},
        {},
        dict(enumerate(windows)),
    )
    t.number = number
    return t


def test_disturbed_windows_never_disprove_the_compute_ceiling() -> None:
    ceiling = [200.0] * 3
    assert "trial #1" in (ceiling_suspect([trial(1, [300.0] * 3, None)], ceiling) or "")
    assert "trial #1" in (ceiling_suspect([trial(1, [300.0] * 3, [0.0] * 3)], ceiling) or "")
    assert ceiling_suspect([trial(1, [300.0] * 3, [1.0] * 3)], ceiling) is None
    # Two quiet windows of three still run faster: that is evidence.
    mixed = trial(1, [300.0, 310.0, 305.0], [0.0, 1.0, 0.1])
    assert "trial #1" in (ceiling_suspect([mixed], ceiling) or "")
    # Its quiet windows are the slow ones: what beat the ceiling was the disturbed one.
    noisy = trial(1, [190.0, 900.0, 195.0], [0.0, 1.0, 0.0])
    assert ceiling_suspect([noisy], ceiling) is None


def _study(ceiling: dict[str, Any]) -> Ceiling:
    return Ceiling.from_dict(ceiling)


def test_no_ceiling_binds_while_the_compute_ceiling_is_unknown() -> None:
    transport = {"transport_by_workers": {"0": 400.0, "2": 900.0}}
    known = _study({"samples_per_s": 1000.0, "windows": [1000.0] * 3, **transport})
    assert bound_for(known, 2, 2) == (900.0, "transport")
    assert bound_for(known, 0, 2) == (400.0, "transport")
    slow_compute = _study({"samples_per_s": 300.0, "windows": [300.0] * 3, **transport})
    assert bound_for(slow_compute, 2, 2) == (300.0, "compute")
    dropped = _study(
        {"samples_per_s": None, "windows": [], "status": "unreliable: ...", **transport}
    )
    assert bound_for(dropped, 2, 2) == (None, None)
    assert bound_for(_study({}), 2, 2) == (None, None)


def test_a_compute_ceiling_measured_under_interference_bounds_nothing() -> None:
    record = {"samples_per_s": 300.0, "windows": [300.0, 310.0, 290.0], "cpu_count": 2}
    readings = {"interference_limits": [0.5] * 3, "transport_by_workers": {"2": 900.0}}
    busy = _study({**record, **readings, "interference_cores": [1.2, 1.0, 0.1]})
    assert bound_for(busy, 2, 2) == (None, None)
    assert ceiling_windows(busy) == []  # nor does it stop the search
    quiet = _study({**record, **readings, "interference_cores": [0.0, 1.0, 0.1]})
    assert bound_for(quiet, 2, 2) == (300.0, "compute")
    assert ceiling_windows(quiet) == record["windows"]


def _tuner(runner: FakeRunner) -> Tuner:
    storage = optuna.storages.RDBStorage("sqlite:///:memory:")
    study = open_study(storage, "s", StudyKey("train.py", (), HW), seed=1)
    options = TunerOptions(trials=6, patience=3)
    return Tuner(study, Target("train.py"), runner, options, cpu_count=2, cuda=False)


class FasterThanTheCeiling(FakeRunner):
    """Configs with workers run five times what the step allows: only noise, or a wrong
    ceiling, does that. ``busy``: another process used a core during their windows."""

    def __init__(self, busy: bool) -> None:
        super().__init__(load_s=0.2, compute_s=0.005, after=self.readings)
        self.busy = busy

    def rate(self, config: LoaderConfig, *, ceiling: bool = False) -> float:
        rate = super().rate(config, ceiling=ceiling)
        return rate * 5 if config.num_workers and not ceiling else rate

    def readings(self, config: TrialConfig, res: ProbeResult) -> ProbeResult:
        res.transport_by_workers = {"0": 5000.0, "2": 20000.0}
        busy = self.busy and bool(res.applied_config.num_workers)
        res.interference_cores = [1.0 if busy else 0.0] * len(res.windows)
        res.ceiling_interference_cores = [0.0] * len(res.ceiling_windows)
        return res


def test_a_ceiling_beaten_only_under_interference_stands() -> None:
    runner = FasterThanTheCeiling(busy=True)
    tuner = _tuner(runner)
    tuner.run()
    ceiling = state.load(tuner.study).ceiling
    assert ceiling is not None
    assert [c.mode for c in runner.calls].count("ceiling") == 0  # not even re-measured
    assert ceiling.samples_per_s and not ceiling.remeasured
    # But the answer ran past it: no efficiency is stated against it.
    summary = summarize(tuner.study, "mem").to_dict()
    assert summary["recommended"]["samples_per_s"] > 1.1 * ceiling.samples_per_s
    assert summary["efficiency"] is None and summary["binding_ceiling"] is None


def test_a_ceiling_beaten_in_quiet_windows_is_dropped_and_nothing_binds() -> None:
    runner = FasterThanTheCeiling(busy=False)
    tuner = _tuner(runner)
    tuner.run()
    ceiling = state.load(tuner.study).ceiling
    assert ceiling is not None and ceiling.remeasured is True
    assert ceiling.samples_per_s is None
    assert ceiling.status is not None and ceiling.status.startswith("unreliable")
    summary = summarize(tuner.study, "mem").to_dict()
    # The transport ceiling is known, but the compute one could be lower: no efficiency.
    assert summary["transport_ceiling_samples_per_s"] is not None
    assert summary["efficiency"] is None and summary["binding_ceiling"] is None


def test_a_ceiling_probe_that_failed_says_why_even_with_no_reason_of_its_own() -> None:
    study = optuna.create_study(direction="maximize")
    notes: list[str] = []
    crashed = ProbeResult(
        status="crashed", exit_code=1, stderr_tail="loading...\nValueError: bad batch\n"
    )

    def probe(config: LoaderConfig, mode: str) -> ProbeResult:
        assert mode == "ceiling"
        return crashed

    measure_ceiling(study, probe, notes.append)  # type: ignore[arg-type]
    assert missing(state.load(study).ceiling) == {
        "compute": "crashed: ValueError: bad batch",
        "transport": "the ceiling probe ended first (crashed: ValueError: bad batch)",
    }
    assert "  no compute ceiling: crashed: ValueError: bad batch" in notes
    # Killed with no output at all: the exit code is what there is to say.
    study = optuna.create_study(direction="maximize")
    crashed = ProbeResult(status="crashed", exit_code=-9)
    measure_ceiling(study, probe, notes.append)  # type: ignore[arg-type]
    assert missing(state.load(study).ceiling)["compute"] == "crashed: exit code -9, no output"
