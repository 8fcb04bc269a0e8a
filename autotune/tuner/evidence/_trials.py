"""A probe's result as an Optuna trial: its state, its value, and the record kept on it
(``autotune.state`` owns the record and how it is stored; this is the tuner's reading of it).

Confirmation re-measurements are kept on the study (``state.Confirmation``), not as trials.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from optuna.trial import FrozenTrial, TrialState

from autotune import state
from autotune.contract import (
    BATCH_SIZE,
    FAILED_STATUSES,
    PERSISTENT_WORKERS,
    PIN_MEMORY,
    PREFETCH_FACTOR,
    LoaderConfig,
    ProbeResult,
)
from autotune.state import Role, usable


def trial_state(result: ProbeResult) -> TrialState:
    if result.status == "pruned":
        return TrialState.PRUNED
    if result.status in FAILED_STATUSES or result.samples_per_s is None:
        return TrialState.FAIL
    return TrialState.COMPLETE


def frozen_from_result(
    result: ProbeResult,
    role: Role,
    params: dict[str, Any],
    distributions: dict[str, Any],
) -> FrozenTrial:
    """A trial measured outside ``study.ask`` (the baseline), ready for ``study.add_trial``."""
    done = trial_state(result)
    return state.new_trial(
        state.TrialRecord.of_result(result, role),
        done,
        result.samples_per_s if done == TrialState.COMPLETE else None,
        params,
        distributions,
        dict(enumerate(result.windows)),
    )


def trial_result(trial: FrozenTrial) -> ProbeResult | None:
    return state.record_of(trial).result


def trial_config(trial: FrozenTrial) -> LoaderConfig:
    return state.record_of(trial).config


def best_usable(trials: Iterable[FrozenTrial]) -> FrozenTrial | None:
    """The fastest trial measured in full (None before any was)."""
    return max((t for t in trials if usable(t)), key=lambda t: t.value or 0.0, default=None)


# The loader's own settings, which a loader may keep whatever a trial asks.
_KEPT_BY_LOADER = (PREFETCH_FACTOR, PIN_MEMORY, PERSISTENT_WORKERS, BATCH_SIZE)


def kept_by_loader(trials: Iterable[FrozenTrial]) -> dict[str, Any]:
    """Settings the measured loader keeps whatever a trial asks, with the value it kept: read
    from trials that asked otherwise and were told so (``not_applied``: fastai's loader fixes
    prefetch_factor in its class; a custom batch sampler fixes the batch size)."""
    kept: dict[str, Any] = {}
    for t in trials:
        result = trial_result(t)
        if result is None or not result.not_applied or not t.params:
            continue
        asked = LoaderConfig.from_dict(t.params)
        for name in _KEPT_BY_LOADER:
            want, got = getattr(asked, name), getattr(result.applied_config, name)
            if want is not None and got != want:
                kept[name] = got
    return kept


def _as_loaded(config: LoaderConfig, kept: dict[str, Any]) -> LoaderConfig:
    """``config`` as the loader would load it: what it keeps replaces what was asked."""
    fixed = {name: value for name, value in kept.items() if getattr(config, name) is not None}
    return replace(config, **fixed) if fixed else config


def duplicate_of(trials: Sequence[FrozenTrial], config: LoaderConfig) -> int | None:
    """The trial that already measured ``config`` as the loader would load it (the
    baseline, for the script as written asked for explicitly), or None."""
    kept = kept_by_loader(trials)
    config = _as_loaded(config, kept)
    for t in trials:
        record = state.record_of(t)
        finished = t.state in (TrialState.COMPLETE, TrialState.FAIL) and record.measured
        if not finished or (record.partial and not t.intermediate_values):
            # No window measured it: the script ended first (it is probed again, fitted).
            continue
        if record.role != "baseline":
            if _as_loaded(LoaderConfig.from_dict(t.params), kept) == config:
                return t.number
            continue
        # The script as written, asked for explicitly: the baseline's windows measured it.
        script = record.script_config
        if t.state == TrialState.COMPLETE and script.num_workers is not None:
            same = config.merged_over(script).under_torch_rules() == script.under_torch_rules()
            if same:
                return t.number
    return None
