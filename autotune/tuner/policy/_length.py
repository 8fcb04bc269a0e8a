"""The script's own length: learned from a probe that saw the script end by itself, handed to
later probes so their warm-up and windows fit inside it (probe/measure/_fit.py)."""

from __future__ import annotations

from dataclasses import replace

import optuna

from autotune import state
from autotune.contract import ProbeResult, ProbeSettings


def script_batches(study: optuna.Study) -> int | None:
    """Batches the script's whole run takes, once a probe saw it end by itself."""
    return state.load(study).script_batches


def fitted(study: optuna.Study, settings: ProbeSettings) -> ProbeSettings:
    """``settings`` with the script's length, when it is known."""
    known = script_batches(study)
    return replace(settings, script_batches=known) if known else settings


def learn(study: optuna.Study, result: ProbeResult) -> None:
    """Keep the shortest run any probe saw: a probe fitted to it fits every run."""
    known = script_batches(study)
    if result.script_batches and (known is None or result.script_batches < known):
        state.save_script_batches(study, result.script_batches)


def worth_refitting(result: ProbeResult, *, was_fitted: bool, best: float | None) -> bool:
    """A config that finished the script before a single window, faster than anything
    measured, deserves a probe fitted to the script's length: it is never passed over on a
    technicality."""
    return (
        result.status == "ended_early"
        and not result.windows
        and bool(result.samples_per_s)
        and bool(result.script_batches)
        and not was_fitted
        and (best is None or (result.samples_per_s or 0.0) > best)
    )
