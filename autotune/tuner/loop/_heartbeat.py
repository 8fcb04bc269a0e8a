"""Heartbeats for trials we ask for ourselves, so a killed process's trial is failed and retried.

Optuna records heartbeats only inside ``study.optimize``; the tuner uses ask/tell, so it
starts the same heartbeat thread around each probe (through ``autotune.state``, the one place
that touches Optuna's privates) and fails stale trials before each ask.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager

import optuna

from autotune import state


@contextmanager
def heartbeat(study: optuna.Study, trial: optuna.Trial) -> Iterator[None]:
    """Record ``trial``'s heartbeat while the block runs (nothing where heartbeats are off)."""
    with state.heartbeat_thread(study, trial):
        yield


def fail_stale_trials(study: optuna.Study) -> None:
    """Fail RUNNING trials whose process stopped beating; the storage's callback retries them."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        optuna.storages.fail_stale_trials(study)
