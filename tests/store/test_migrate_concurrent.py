"""Several processes meeting an empty database at once come up on one schema at head.

Each process runs the public functions a real one runs: a worker opens Optuna's storage
(which creates Optuna's tables), then mirrors its study (which creates ours); `autotune db
upgrade` runs `upgrade`. They are released together by a file lock the test holds until every
one of them has imported everything (and opened what it opens before the race) and is waiting
on it, so they collide on the schema itself, not on Python's start-up.
"""

from __future__ import annotations

import fcntl
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import optuna
import pytest
import sqlalchemy
from sqlalchemy import func, inspect, select

from autotune.store import current_revision, engine_for, head_revision, open_storage
from autotune.store._tables import VERSION_TABLE, metadata, studies
from tests.store.factory import pg_database

OPTUNA_TABLES = {"studies", "trials", "version_info", "alembic_version"}

# argv: role, url, gate file, study name. Prints "ready", then waits on the gate. A "worker"
# starts from nothing; a "mirror" has its study loaded already (a worker that has been
# probing) and races only on our tables, at its first sync.
CHILD = """
import fcntl, sys
role, url, gate, name = sys.argv[1:5]
import optuna
from autotune.store import open_storage, sync_study_strict, upgrade
from autotune.tuner import summarize
optuna.logging.set_verbosity(optuna.logging.WARNING)
if role == "mirror":
    study = optuna.load_study(study_name=name, storage=open_storage(url))
print("ready", flush=True)
with open(gate) as f:
    fcntl.flock(f, fcntl.LOCK_SH)
    fcntl.flock(f, fcntl.LOCK_UN)
if role == "upgrade":
    upgrade(url)
else:
    if role == "worker":
        storage = open_storage(url)
        study = optuna.create_study(storage=storage, study_name=name, direction="maximize")
    sync_study_strict(url, study, summarize(study, url))
print("done", flush=True)
"""


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def empty_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database nobody has touched: a SQLite file that does not exist yet, or a PostgreSQL
    database created for this test alone (and dropped after it)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'fresh.db'}"
        return
    with pg_database() as url:
        yield url


def _released_together(roles: list[str], url: str, folder: Path) -> list[tuple[int, str]]:
    """Each role in its own process, all let go at the same instant; (exit code, stderr)."""
    gate = folder / "gate"
    gate.touch()
    with gate.open() as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", CHILD, role, url, str(gate), f"study-{i}"],
                cwd=folder,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for i, role in enumerate(roles)
        ]
        for proc in procs:
            assert proc.stdout is not None
            # Blocks until that process has imported everything (or died: then "").
            proc.stdout.readline()
        fcntl.flock(held, fcntl.LOCK_UN)
    ended = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        ended.append((proc.returncode, err + ("" if "done" in out else "(never finished)")))
    return ended


def _rows(conn: sqlalchemy.Connection, table: str) -> int:
    return int(conn.execute(select(func.count()).select_from(sqlalchemy.table(table))).scalar_one())


def _one_schema_at_head(
    url: str, roles: list[str], ended: list[tuple[int, str]], folder: Path
) -> None:
    failed = [f"process {i} ({roles[i]}) exit {rc}:\n{err}" for i, (rc, err) in enumerate(ended)]
    assert all(rc == 0 for rc, _ in ended), "\n".join(failed)
    assert all("Traceback" not in err for _, err in ended), "\n".join(failed)

    assert current_revision(url) == head_revision()
    storage = open_storage(url)
    assert storage.get_current_version() == storage.get_head_version()
    storage.remove_session()
    storage.engine.dispose()
    with engine_for(url).connect() as conn:
        tables = set(inspect(conn).get_table_names())
        assert tables >= OPTUNA_TABLES | set(metadata.tables) | {VERSION_TABLE}
        # Two processes stamping at once leave two rows, and no later upgrade knows which.
        assert _rows(conn, "alembic_version") == 1
        assert _rows(conn, VERSION_TABLE) == 1
        assert _rows(conn, "version_info") == 1
        mirrored = set(conn.execute(select(studies.c.name)).scalars())
    assert mirrored == {f"study-{i}" for i, role in enumerate(roles) if role != "upgrade"}
    engine_for(url).dispose()
    assert not list(folder.glob("*.lock")), "the SQLite schema lock's file was left behind"


@pytest.mark.parametrize(
    "roles",
    [["worker", "worker", "worker"], ["upgrade", "worker", "worker"]],
    ids=["workers", "upgrade-and-workers"],
)
def test_processes_starting_at_once_share_one_schema_at_head(
    roles: list[str], empty_url: str, tmp_path: Path
) -> None:
    ended = _released_together(roles, empty_url, tmp_path)
    _one_schema_at_head(empty_url, roles, ended, tmp_path)


def test_first_syncs_at_once_create_our_tables_once(empty_url: str, tmp_path: Path) -> None:
    """Optuna's tables are there (the study's creator made them), ours are not: workers that
    mirror their first trials at the same moment race on Alembic's upgrade alone."""
    roles = ["mirror", "mirror", "mirror"]
    storage = open_storage(empty_url)
    for i in range(len(roles)):
        optuna.create_study(storage=storage, study_name=f"study-{i}", direction="maximize")
    storage.remove_session()
    storage.engine.dispose()
    assert current_revision(empty_url) is None
    ended = _released_together(roles, empty_url, tmp_path)
    _one_schema_at_head(empty_url, roles, ended, tmp_path)
