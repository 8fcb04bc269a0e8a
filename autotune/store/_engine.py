"""One SQLAlchemy engine per storage URL for our tables, set up so readers and a writer coexist;
and the database-wide lock that lets one process at a time create or upgrade tables."""

from __future__ import annotations

import contextlib
import fcntl
import functools
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import sqlalchemy
from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.pool import NullPool

from autotune._words import first_line
from autotune.store._url import (
    SQLITE_BUSY_TIMEOUT_S,
    StorageError,
    is_sqlite,
    parse_url,
    safe_url,
)

# Every autotune process on a database agrees on this PostgreSQL advisory lock key: the
# ASCII of "autotune" as a signed 64-bit number. Advisory locks are per database.
SCHEMA_LOCK_KEY = int.from_bytes(b"autotune", "big")
# Creating and upgrading our tables and Optuna's takes seconds; a holder past this is stuck.
SCHEMA_LOCK_WAIT_S = 300
_POLL_S = 0.05
# Threads of one process take turns here first: a PostgreSQL session lock is reentrant only
# on its own connection, and flock() on a second descriptor of the same file would wait on
# the first. One lock for every URL: schema work is rare and brief.
_in_process = threading.RLock()
_depth: dict[str, int] = {}


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


@contextmanager
def schema_lock(url: str) -> Iterator[None]:
    """Held while Optuna's tables or ours are created or upgraded in the database at ``url``,
    so processes starting at once on an empty database take turns: the first creates, the
    others find the tables there. Reentrant within a process; released by the kernel or the
    server when a holder dies, even by SIGKILL."""
    with _in_process:
        if _depth.get(url):
            _depth[url] += 1
            try:
                yield
            finally:
                _depth[url] -= 1
            return
        with _database_lock(url):
            _depth[url] = 1
            try:
                yield
            finally:
                del _depth[url]


@contextmanager
def _database_lock(url: str) -> Iterator[None]:
    parsed = parse_url(url)
    if is_sqlite(parsed):
        path = Path(parsed.database or ":memory:")
        # In memory, a database is private to its connection; with no folder there is no
        # database, and opening it says so better than a lock file could.
        if str(path) == ":memory:" or not path.parent.is_dir():
            yield
            return
        with _file_lock(path.with_name(f"{path.name}.lock"), url):
            yield
    elif parsed.get_backend_name() == "postgresql":
        with _advisory_lock(parsed, url):
            yield
    else:
        yield  # other backends: the process's own turn only


def _wait(url: str, acquire: Callable[[], bool]) -> None:
    deadline = time.monotonic() + SCHEMA_LOCK_WAIT_S
    while not acquire():
        if time.monotonic() > deadline:
            raise StorageError(
                f"another process has been creating or upgrading tables in {safe_url(url)} "
                f"for over {SCHEMA_LOCK_WAIT_S} s; let it finish (or stop it) and try again"
            )
        time.sleep(_POLL_S)


@contextmanager
def _file_lock(path: Path, url: str) -> Iterator[None]:
    # A file beside the database, not the database itself: where flock() is emulated with
    # POSIX record locks (NFS), it would meet SQLite's own, which closing any descriptor of
    # the file drops for the whole process.
    # The holder removes it on the way out, so nothing is left beside the database; a waiter
    # that then wins the lock of the removed file tries again on a fresh one.
    while True:
        try:
            handle = path.open("a")
        except OSError as exc:
            raise StorageError(f"cannot lock {safe_url(url)} to create its tables: {exc}") from None
        try:
            _wait(url, functools.partial(_try_flock, handle))
            if _still_there(path, handle):
                break
        except BaseException:
            handle.close()
            raise
        handle.close()
    try:
        yield
    finally:
        with contextlib.suppress(OSError):  # left behind, it only costs the next holder a retry
            path.unlink()
        handle.close()


def _try_flock(handle: IO[str]) -> bool:
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _still_there(path: Path, handle: IO[str]) -> bool:
    try:
        return os.path.samestat(os.fstat(handle.fileno()), path.stat())
    except FileNotFoundError:
        return False


@contextmanager
def _advisory_lock(parsed: sqlalchemy.URL, url: str) -> Iterator[None]:
    # A session-level lock on a connection of its own, outside every pool: Optuna's storage
    # and Alembic use their own connections meanwhile, and closing this one releases it.
    engine = sqlalchemy.create_engine(parsed, poolclass=NullPool, isolation_level="AUTOCOMMIT")
    try:
        try:
            conn = engine.connect()
        except sqlalchemy.exc.SQLAlchemyError as exc:
            raise StorageError(f"cannot open storage {safe_url(url)}: {first_line(exc)}") from None
        with conn:
            query = sqlalchemy.text("SELECT pg_try_advisory_lock(:key)")
            try:
                _wait(url, lambda: bool(conn.execute(query, {"key": SCHEMA_LOCK_KEY}).scalar()))
            except sqlalchemy.exc.SQLAlchemyError as exc:
                reason = first_line(exc)
                raise StorageError(f"cannot lock {safe_url(url)}: {reason}") from None
            yield
    finally:
        engine.dispose()
