"""The answer says why its recommendation is not the trial the search ranked first."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import optuna
from optuna.distributions import IntDistribution

from autotune import state
from autotune.contract import EpochFigures
from autotune.state import Confirmation, Contender, usable
from autotune.tuner import summarize
from autotune.tuner.evidence._recommendation import _knee, as_given
from autotune.tuner.evidence._trials import frozen_from_result
from tests.store.factory import DISTRIBUTIONS, close_storages, make_study, probe_result


def test_a_pick_that_re_measures_put_ahead_of_the_searchs_best_says_so(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'a.db'}"
    try:
        study = make_study(url, "s", trials=6, failures=0)
        measured = sorted(
            (t for t in study.trials if usable(t) and t.value is not None and t.number),
            key=lambda t: t.value or 0.0,
        )
        ranked, other = measured[-1], measured[-2]
        assert summarize(study, url).choice is None or "re-measured" not in str(
            summarize(study, url).choice
        )
        state.save_confirmation(
            study,
            Confirmation(
                winner=other.number,
                median=910.0,
                candidates=[
                    Contender(trial=other.number, median=910.0),
                    Contender(trial=ranked.number, median=870.0),
                ],
            ),
        )
        answer = summarize(study, url)
        assert answer.recommended is not None and answer.recommended.trial == other.number
        assert str(answer.choice).startswith(
            f"#{other.number} and #{ranked.number} re-measured afresh, interleaved: "
            f"#{other.number} ran 910 samples/s, #{ranked.number} 870; the search's own probes "
            f"had ranked #{ranked.number} first"
        )
    finally:
        close_storages()


def test_a_rate_from_one_window_states_no_interval(tmp_path: Path) -> None:
    # A script that ended after one window of the pick: [2,577-2,577] read as certainty.
    url = f"sqlite:///{tmp_path / 'a.db'}"
    try:
        study = make_study(url, "s", trials=3, failures=0)
        best = max((t for t in study.trials if t.number), key=lambda t: t.value or 0.0)
        for interval, stated in (([900.0, 900.0], None), ([880.0, 930.0], [880.0, 930.0])):
            state.save_confirmation(
                study,
                Confirmation(winner=best.number, median=900.0, ci95=interval),
            )
            answer = summarize(study, url)
            assert answer.recommended is not None and answer.recommended.ci95 == stated
    finally:
        close_storages()


def test_the_knee_says_each_count_against_the_pick_measured_alike() -> None:
    # 6 workers re-measured at 882 samples/s beside the baseline; 36 workers only probed in the
    # search, at 1,018, where 6 workers' own probe read 1,058: 36 ran 96% of 6, not 115%.
    study = optuna.create_study(direction="maximize")
    for workers, windows, role in (
        (0, [470.0, 472.0, 474.0], "baseline"),
        (6, [1056.0, 1058.0, 1060.0], "search"),
        (36, [1016.0, 1018.0, 1020.0], "search"),
    ):
        result = probe_result(random.Random(0), workers)
        result = replace(
            result,
            applied_config=replace(result.applied_config, persistent_workers=workers > 0),
            windows=windows,
            interference_cores=[0.05] * 3,
            samples_per_s=windows[1],
        )
        params = {"num_workers": workers, "pin_memory": False}
        wide = {**DISTRIBUTIONS, "num_workers": IntDistribution(0, 64)}
        study.add_trial(frozen_from_result(result, role, params, wide))  # type: ignore[arg-type]
    trials = study.get_trials()
    pick = trials[1]
    confirmation = Confirmation(
        winner=pick.number, median=882.0, candidates=[Contender(trial=pick.number, median=882.0)]
    )
    said = _knee(trials, pick, 882.0, confirmation)
    assert said is not None and "36 ran 96%" in said, said


def _measured(workers: int, role: str, rebuilt: bool) -> optuna.trial.FrozenTrial:
    result = probe_result(random.Random(0), workers)
    result = replace(
        result,
        applied_config=replace(result.applied_config, persistent_workers=workers > 0),
        epoch=EpochFigures(epoch_s=2.0, rebuilt=rebuilt, epoch_batches=64),
    )
    params = {"num_workers": workers, "pin_memory": False}
    return frozen_from_result(result, role, params, DISTRIBUTIONS)  # type: ignore[arg-type]


def test_a_loader_built_anew_every_epoch_is_given_no_persistent_workers() -> None:
    # Its workers start at every build, persistent or not: True there would keep nothing.
    for rebuilt, persistent in ((True, False), (False, True)):
        base, best = _measured(0, "baseline", rebuilt), _measured(4, "search", rebuilt)
        config, said = as_given(best, base)
        assert config.persistent_workers is persistent, (rebuilt, config)
        assert config.num_workers == 4 and config.prefetch_factor == 2
        assert ("builds its DataLoader anew every epoch" in said) is rebuilt, said
    # Seen by the baseline only (the pick's probe ended before an epoch did): the same.
    config, said = as_given(_measured(4, "search", False), _measured(0, "baseline", True))
    assert config.persistent_workers is False and said


def test_randomness_is_said_where_workers_take_over_loading_that_draws() -> None:
    from autotune.contract import MeasuredLoader
    from autotune.tuner.evidence._recommendation import randomness

    torch_draws = MeasuredLoader(dataset="Flipped", global_draws=["torch"])
    said = randomness(torch_draws, 0, 8)
    assert said is not None
    assert "torch's generator" in said and "with 8 workers" in said
    assert "dropout" in said and "the first epoch's order" in said
    numpy_draws = MeasuredLoader(dataset="Flipped", global_draws=["numpy", "random"])
    said = randomness(numpy_draws, 0, 3)
    assert said is not None and "numpy.random and Python's random" in said
    # torch's own generator untouched: the step's draws and the shuffles stay as written.
    assert "dropout" not in said and "the samples and their order do not" in said
    # Nothing moves: loading that draws nothing, a pick without workers, or workers as written.
    assert randomness(MeasuredLoader(dataset="Plain"), 0, 8) is None
    assert randomness(torch_draws, 0, 0) is None
    assert randomness(torch_draws, 2, 8) is None
    assert randomness(None, 0, 8) is None
