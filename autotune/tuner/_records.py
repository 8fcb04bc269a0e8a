"""How a probe result is written onto an Optuna trial, and read back.

Trial user attributes (the schema the store, the API and the dashboard read):
  role    "baseline" | "seeded" | "search"
  status  the probe's status ("ok", "crashed", ...); reason: why, in words
  config  the settings the probe actually applied (every key of LoaderConfig)
  script_config  the settings the script itself wrote
  result  the ProbeResult as a dict, without the output tail
  output_tail    the last lines of the script's output, for failures only
  partial true when the script ended before every window was measured (usable with
          at least one window)
  duplicate_of   the trial already measured with the same settings (no probe was run)

Confirmation re-measurements are kept on the study (``confirmation``), not as trials.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import optuna
from optuna.trial import FrozenTrial, TrialState

from autotune.contract import FAILED_STATUSES, LoaderConfig, ProbeResult

Role = str


def result_attrs(result: ProbeResult, role: Role) -> dict[str, Any]:
    data = result.to_dict()
    tail = data.pop("stderr_tail", "")
    attrs: dict[str, Any] = {
        "role": role,
        "status": result.status,
        "reason": result.reason,
        "config": result.applied_config.to_dict(),
        "script_config": result.script_config.to_dict(),
        "result": data,
        "partial": result.status == "ended_early",
    }
    if result.status != "ok":
        attrs["output_tail"] = tail
    return attrs


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
    state = trial_state(result)
    return optuna.trial.create_trial(
        state=state,
        value=result.samples_per_s if state == TrialState.COMPLETE else None,
        params=params,
        distributions=distributions,
        user_attrs=result_attrs(result, role),
        intermediate_values=dict(enumerate(result.windows)),
    )


def trial_result(trial: FrozenTrial) -> ProbeResult | None:
    raw = trial.user_attrs.get("result")
    return ProbeResult.from_dict(raw) if raw else None


def trial_config(trial: FrozenTrial) -> LoaderConfig:
    return LoaderConfig.from_dict(trial.user_attrs.get("config"))


def role(trial: FrozenTrial) -> Role:
    return str(trial.user_attrs.get("role", "search"))


def usable(trial: FrozenTrial) -> bool:
    """Measured, so it may be recommended: in full, or until the script ended after at least
    one clean window. A fast config that finished a short script is the best evidence a probe
    can get; its few windows give it a wide interval, never a disqualification."""
    if trial.state != TrialState.COMPLETE or trial.value is None:
        return False
    return not trial.user_attrs.get("partial", False) or bool(trial.intermediate_values)


def windows_of(trial: FrozenTrial) -> list[float]:
    return [v for _, v in sorted(trial.intermediate_values.items())]


def baseline_of(trials: Sequence[FrozenTrial]) -> FrozenTrial | None:
    """The newest baseline: one that failed is probed again on the next run, and kept."""
    return next((t for t in reversed(trials) if role(t) == "baseline"), None)


def measured(trial: FrozenTrial) -> bool:
    """A probe finished and its result was recorded: not a trial whose process was killed
    (failed by its stale heartbeat and retried as a new trial)."""
    return trial.user_attrs.get("status") is not None


def counted(trials: Sequence[FrozenTrial]) -> list[FrozenTrial]:
    """The trials that used the budget, and the only ones the answer counts: finished and
    measured, not duplicates skipped without a probe, not killed ones (their retry counts),
    not a baseline that failed and was probed again (kept, but replaced)."""
    baseline = baseline_of(trials)
    return [
        t
        for t in trials
        if t.state in (TrialState.COMPLETE, TrialState.FAIL, TrialState.PRUNED)
        and t.user_attrs.get("duplicate_of") is None
        and measured(t)
        and (role(t) != "baseline" or t is baseline)
    ]
