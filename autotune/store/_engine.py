"""One SQLAlchemy engine per storage URL for our tables, set up so readers and a writer coexist."""

from __future__ import annotations

import functools
import sqlite3
from typing import Any

import sqlalchemy
from sqlalchemy import event
from sqlalchemy.engine import Engine, make_url

from autotune.store._storage import StorageError, storage_url

_BUSY_TIMEOUT_MS = 30_000


def _sqlite_on_connect(dbapi_conn: sqlite3.Connection, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    # WAL: the API reads while a probe writes. The busy timeout makes a second writer wait
    # instead of failing with "database is locked". Foreign keys make deletes cascade.
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute(f"PRAGMA busy_timeout={_BUSY_TIMEOUT_MS}")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.close()


def parse_url(url: str | None) -> sqlalchemy.URL:
    resolved = storage_url(url)
    try:
        return make_url(resolved)
    except sqlalchemy.exc.ArgumentError:
        raise StorageError(
            f"{resolved!r} is not a database URL; use e.g. sqlite:///autotune.db or "
            "postgresql+psycopg://user@host/db"
        ) from None


def safe_url(url: str) -> str:
    """The URL with any password hidden: it is shown in summaries the API serves."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except sqlalchemy.exc.ArgumentError:
        return "<invalid url>"


@functools.lru_cache(maxsize=32)
def engine_for(url: str | None = None) -> Engine:
    """The shared engine for ``url`` (default: $AUTOTUNE_STORAGE or ./autotune.db)."""
    parsed = parse_url(url)
    try:
        if parsed.get_backend_name() == "sqlite":
            engine = sqlalchemy.create_engine(
                parsed, connect_args={"timeout": _BUSY_TIMEOUT_MS / 1000}
            )
            event.listen(engine, "connect", _sqlite_on_connect)
            return engine
        return sqlalchemy.create_engine(parsed, pool_pre_ping=True, pool_size=10)
    except (ImportError, sqlalchemy.exc.ArgumentError) as exc:
        raise StorageError(f"cannot open storage {safe_url(str(url))}: {exc}") from None
