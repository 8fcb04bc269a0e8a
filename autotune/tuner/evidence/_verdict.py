"""What the script as written says about the study: it failed, or it is too short to tune."""

from __future__ import annotations

from optuna.trial import FrozenTrial, TrialState

from autotune import state
from autotune.tuner.evidence._trials import trial_result

# Arguments that make a script's run short on purpose, and that a longer run can change.
_LENGTH_ARGS = ("--epochs", "--num-epochs", "--num_epochs", "--max-steps", "--max_steps", "--steps")


def short_script_verdict(baseline: FrozenTrial, args: tuple[str, ...]) -> str | None:
    """The verdict on a script that ran out before a probe could measure it, or None.

    Such a script spends too little time loading to be worth tuning: it keeps its own
    settings, and that is an answer, not an error."""
    result = trial_result(baseline)
    if result is None or result.status != "ended_early" or not result.batches:
        return None  # no batch at all: the script never got to its loop (a failure)
    took = f" in {result.wall_s:.1f} s" if result.wall_s else ""
    verdict = (
        f"the script iterates {result.batches} batches ({result.samples} samples){took} and "
        "ends before a steady rate can be measured: loading is not worth tuning; keep the "
        "script's own settings"
    )
    given = [a.split("=")[0] for a in args if a.split("=")[0] in _LENGTH_ARGS]
    if given:
        verdict += (
            f". If this is a short test run, probe a longer one: pass a larger {given[0]} after --"
        )
    return verdict


def baseline_failure(baseline: FrozenTrial) -> str | None:
    """Why the study cannot be searched: the script as written failed; None when it ran
    (a script that ran out before it could be measured gets a verdict, not a failure)."""
    if baseline.state != TrialState.FAIL:
        return None
    result = trial_result(baseline)
    record = state.record_of(baseline)
    if record.status == "ended_early" and result is not None and result.batches:
        return None
    if record.status == "no_dataloader":
        # The script ran as it should: it loads through something autotune does not tune.
        return record.reason or "no DataLoader to tune"
    return f"the script as written failed ({record.status}): {record.reason or ''}"
