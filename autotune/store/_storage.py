"""Opening the Optuna storage: SQLite by default (WAL, busy timeout), any SQLAlchemy URL."""

from __future__ import annotations

import contextlib
import os
import warnings

import optuna
import sqlalchemy

from autotune._words import first_line
from autotune.store._engine import schema_lock
from autotune.store._url import (
    SQLITE_BUSY_TIMEOUT_S,
    StorageError,
    is_sqlite,
    parse_url,
    prepare_sqlite,
    storage_url,
)

HEARTBEAT_ENV = "AUTOTUNE_HEARTBEAT_S"
GRACE_ENV = "AUTOTUNE_GRACE_S"
_MAX_RETRY = 2


def _engine_kwargs(url: sqlalchemy.URL) -> dict[str, object]:
    if is_sqlite(url):
        return {"connect_args": {"timeout": SQLITE_BUSY_TIMEOUT_S}}
    return {"pool_pre_ping": True}


def heartbeat_kwargs() -> dict[str, object]:
    """A trial whose process stops beating for the grace period is failed and retried once
    more (at most twice): a SIGKILLed tuner or worker loses no trial and counts none twice."""
    interval = int(os.environ.get(HEARTBEAT_ENV) or 10)
    grace = int(os.environ.get(GRACE_ENV) or 6 * interval)
    return {
        "heartbeat_interval": interval,
        "grace_period": grace,
        "heartbeat_stale_trial_callback": optuna.storages.RetryHeartbeatStaleTrialCallback(
            max_retry=_MAX_RETRY
        ),
    }


def open_storage(url: str | None = None, **rdb_kwargs: object) -> optuna.storages.RDBStorage:
    """Optuna's RDB storage on ``url`` (default: ./autotune.db), or a clear StorageError."""
    resolved = storage_url(url)
    parsed = parse_url(resolved)
    try:
        # Optuna creates its tables, then its version rows, each step checking first, and a
        # new SQLite file is switched to WAL, which two connections cannot do at once (the
        # loser gets "database is locked" at once, busy timeout or not): processes opening an
        # empty database together take turns, and the later ones find everything in place.
        with schema_lock(resolved), warnings.catch_warnings():
            if is_sqlite(parsed):
                prepare_sqlite(parsed)
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
            return optuna.storages.RDBStorage(
                resolved,
                engine_kwargs=_engine_kwargs(parsed),
                **{**heartbeat_kwargs(), **rdb_kwargs},  # type: ignore[arg-type]
            )
    except StorageError:
        raise
    except Exception as exc:  # driver errors differ per backend, and Optuna wraps them in its own
        reason = first_line(exc)
        raise StorageError(f"cannot open storage {parsed.render_as_string()}: {reason}") from None


def delete_optuna_study(url: str, name: str) -> None:
    """Optuna's copy of a study, deleted (with ``delete_study`` on the mirror, or the next sync
    would bring it back); nothing to do when only the mirror had it."""
    store = open_storage(url)
    try:
        with contextlib.suppress(KeyError):  # only the mirror had it
            optuna.delete_study(study_name=name, storage=store)
    finally:
        store.remove_session()
        store.engine.dispose()
