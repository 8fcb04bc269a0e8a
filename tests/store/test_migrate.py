"""A failed schema upgrade is one StorageError line, even when the driver said nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy
from alembic import command
from alembic.config import Config

from autotune.store import StorageError
from autotune.store._migrate import upgrade_autotune


def test_a_failed_step_with_no_message_is_named_by_its_type(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def broken(config: Config, revision: str) -> None:
        raise sqlalchemy.exc.SQLAlchemyError("")

    monkeypatch.setattr(command, "upgrade", broken)
    with pytest.raises(StorageError, match=r"^cannot upgrade sqlite:///.*: SQLAlchemyError$"):
        upgrade_autotune(f"sqlite:///{tmp_path / 'a.db'}")
