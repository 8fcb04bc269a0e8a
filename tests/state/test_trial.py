"""A trial's figures as every face shows them (``autotune/state/_trial.py``), on real Optuna
studies."""

from __future__ import annotations

import optuna
from optuna.trial import TrialState

from autotune import state
from autotune.contract import ProbeResult


def _study() -> optuna.Study:
    return optuna.create_study(direction="maximize", storage=optuna.storages.InMemoryStorage())


def test_a_pruned_trial_shows_its_probe_s_figure_not_its_last_window() -> None:
    """The live line prints the pruned probe's median of its windows; `show` and the mirror
    read the same figure, where Optuna keeps the last window as the trial's value."""
    study = _study()
    trial = study.ask()
    for step, window in enumerate((2_900.0, 3_500.0)):
        trial.report(window, step)
    pruned = ProbeResult(status="pruned", samples_per_s=3_200.0, windows=[2_900.0, 3_500.0])
    state.write(trial, state.TrialRecord.of_result(pruned, "search"))
    study.tell(trial, state=TrialState.PRUNED)
    (frozen,) = study.get_trials(deepcopy=False)
    assert frozen.value == 3_500.0  # Optuna's own: the last window
    assert state.rate_of(frozen) == 3_200.0


def test_a_complete_trial_shows_its_told_value_and_a_running_one_none() -> None:
    study = _study()
    done = study.ask()
    state.write(done, state.TrialRecord.of_result(ProbeResult(samples_per_s=700.0), "search"))
    study.tell(done, 700.0)
    study.ask()  # still running: nothing measured yet
    complete, running = study.get_trials(deepcopy=False)
    assert state.rate_of(complete) == 700.0
    assert running.state == TrialState.RUNNING and state.rate_of(running) is None
