"""The window pruner: a disjoint range after ``min_windows``, a wide gap after one."""

from __future__ import annotations

import optuna

from autotune.runner import Target
from autotune.tuner import StudyKey, Tuner, TunerOptions, open_study
from autotune.tuner.evidence._load import load_noise, steady_load
from autotune.tuner.policy._pruner import WindowPruner
from tests.tuner.fake_runner import FakeRunner


def _with_best(windows: list[float]) -> optuna.Study:
    study = optuna.create_study(direction="maximize", pruner=WindowPruner())
    study.add_trial(
        optuna.trial.create_trial(
            value=sum(windows) / len(windows),
            intermediate_values=dict(enumerate(windows)),
        )
    )
    return study


def _prunes(study: optuna.Study, windows: list[float]) -> bool:
    trial = study.ask()
    for step, value in enumerate(windows):
        trial.report(value, step)
    frozen = study.get_trials(deepcopy=False)[-1]
    return study.pruner.prune(study, frozen)


def test_one_window_far_below_the_best_is_enough() -> None:
    study = _with_best([1000.0, 980.0, 1010.0])
    assert _prunes(study, [600.0])  # 40% under the best's slowest window
    assert not _prunes(study, [800.0])  # 18% under: one window may be a noisy one


def test_after_two_windows_a_range_below_the_best_by_the_noise_margin_prunes() -> None:
    study = _with_best([1000.0, 980.0, 1010.0])
    assert _prunes(study, [800.0, 850.0])
    assert not _prunes(study, [800.0, 975.0])  # its fastest window reaches the best's range


def test_nothing_to_compare_with_prunes_nothing() -> None:
    study = optuna.create_study(direction="maximize", pruner=WindowPruner())
    assert not _prunes(study, [1.0, 1.0])


def _loaded_study(noise: float) -> optuna.Study:
    """A search run beside another process (1 core of 2 in every window), windows swinging
    by ``noise``."""
    storage = optuna.storages.RDBStorage("sqlite:///:memory:")
    study = open_study(storage, "s", StudyKey("train.py", (), {"id": "hw", "cpu_count": 2}))
    runner = FakeRunner(load_s=0.2, compute_s=0.005, noise=noise, load=lambda c: (1.5, 1.0))
    options = TunerOptions(trials=2, patience=3, confirm_top=0)
    Tuner(study, Target("train.py"), runner, options, cpu_count=2, cuda=False).run()
    return study


def test_under_a_steady_load_one_window_or_the_loads_own_noise_prunes_nothing() -> None:
    study = _loaded_study(noise=0.15)
    trials = study.get_trials(deepcopy=False)
    assert steady_load(trials) is not None
    noise = load_noise(trials)
    assert noise > 2 * 0.03
    best = max(
        (t for t in trials if t.value is not None and t.intermediate_values),
        key=lambda t: t.value or 0.0,
    )
    low = min(best.intermediate_values.values())
    # 40% under the best's slowest window: one window is no evidence under this load.
    assert not _prunes(study, [low * 0.6])
    # Two windows, below by less than the load's own noise: still none.
    assert not _prunes(study, [low * (1 - noise / 2), low * (1 - noise / 2)])
    # Two windows far below it: pruned.
    assert _prunes(study, [low * (1 - noise) * 0.5, low * (1 - noise) * 0.5])


def test_a_finished_trial_is_compared_by_its_charged_windows() -> None:
    from autotune import state
    from autotune.contract import EpochFigures, ProbeResult

    # Streamed at a steady 1,500 samples/s; its result charges the workers' restart at
    # every epoch: 90 samples/s.
    charged = ProbeResult(
        windows=[90.0, 92.0, 95.0],
        samples_per_s=92.0,
        epoch=EpochFigures(charged_startup_s=0.4, uncharged_windows=[1500.0, 1480.0, 1510.0]),
    )
    study = optuna.create_study(direction="maximize", pruner=WindowPruner())
    study.add_trial(
        optuna.trial.create_trial(
            value=92.0,
            intermediate_values={0: 1500.0, 1: 1480.0, 2: 1510.0},
            user_attrs=state.attrs_of(state.TrialRecord.of_result(charged, "search")),
        )
    )
    assert not _prunes(study, [420.0, 430.0])  # no workers: faster than 92 once charged
