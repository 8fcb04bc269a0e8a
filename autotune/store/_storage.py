"""Opening the Optuna storage: SQLite by default (WAL, busy timeout), any SQLAlchemy URL."""

from __future__ import annotations

import os
import sqlite3
import warnings

import optuna
import sqlalchemy

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
        if is_sqlite(parsed):
            prepare_sqlite(parsed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
            return optuna.storages.RDBStorage(
                resolved,
                engine_kwargs=_engine_kwargs(parsed),
                **{**heartbeat_kwargs(), **rdb_kwargs},  # type: ignore[arg-type]
            )
    except StorageError:
        raise
    except (sqlalchemy.exc.SQLAlchemyError, sqlite3.Error, ImportError, OSError) as exc:
        reason = str(exc).splitlines()[0][:200]
        raise StorageError(f"cannot open storage {parsed.render_as_string()}: {reason}") from None
    except Exception as exc:  # Optuna wraps driver errors in its own types
        reason = str(exc).splitlines()[0][:200]
        raise StorageError(f"cannot open storage {parsed.render_as_string()}: {reason}") from None
