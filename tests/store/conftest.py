from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.store.factory import close_storages, pg_database


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def backend_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The same test on an SQLite file and on a fresh PostgreSQL database."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'autotune.db'}"
        return
    with pg_database() as url:
        yield url


@pytest.fixture(autouse=True)
def _close_optuna_storages() -> Iterator[None]:
    yield
    close_storages()
