"""Every earlier schema upgrades to head; Alembic never touches Optuna's tables."""

from __future__ import annotations

from pathlib import Path

import optuna
import pytest
from alembic import command
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, select

from autotune.store._engine import engine_for
from autotune.store._migrate import (
    alembic_config,
    current_revision,
    downgrade_autotune,
    head_revision,
    upgrade,
    upgrade_autotune,
)
from autotune.store._sync import sync_study_strict
from autotune.store._tables import VERSION_TABLE, studies
from autotune.tuner import summarize
from tests.store.factory import close_storages, make_study, storage_for
from tests.store.frozen.make_frozen import restore

FROZEN = Path(__file__).resolve().parent / "frozen"
OPTUNA_TABLES = {"studies", "trials", "trial_user_attributes", "version_info", "alembic_version"}
FROZEN_REVISIONS = sorted(p.stem.removeprefix("autotune_") for p in FROZEN.glob("autotune_*.sql"))


def test_every_earlier_revision_has_a_frozen_database() -> None:
    script = ScriptDirectory.from_config(alembic_config())
    earlier = {"base"} | {
        r.revision for r in script.walk_revisions() if r.revision != head_revision()
    }
    assert earlier == set(FROZEN_REVISIONS)


@pytest.mark.parametrize("revision", FROZEN_REVISIONS)
def test_frozen_database_upgrades_to_head(revision: str, tmp_path: Path) -> None:
    path = tmp_path / "frozen.db"
    restore(revision, path)
    url = f"sqlite:///{path}"
    assert current_revision(url) == (None if revision == "base" else revision)
    assert upgrade(url) == head_revision() == current_revision(url)
    # Optuna's data is intact and our mirror (kept or rebuilt) serves the study.
    study = optuna.load_study(study_name=f"frozen-{revision}", storage=storage_for(url))
    assert len(study.trials) == 5
    sync_study_strict(url, study, summarize(study, url))
    with engine_for(url).connect() as conn:
        row = conn.execute(select(studies.c.name, studies.c.note, studies.c.n_trials)).one()
    assert tuple(row) == (f"frozen-{revision}", None, 5)
    command.check(alembic_config(url))  # tables match the models exactly
    close_storages()


def test_upgrade_downgrade_and_autogenerate_ignore_optuna(backend_url: str) -> None:
    make_study(backend_url, "kept", trials=1)
    upgrade(backend_url)
    command.check(alembic_config(backend_url))  # Optuna's tables produce no diff
    with engine_for(backend_url).connect() as conn:
        tables = set(inspect(conn).get_table_names())
    assert tables >= OPTUNA_TABLES
    assert VERSION_TABLE in tables
    downgrade_autotune(backend_url, "base")
    with engine_for(backend_url).connect() as conn:
        left = set(inspect(conn).get_table_names())
    assert not {t for t in left if t.startswith("autotune_") and t != VERSION_TABLE}
    assert left >= OPTUNA_TABLES  # downgrading ours leaves Optuna's alone
    upgrade_autotune(backend_url)
    assert current_revision(backend_url) == head_revision()
    assert optuna.load_study(study_name="kept", storage=storage_for(backend_url)).trials


def test_upgrade_is_fast_when_already_current(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'x.db'}"
    upgrade(url)
    assert upgrade(url) == head_revision()
