"""Writes one frozen database per earlier schema revision, as an SQL dump; run when a revision
is added, for that revision only:

    python -m tests.store.frozen.make_frozen 0003

Each dump holds Optuna's tables with one mirrored study at the revision in its name ("base":
Optuna's tables only, from before autotune had tables of its own). Dumps are text so that git
keeps them (``*.db`` is ignored) and a review can read them. A new dump is made by mirroring at
head and downgrading to the revision, so the downgrade scripts are what shapes it; older dumps
are never rewritten, because they stand for databases that real users have.
"""

from __future__ import annotations

import sqlite3
import sys
import tempfile
from pathlib import Path

from autotune.tuner import summarize

HERE = Path(__file__).resolve().parent


def dump_path(revision: str) -> Path:
    return HERE / f"autotune_{revision}.sql"


def restore(revision: str, path: Path) -> None:
    """The frozen database of ``revision``, written to the SQLite file ``path``."""
    conn = sqlite3.connect(path)
    try:
        conn.executescript(dump_path(revision).read_text(encoding="utf-8"))
    finally:
        conn.close()


def make(revision: str) -> Path:
    from autotune.store._engine import engine_for
    from autotune.store._migrate import downgrade_autotune, upgrade_autotune
    from autotune.store._sync import sync_study_strict
    from tests.store.factory import close_storages, make_study

    with tempfile.TemporaryDirectory() as scratch:
        db = Path(scratch) / "frozen.db"
        url = f"sqlite:///{db}"
        study = make_study(url, f"frozen-{revision}", trials=3, failures=1)
        if revision != "base":
            upgrade_autotune(url)
            sync_study_strict(url, study, summarize(study, url))
            downgrade_autotune(url, revision)
        close_storages()
        engine_for(url).dispose()
        conn = sqlite3.connect(db)
        try:
            text = "\n".join(conn.iterdump()) + "\n"
        finally:
            conn.close()
    out = dump_path(revision)
    out.write_text(text, encoding="utf-8")
    return out


if __name__ == "__main__":
    for rev in sys.argv[1:]:
        print(make(rev))
