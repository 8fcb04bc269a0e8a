"""The script's length: learned from probes that saw the script end, handed to later ones."""

from __future__ import annotations

import optuna

from autotune.contract import ProbeResult, ProbeSettings
from autotune.tuner.policy._length import fitted, learn, script_batches, worth_refitting


def test_the_shortest_run_seen_is_kept_and_handed_on() -> None:
    study = optuna.create_study(direction="maximize")
    settings = ProbeSettings()
    assert fitted(study, settings) is settings  # unknown: nothing to fit
    learn(study, ProbeResult(script_batches=None))
    assert script_batches(study) is None
    learn(study, ProbeResult(script_batches=384))
    learn(study, ProbeResult(script_batches=500))  # a longer run fits the shorter plan too
    assert script_batches(study) == 384
    assert fitted(study, settings).script_batches == 384


def test_only_a_faster_config_that_ended_before_a_window_is_probed_again() -> None:
    fast = ProbeResult(status="ended_early", samples_per_s=900.0, script_batches=384)
    assert worth_refitting(fast, was_fitted=False, best=300.0)
    assert worth_refitting(fast, was_fitted=False, best=None)
    assert not worth_refitting(fast, was_fitted=True, best=300.0)  # once is enough
    assert not worth_refitting(fast, was_fitted=False, best=1000.0)  # slower than the best
    windowed = ProbeResult(
        status="ended_early", samples_per_s=900.0, script_batches=384, windows=[900.0]
    )
    assert not worth_refitting(windowed, was_fitted=False, best=300.0)  # a measurement
