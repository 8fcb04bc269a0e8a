"""Reading trials: which one already measured a config."""

from __future__ import annotations

import optuna

from autotune.contract import LoaderConfig, ProbeResult
from autotune.tuner.evidence import duplicate_of, frozen_from_result
from autotune.tuner.policy import SearchSpace

SPACE = SearchSpace(max_workers=8)


def _measured(study: optuna.Study, asked: LoaderConfig, loaded: LoaderConfig, told: str) -> None:
    result = ProbeResult(
        status="ok",
        applied_config=loaded,
        windows=[100.0, 101.0],
        samples_per_s=100.0,
        not_applied=told,
    )
    params = SPACE.params(asked)
    study.add_trial(frozen_from_result(result, "seeded", params, SPACE.distributions(params)))


def _config(workers: int, prefetch: int) -> LoaderConfig:
    return LoaderConfig(num_workers=workers, prefetch_factor=prefetch, persistent_workers=False)


def test_a_setting_the_loader_keeps_makes_other_values_of_it_the_same_load() -> None:
    """fastai's loader fixes prefetch_factor in its class: a trial that asked for 4 was told
    so (``not_applied``) and measured 2; asking for 8 is that same load again."""
    study = optuna.create_study(direction="maximize")
    _measured(study, _config(4, 4), _config(4, 2), "prefetch_factor=4 not applied: kept")
    trials = study.get_trials(deepcopy=False)
    assert duplicate_of(trials, _config(4, 8)) == 0
    assert duplicate_of(trials, _config(8, 8)) is None  # another worker count is another load


def test_without_being_told_a_different_setting_is_a_different_load() -> None:
    study = optuna.create_study(direction="maximize")
    _measured(study, _config(4, 4), _config(4, 4), "")
    trials = study.get_trials(deepcopy=False)
    assert duplicate_of(trials, _config(4, 4)) == 0
    assert duplicate_of(trials, _config(4, 8)) is None
