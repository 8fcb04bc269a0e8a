"""Studies keyed by script, arguments and hardware; opening and guarding them."""

from __future__ import annotations

import hashlib
import json
import os
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import optuna

from autotune import __version__
from autotune.hardware import describe
from autotune.runner import Target
from autotune.tuner._pruner import WindowPruner


class StudyError(Exception):
    """A study cannot be used as asked; the message says why and what to do."""


@dataclass(frozen=True)
class StudyKey:
    script: str
    args: tuple[str, ...]
    hardware: dict[str, Any]

    @classmethod
    def for_target(cls, target: Target, hardware: dict[str, Any]) -> StudyKey:
        return cls(str(Path(target.script).resolve()), tuple(target.args), hardware)

    def default_name(self) -> str:
        key = json.dumps([self.script, list(self.args), self.hardware.get("id")])
        digest = hashlib.sha256(key.encode()).hexdigest()[:8]
        return f"{Path(self.script).stem}-{digest}"


def _sampler(seed: int | None = None) -> optuna.samplers.BaseSampler:
    # multivariate + group for the conditional space; few startup trials because each one
    # costs seconds of real probing and the seeded trials already cover the obvious points.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        return optuna.samplers.TPESampler(
            multivariate=True, group=True, n_startup_trials=4, seed=seed
        )


def open_study(
    storage: optuna.storages.BaseStorage,
    name: str,
    key: StudyKey,
    *,
    pruner: optuna.pruners.BasePruner | None = None,
    seed: int | None = None,
) -> optuna.Study:
    """Create the study, or load it after checking it was measured on this hardware."""
    study = optuna.create_study(
        storage=storage,
        study_name=name,
        direction="maximize",
        sampler=_sampler(seed),
        pruner=pruner or WindowPruner(),
        load_if_exists=True,
    )
    attrs = study.user_attrs
    if "hardware" not in attrs:
        study.set_user_attr("script", key.script)
        study.set_user_attr("args", list(key.args))
        study.set_user_attr("hardware", key.hardware)
        study.set_user_attr("autotune_version", __version__)
        study.set_user_attr("created_at", time.time())
        study.set_user_attr("host", os.uname().nodename)
        return study
    theirs = attrs["hardware"]
    if theirs.get("id") != key.hardware.get("id"):
        raise StudyError(
            f"study {name!r} was measured on other hardware: {describe(theirs)}; this machine "
            f"is {describe(key.hardware)}. Its settings do not transfer; use another --study."
        )
    return study


def load_study(storage: optuna.storages.BaseStorage, name: str) -> optuna.Study:
    """An existing study, or a StudyError listing the ones there are."""
    names = [s.study_name for s in optuna.get_all_study_summaries(storage)]
    if name not in names:
        known = ", ".join(sorted(names)[:10]) or "none"
        raise StudyError(f"no study named {name!r} in this storage (studies: {known})")
    return optuna.load_study(
        study_name=name, storage=storage, sampler=_sampler(), pruner=WindowPruner()
    )
