"""One SQLAlchemy engine per storage URL for our tables, set up so readers and a writer coexist."""

from __future__ import annotations

import functools
import sqlite3
from typing import Any

import sqlalchemy
from sqlalchemy import event
from sqlalchemy.engine import Engine

from autotune.store._url import (
    SQLITE_BUSY_TIMEOUT_S,
    StorageError,
    is_sqlite,
    parse_url,
    safe_url,
)


def _sqlite_on_connect(dbapi_conn: sqlite3.Connection, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    # WAL: the API reads while a probe writes. The busy timeout makes a second writer wait
    # instead of failing with "database is locked". Foreign keys make deletes cascade.
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_S * 1000}")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.close()


@functools.lru_cache(maxsize=32)
def engine_for(url: str | None = None) -> Engine:
    """The shared engine for ``url`` (default: $AUTOTUNE_STORAGE or ./autotune.db)."""
    parsed = parse_url(url)
    try:
        if is_sqlite(parsed):
            engine = sqlalchemy.create_engine(
                parsed, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_S}
            )
            event.listen(engine, "connect", _sqlite_on_connect)
            return engine
        return sqlalchemy.create_engine(parsed, pool_pre_ping=True, pool_size=10)
    except (ImportError, sqlalchemy.exc.ArgumentError) as exc:
        raise StorageError(f"cannot open storage {safe_url(str(url))}: {exc}") from None
