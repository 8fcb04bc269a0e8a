"""`autotune join`: several processes, on one machine or many, searching one study in turn.

A joining process runs the same search loop as `autotune probe` (``Tuner.search``), with the
same stop rules and confirmation; what differs is its gate (``_gate.MachineTurn``): a turn at
the machine's probe lock, and a trial only while the study's budget has room for it.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any

import optuna

from autotune import state
from autotune.tuner.evidence import baseline_failure
from autotune.tuner.loop._gate import LOCK_PATH, MachineTurn
from autotune.tuner.loop._open import StudyError
from autotune.tuner.loop._options import Outcome, TunerOptions
from autotune.tuner.loop._tuner import Tuner


def save_options(study: optuna.Study, options: TunerOptions) -> None:
    """Keeps on the study what every joining process shares with its creator
    (``TunerOptions.shared``)."""
    state.save_options(study, options.shared())


def load_options(study: optuna.Study, **overrides: Any) -> TunerOptions:
    saved = state.load(study).options
    if saved is None:
        raise StudyError(
            f"study {study.study_name!r} was not created for joining processes; create it with "
            "`autotune probe SCRIPT --storage URL --study NAME --seed-only`"
        )
    values = asdict(saved)
    values["settings"] = saved.settings
    values.update({k: v for k, v in overrides.items() if v is not None})
    return TunerOptions(**values)


def work(tuner: Tuner, *, lock_path: Path = LOCK_PATH, poll_s: float = 1.0) -> Outcome:
    """Search ``tuner.study`` in turns with the other joining processes until a stop rule ends
    it."""
    baseline = tuner.baseline_trial()
    failure = baseline_failure(baseline) if baseline is not None else None
    if failure is not None:
        raise StudyError(failure)
    known = state.load(tuner.study)
    if known.verdict:
        raise StudyError(f"nothing to search in study {tuner.study.study_name!r}: {known.verdict}")
    if baseline is None or not known.seeded:
        raise StudyError(
            f"study {tuner.study.study_name!r} has no baseline yet; create it with "
            "`autotune probe ... --seed-only` first"
        )
    gate = MachineTurn(tuner.study, tuner.options.trials, lock_path=lock_path, poll_s=poll_s)
    return tuner.finish(tuner.search(tuner.search_space(), gate))
