"""Writes one frozen database per earlier schema revision; run once when a revision is added.

    python -m tests.store.frozen.make_frozen

Each file holds Optuna's tables with one mirrored study, at the revision in its name
("base": Optuna's tables only, from before autotune had tables of its own).
"""

from __future__ import annotations

from pathlib import Path

from autotune.store._engine import engine_for
from autotune.store._migrate import upgrade_autotune
from autotune.store._sync import _sync
from tests.store.factory import close_storages, make_study

HERE = Path(__file__).resolve().parent
REVISIONS = ("base", "0001")


def make(revision: str) -> Path:
    path = HERE / f"autotune_{revision}.db"
    path.unlink(missing_ok=True)
    url = f"sqlite:///{path}"
    study = make_study(url, f"frozen-{revision}", trials=3, failures=1)
    if revision != "base":
        upgrade_autotune(url, revision)
        with engine_for(url).begin() as conn:
            _sync(conn, study, url)
    close_storages()
    engine_for(url).dispose()
    with engine_for(url).connect() as conn:
        conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    engine_for(url).dispose()
    return path


if __name__ == "__main__":
    for rev in REVISIONS:
        print(make(rev))
