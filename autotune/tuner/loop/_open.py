"""Studies keyed by script, arguments and hardware; opening and guarding them."""

from __future__ import annotations

import hashlib
import json
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import optuna

from autotune import state
from autotune.hardware import describe
from autotune.runner import Target
from autotune.state import usable
from autotune.tuner.evidence import MIN_CORES, steady_load
from autotune.tuner.policy import WindowPruner


class StudyError(Exception):
    """A study cannot be used as asked; the message says why and what to do."""


@dataclass(frozen=True)
class StudyKey:
    script: str
    args: tuple[str, ...]
    hardware: dict[str, Any]
    # Ranks on this node: settings measured for 1 rank do not hold for 8 sharing the cores.
    nproc_per_node: int = 1
    # The script's content: an edited script may load data differently.
    script_sha256: str | None = None

    @classmethod
    def for_target(cls, target: Target, hardware: dict[str, Any]) -> StudyKey:
        path = Path(target.script).resolve()
        try:
            digest: str | None = hashlib.sha256(path.read_bytes()).hexdigest()
        except OSError:
            digest = None
        return cls(str(path), tuple(target.args), hardware, target.nproc_per_node, digest)

    def default_name(self) -> str:
        parts: list[Any] = [self.script, list(self.args), self.hardware.get("id")]
        if self.nproc_per_node != 1:  # single-rank studies keep the names they always had
            parts.append(self.nproc_per_node)
        key = json.dumps(parts)
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


Rerun = Literal["auto", "resume", "fresh"]


@dataclass(frozen=True)
class Opened:
    study: optuna.Study
    # Said to the user when the study is not the one the command named: why, and how to
    # get the other behaviour.
    note: str | None = None


def _load_changed(study: optuna.Study, outside_now: float | None) -> str | None:
    """Why the study's load and the machine's now differ, or None: a study measured beside
    another process's steady load is not continued on a quiet machine, nor the other way
    round (its trials would be compared with the new ones)."""
    if outside_now is None:
        return None
    trials = study.get_trials(deepcopy=False)
    if not any(usable(t) for t in trials):
        return None
    then = steady_load(trials)
    loaded_now = outside_now >= MIN_CORES
    if (then is not None) == loaded_now:
        return None
    was = then.text() if then is not None else "on a quiet machine"
    return (
        f"study {study.study_name!r} was measured {was}; "
        f"other processes use {outside_now:.1f} cores now"
    )


def open_study_for_rerun(
    storage: optuna.storages.BaseStorage,
    name: str,
    key: StudyKey,
    *,
    rerun: Rerun = "auto",
    outside_now: float | None = None,
) -> Opened:
    """The study a rerun of the same command means.

    - the script is unchanged (or "resume"): the study itself, continued;
    - the script changed since the study measured it ("auto"), or "fresh", or it was
      measured under another load than the machine's now (``outside_now``: cores other
      processes use): a new study beside it, named ``NAME-2``, ``NAME-3``...; the old one is
      kept, never deleted.
    """
    names = {s.study_name for s in optuna.get_all_study_summaries(storage)}
    if name not in names or rerun == "resume":
        study = open_study(storage, name, key)
        if key.script_sha256 and state.load(study).identity.script_sha256 != key.script_sha256:
            state.set_script_sha256(study, key.script_sha256)
        return Opened(study)
    existing = optuna.load_study(study_name=name, storage=storage)
    changed = state.load(existing).identity.script_sha256 not in (None, key.script_sha256)
    load_changed = _load_changed(existing, outside_now) if rerun == "auto" else None
    if rerun == "auto" and not changed and load_changed is None:
        return Opened(open_study(storage, name, key))
    numbered = sorted(
        (int(n.rsplit("-", 1)[1]) for n in names if n.startswith(f"{name}-")
         and n.rsplit("-", 1)[1].isdigit()),
        reverse=True,
    )  # fmt: skip
    if rerun == "auto" and changed:
        # The edited script was measured afresh before: continue that study.
        for number in numbered:
            later = optuna.load_study(study_name=f"{name}-{number}", storage=storage)
            if state.load(later).identity.script_sha256 == key.script_sha256:
                return Opened(
                    open_study(storage, later.study_name, key),
                    f"{key.script} changed since study {name!r} measured it: continuing "
                    f"{later.study_name!r}, which measured this version",
                )
    fresh = f"{name}-{(numbered[0] if numbered else 1) + 1}"
    why = (
        f"{key.script} changed since study {name!r} measured it"
        if changed
        else load_changed or f"--fresh asked for new measurements instead of study {name!r}"
    )
    note = f"{why}: measuring afresh in study {fresh!r} ({name!r} is kept" + (
        "; pass --resume to continue it instead)" if changed or load_changed else ")"
    )
    return Opened(open_study(storage, fresh, key), note)


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
    identity = state.load(study).identity
    if not identity.hardware:
        state.identify(
            study,
            state.new_identity(
                key.script, list(key.args), key.hardware, key.nproc_per_node, key.script_sha256
            ),
        )
        return study
    check_hardware(study, key.hardware, action="continue", advice="use another --study")
    if key.script_sha256 and identity.script_sha256 is None:
        state.set_script_sha256(study, key.script_sha256)  # studies from before hashes
    return study


def check_hardware(
    study: optuna.Study, hardware: dict[str, Any], *, action: str, advice: str
) -> None:
    """A study is only ever measured on one kind of hardware: settings do not transfer."""
    theirs = state.load(study).identity.hardware
    if theirs.get("id") != hardware.get("id"):
        raise StudyError(
            f"this machine cannot {action} study {study.study_name!r}: it was measured on "
            f"{describe(theirs)}; this machine is {describe(hardware)}. Settings measured on "
            f"other hardware do not transfer; {advice}."
        )


def load_study(storage: optuna.storages.BaseStorage, name: str) -> optuna.Study:
    """An existing study, or a StudyError listing the ones there are."""
    names = [s.study_name for s in optuna.get_all_study_summaries(storage)]
    if name not in names:
        known = ", ".join(sorted(names)[:10]) or "none"
        raise StudyError(f"no study named {name!r} in this storage (studies: {known})")
    return optuna.load_study(
        study_name=name, storage=storage, sampler=_sampler(), pruner=WindowPruner()
    )
