"""The window pruner: a disjoint range after ``min_windows``, a wide gap after one."""

from __future__ import annotations

import optuna

from autotune.tuner._pruner import WindowPruner


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
