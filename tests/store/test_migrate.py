"""A failed schema upgrade is one StorageError line, even when the driver said nothing; schema
work waits for the lock another process holds on the database, and says so if it never comes."""

from __future__ import annotations

import fcntl
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import sqlalchemy
from alembic import command
from alembic.config import Config
from sqlalchemy.pool import NullPool

from autotune.store import (
    StorageError,
    _engine,
    current_revision,
    head_revision,
    open_storage,
    upgrade,
)
from autotune.store._migrate import upgrade_autotune


def test_a_failed_step_with_no_message_is_named_by_its_type(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def broken(config: Config, revision: str) -> None:
        raise sqlalchemy.exc.SQLAlchemyError("")

    monkeypatch.setattr(command, "upgrade", broken)
    with pytest.raises(StorageError, match=r"^cannot upgrade sqlite:///.*: SQLAlchemyError$"):
        upgrade_autotune(f"sqlite:///{tmp_path / 'a.db'}")


@contextmanager
def _held_by_another_process(url: str) -> Iterator[None]:
    """The schema lock, taken the way any other autotune process on ``url`` takes it."""
    parsed = sqlalchemy.make_url(url)
    if parsed.get_backend_name() == "sqlite":
        with open(f"{parsed.database}.lock", "a") as held:
            fcntl.flock(held, fcntl.LOCK_EX)
            yield
        return
    engine = sqlalchemy.create_engine(parsed, poolclass=NullPool)
    with engine.connect() as conn:
        conn.execute(sqlalchemy.text("SELECT pg_advisory_lock(:k)"), {"k": _engine.SCHEMA_LOCK_KEY})
        yield
    engine.dispose()


def test_schema_work_waits_for_another_process_and_names_a_stuck_one(
    backend_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_engine, "SCHEMA_LOCK_WAIT_S", 0.3)
    stuck = r"^another process has been creating or upgrading tables in .* for over 0.3 s; "
    with _held_by_another_process(backend_url):
        with pytest.raises(StorageError, match=stuck):
            open_storage(backend_url)  # Optuna's tables
        with pytest.raises(StorageError, match=stuck):
            upgrade_autotune(backend_url)  # ours
    assert current_revision(backend_url) is None  # nothing was created behind the lock
    assert upgrade(backend_url) == head_revision()
    if backend_url.startswith("sqlite"):
        assert not Path(f"{sqlalchemy.make_url(backend_url).database}.lock").exists()
