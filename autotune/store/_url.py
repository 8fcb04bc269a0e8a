"""Storage URLs: the default, parsing with a clear error, hiding passwords, SQLite's set-up."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import sqlalchemy
from sqlalchemy.engine import make_url

DEFAULT_STORAGE = "sqlite:///autotune.db"
STORAGE_ENV = "AUTOTUNE_STORAGE"
# A second SQLite writer waits this long instead of failing with "database is locked".
SQLITE_BUSY_TIMEOUT_S = 30


class StorageError(Exception):
    """The storage URL cannot be opened; the message says what to do."""


def storage_url(url: str | None) -> str:
    return url or os.environ.get(STORAGE_ENV) or DEFAULT_STORAGE


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


def is_sqlite(url: sqlalchemy.URL) -> bool:
    return url.get_backend_name() == "sqlite"


def prepare_sqlite(url: sqlalchemy.URL) -> None:
    """Check the file's folder exists and switch the file to WAL, once, before any engine.

    WAL lets the API read while a probe writes; the mode is stored in the file itself."""
    database = url.database
    if not database or database == ":memory:":
        return
    path = Path(database)
    if not path.parent.exists():
        raise StorageError(
            f"cannot open {url}: the folder {path.parent} does not exist; create it or pass "
            "another --storage"
        )
    with sqlite3.connect(path, timeout=SQLITE_BUSY_TIMEOUT_S) as conn:
        conn.execute("PRAGMA journal_mode=WAL")
