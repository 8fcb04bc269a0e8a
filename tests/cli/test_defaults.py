"""The CLI's defaults are the objects' own: one declaration, not three."""

from __future__ import annotations

from autotune.cli import _defaults as defaults
from autotune.contract import ProbeSettings
from autotune.tuner import TunerOptions


def test_the_search_defaults_the_cli_shows_are_the_tuners() -> None:
    options = TunerOptions()
    assert options.trials == defaults.TRIALS
    assert options.timeout_s == defaults.TIMEOUT_S
    assert options.trial_timeout_s == defaults.TRIAL_TIMEOUT_S
    assert options.patience == defaults.PATIENCE
    assert options.min_windows == defaults.MIN_WINDOWS


def test_the_probe_defaults_the_cli_shows_are_the_probes() -> None:
    settings = ProbeSettings()
    assert (settings.warmup_s, settings.max_warmup_s) == (defaults.WARMUP_S, defaults.MAX_WARMUP_S)
    assert (settings.window_s, settings.windows) == (defaults.WINDOW_S, defaults.WINDOWS)
