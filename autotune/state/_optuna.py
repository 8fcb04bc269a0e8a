"""Every Optuna private autotune relies on, each behind one function of this module.

Optuna keeps these out of its public API, so any release may move or reshape them. pyproject
pins the major release autotune was checked against, and tests/state/test_optuna_adapter.py
exercises each of them on a real study, so an Optuna that changed one fails there, by name,
and here with a message that says what to install, never deep inside a search.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import optuna
from optuna.trial import FrozenTrial

# The Optuna releases whose privates are the ones used below (pyproject pins the same).
SUPPORTED = ">=5,<6"
# Where Study.enqueue_trial keeps a queued trial's parameters until the trial is asked: the
# public params stay empty until then, so only this key tells which settings wait in line.
FIXED_PARAMS = "fixed_params"
HEARTBEAT_MODULE = "optuna.storages._heartbeat"


class OptunaMismatch(RuntimeError):
    """The installed Optuna lacks a private that autotune uses; the message says which."""


def _mismatch(what: str) -> OptunaMismatch:
    return OptunaMismatch(
        f"optuna {optuna.__version__} has no {what}, which autotune relies on; "
        f"install a supported release: pip install 'optuna{SUPPORTED}'"
    )


def _private(obj: object, name: str) -> Any:
    try:
        return getattr(obj, name)
    except AttributeError:
        raise _mismatch(f"{type(obj).__name__}.{name}") from None


def optuna_trial_id(trial: FrozenTrial | optuna.Trial) -> int:
    """The trial's row id in Optuna's storage (its number counts within the study only)."""
    return int(_private(trial, "_trial_id"))


def optuna_study_id(study: optuna.Study) -> int:
    """The study's row id in Optuna's storage."""
    return int(_private(study, "_study_id"))


def storage_of(study: optuna.Study) -> optuna.storages.BaseStorage:
    """The storage a study reads and writes (Optuna exposes no public accessor)."""
    storage = _private(study, "_storage")
    if not isinstance(storage, optuna.storages.BaseStorage):
        raise _mismatch("Study._storage holding a BaseStorage")
    return storage


def queued_params(trial: FrozenTrial) -> dict[str, Any] | None:
    """The parameters ``Study.enqueue_trial`` queued ``trial`` with; None where nobody did."""
    params = trial.system_attrs.get(FIXED_PARAMS)
    return params if isinstance(params, dict) else None


@contextmanager
def heartbeat_thread(study: optuna.Study, trial: optuna.Trial) -> Iterator[None]:
    """``trial``'s heartbeat recorded while the block runs (nothing where heartbeats are off).

    Optuna starts this thread only inside ``Study.optimize``; ask/tell gets it from here.
    Imported on first use, so an Optuna that moved it fails only the commands that probe.
    """
    try:
        from optuna.storages._heartbeat import get_heartbeat_thread
    except ImportError:
        raise _mismatch(f"{HEARTBEAT_MODULE}.get_heartbeat_thread") from None
    with get_heartbeat_thread(optuna_trial_id(trial), storage_of(study)):
        yield
