"""Opening the Optuna storage: SQLite by default (WAL, busy timeout), any SQLAlchemy URL."""

from __future__ import annotations

import os
import sqlite3
import warnings
from pathlib import Path

import optuna
import sqlalchemy
from sqlalchemy.engine import make_url

DEFAULT_STORAGE = "sqlite:///autotune.db"
STORAGE_ENV = "AUTOTUNE_STORAGE"
_SQLITE_BUSY_TIMEOUT_S = 30
HEARTBEAT_ENV = "AUTOTUNE_HEARTBEAT_S"
GRACE_ENV = "AUTOTUNE_GRACE_S"
_MAX_RETRY = 2


class StorageError(Exception):
    """The storage URL cannot be opened; the message says what to do."""


def storage_url(url: str | None) -> str:
    return url or os.environ.get(STORAGE_ENV) or DEFAULT_STORAGE


def _prepare_sqlite(url: sqlalchemy.URL) -> None:
    database = url.database
    if not database or database == ":memory:":
        return
    path = Path(database)
    if not path.parent.exists():
        raise StorageError(
            f"cannot open {url}: the folder {path.parent} does not exist; create it or pass "
            "another --storage"
        )
    # WAL lets the API read while a probe writes; the mode is stored in the file itself.
    with sqlite3.connect(path, timeout=_SQLITE_BUSY_TIMEOUT_S) as conn:
        conn.execute("PRAGMA journal_mode=WAL")


def engine_kwargs(url: str) -> dict[str, object]:
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        return {"connect_args": {"timeout": _SQLITE_BUSY_TIMEOUT_S}}
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
    try:
        parsed = make_url(resolved)
    except sqlalchemy.exc.ArgumentError:
        raise StorageError(
            f"{resolved!r} is not a database URL; use e.g. sqlite:///autotune.db or "
            "postgresql+psycopg://user@host/db"
        ) from None
    try:
        if parsed.get_backend_name() == "sqlite":
            _prepare_sqlite(parsed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
            return optuna.storages.RDBStorage(
                resolved,
                engine_kwargs=engine_kwargs(resolved),
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
