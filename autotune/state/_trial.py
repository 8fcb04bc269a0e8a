"""The one path between a trial's typed record and Optuna's trial user attributes, and the
definitions every reader shares: which trials were measured, used the budget, may be
recommended."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, replace
from datetime import datetime
from typing import Any

import optuna
from optuna.trial import FrozenTrial, TrialState

from autotune.contract import LoaderConfig, ProbeResult
from autotune.state._records import Role, TrialRecord, known


def record_of(trial: FrozenTrial | optuna.Trial) -> TrialRecord:
    attrs = trial.user_attrs
    values = known(TrialRecord, attrs)
    values["config"] = LoaderConfig.from_dict(attrs.get("config"))
    values["script_config"] = LoaderConfig.from_dict(attrs.get("script_config"))
    values["partial"] = bool(attrs.get("partial", False))
    values["role"] = str(attrs.get("role", "search"))
    raw = attrs.get("result")
    values["result"] = ProbeResult.from_dict(raw) if raw else None
    return TrialRecord(**values)


def attrs_of(record: TrialRecord) -> dict[str, Any]:
    """The user attributes a record is stored as (for ``optuna.trial.create_trial``)."""
    attrs = asdict(replace(record, result=None))
    if record.result is not None:
        # As a probe writes it, less its output's tail (the record's ``output_tail``).
        attrs["result"] = record.result.to_dict()
        attrs["result"].pop("stderr_tail", None)
    attrs["config"] = record.config.to_dict()
    attrs["script_config"] = record.script_config.to_dict()
    if attrs["output_tail"] is None:
        del attrs["output_tail"]
    if attrs["duplicate_of"] is None:
        del attrs["duplicate_of"]
    return attrs


def new_trial(
    record: TrialRecord,
    state: TrialState,
    value: float | None,
    params: dict[str, Any],
    distributions: dict[str, Any],
    intermediate_values: dict[int, float],
    *,
    started: datetime | None = None,
) -> FrozenTrial:
    """A trial measured outside ``study.ask`` (the baseline), ready for ``study.add_trial``.
    ``started``: when its measurement began (else now, when it is made): a live run's
    segments are drawn over time from it."""
    trial = optuna.trial.create_trial(
        state=state,
        value=value,
        params=params,
        distributions=distributions,
        user_attrs=attrs_of(record),
        intermediate_values=intermediate_values,
    )
    if started is not None:
        trial.datetime_start = started
    return trial


def write(trial: optuna.Trial, record: TrialRecord) -> None:
    for key, value in attrs_of(record).items():
        trial.set_user_attr(key, value)


def mark_duplicate(trial: optuna.Trial, of: int) -> None:
    trial.set_user_attr("duplicate_of", of)


def enqueue(
    study: optuna.Study, params: dict[str, Any], role: Role, *, skip_if_exists: bool = False
) -> None:
    """Queue ``params`` to be asked next, with the role its trial will be recorded under."""
    study.enqueue_trial(params, user_attrs={"role": role}, skip_if_exists=skip_if_exists)


def role(trial: FrozenTrial | optuna.Trial) -> Role:
    return str(trial.user_attrs.get("role", "search"))


def measured(trial: FrozenTrial) -> bool:
    return record_of(trial).measured


def usable(trial: FrozenTrial) -> bool:
    """Measured, so it may be recommended: in full, or until the script ended after at least
    one clean window. A fast config that finished a short script is the best evidence a probe
    can get; its few windows give it a wide interval, never a disqualification."""
    if trial.state != TrialState.COMPLETE or trial.value is None:
        return False
    return not record_of(trial).partial or bool(trial.intermediate_values)


def rate_of(trial: FrozenTrial) -> float | None:
    """The samples/s a trial's row shows on every face, as the live line said it: a complete
    trial's told value; else its probe's own figure (a pruned one's median of the windows it
    had), never the last window that Optuna keeps as a pruned trial's value."""
    if trial.state == TrialState.COMPLETE:
        return trial.value
    return record_of(trial).samples_per_s


def windows_of(trial: FrozenTrial) -> list[float]:
    return [v for _, v in sorted(trial.intermediate_values.items())]


def compared_windows(trial: FrozenTrial) -> list[float]:
    """A finished trial's windows as the search compares them: its result's, charged with
    the start-up each epoch pays; else (no result recorded) the windows it streamed."""
    return record_of(trial).windows or windows_of(trial)


def baseline_of(trials: Sequence[FrozenTrial]) -> FrozenTrial | None:
    """The newest baseline: one that failed is probed again on the next run, and kept."""
    return next((t for t in reversed(trials) if role(t) == "baseline"), None)


def counted(trials: Sequence[FrozenTrial]) -> list[FrozenTrial]:
    """The trials that used the budget, and the only ones the answer counts: finished and
    measured, not duplicates skipped without a probe, not killed ones (their retry counts),
    not a baseline that failed and was probed again (kept, but replaced)."""
    baseline = baseline_of(trials)
    out = []
    for t in trials:
        if t.state not in (TrialState.COMPLETE, TrialState.FAIL, TrialState.PRUNED):
            continue
        record = record_of(t)
        if (
            record.duplicate_of is None
            and record.measured
            and (record.role != "baseline" or t is baseline)
        ):
            out.append(t)
    return out
