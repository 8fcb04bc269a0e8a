"""sync_study mirrors Optuna's study into our tables, on SQLite and PostgreSQL alike."""

from __future__ import annotations

import logging
import random

import optuna
import pytest
from sqlalchemy import func, select, update

from autotune import state
from autotune.store import sync_study
from autotune.store._engine import engine_for
from autotune.store._tables import hosts, recommendations, scripts, studies, trials, windows
from autotune.tuner import summarize
from tests.store.factory import add_trial, hardware, make_study


def _count(url: str, table: object) -> int:
    with engine_for(url).connect() as conn:
        return int(conn.execute(select(func.count()).select_from(table)).scalar_one())  # type: ignore[arg-type]


def test_sync_mirrors_every_measurement(backend_url: str) -> None:
    study = make_study(backend_url, "s1", args=["--epochs", "1"], trials=5, failures=1)
    sync_study(backend_url, study, summarize(study, backend_url))
    summary = summarize(study, backend_url).to_dict()
    with engine_for(backend_url).connect() as conn:
        host = conn.execute(select(hosts)).one()
        assert host.fingerprint == hardware()["id"]
        assert host.cpu_count == 2
        script = conn.execute(select(scripts)).one()
        assert (script.path, script.args) == ("/home/me/train.py", ["--epochs", "1"])
        row = conn.execute(select(studies)).one()
        assert row.state == "finished"
        assert row.n_trials == 7
        assert row.n_failed == 1
        assert row.speedup == pytest.approx(summary["speedup"])
        diagnosis = state.load(study).diagnosis
        assert diagnosis is not None and row.diagnosis == diagnosis.to_dict()
        assert row.diagnosis["bottleneck"] == "input-latency"
        rows = {r.number: r for r in conn.execute(select(trials))}
        assert len(rows) == 7
        failed = rows[6]
        assert (failed.state, failed.failure_class) == ("fail", "crashed")
        assert "MemoryError" in failed.reason
        assert "MemoryError" in failed.output_tail
        baseline = rows[0]
        assert baseline.role == "baseline"
        assert baseline.peak_rss_bytes == 500_000_000
        assert baseline.step_p95_s == 0.02
        assert baseline.worker_cpu_s == 0.0
        n_windows = conn.execute(select(func.count()).select_from(windows)).scalar_one()
        assert n_windows == 6 * 3
        rec = conn.execute(select(recommendations)).one()
        assert rec.trial_number == summary["recommended"]["trial"]
        assert rec.config == summary["recommended"]["config"]
        assert "DataLoader(" in rec.snippet


def test_sync_is_idempotent_and_incremental(backend_url: str) -> None:
    study = make_study(backend_url, "s2", trials=3, failures=0, finished=False)
    sync_study(backend_url, study, summarize(study, backend_url))
    sync_study(backend_url, study, summarize(study, backend_url))
    assert _count(backend_url, trials) == 4
    assert _count(backend_url, windows) == 12
    # A trial that did not change is not rewritten: a marker set behind sync's back survives.
    with engine_for(backend_url).begin() as conn:
        conn.execute(update(trials).where(trials.c.number == 1).values(reason="marker"))
    add_trial(study, random.Random(7))
    state.save_stop(study, "done", None)
    sync_study(backend_url, study, summarize(study, backend_url))
    with engine_for(backend_url).connect() as conn:
        reasons = dict(conn.execute(select(trials.c.number, trials.c.reason)).all())
        mirrored = conn.execute(select(studies.c.state)).scalar_one()
    assert reasons[1] == "marker"
    assert len(reasons) == 5
    assert mirrored == "finished"
    assert _count(backend_url, hosts) == 1
    assert _count(backend_url, scripts) == 1


def test_notes_survive_a_sync(backend_url: str) -> None:
    study = make_study(backend_url, "s3", trials=2)
    sync_study(backend_url, study, summarize(study, backend_url))
    with engine_for(backend_url).begin() as conn:
        conn.execute(update(studies).values(note="keep me"))
    sync_study(backend_url, study, summarize(study, backend_url))
    with engine_for(backend_url).connect() as conn:
        assert conn.execute(select(studies.c.note)).scalar_one() == "keep me"


def test_a_study_with_no_usable_trial_has_no_recommendation(backend_url: str) -> None:
    study = make_study(backend_url, "s4", trials=0, failures=2)
    record = state.TrialRecord(status="hung")
    study.add_trial(state.new_trial(record, optuna.trial.TrialState.FAIL, None, {}, {}, {}))
    sync_study(backend_url, study, summarize(study, backend_url))
    assert _count(backend_url, recommendations) == 1  # the baseline itself measured fine
    with engine_for(backend_url).connect() as conn:
        hung = conn.execute(select(trials.c.failure_class).where(trials.c.number == 3)).scalar()
    assert hung == "hung"


def test_sync_logs_instead_of_raising(caplog: pytest.LogCaptureFixture, tmp_path: object) -> None:
    study = make_study(f"sqlite:///{tmp_path}/ok.db", "s5", trials=1)
    with caplog.at_level(logging.WARNING, logger="autotune.store"):
        sync_study(
            "sqlite:////no/such/folder/x.db",
            study,
            summarize(study, "sqlite:////no/such/folder/x.db"),
        )
    assert "could not mirror study s5" in caplog.text


def test_sqlite_runs_in_wal_with_a_busy_timeout(tmp_path: object) -> None:
    url = f"sqlite:///{tmp_path}/wal.db"
    with engine_for(url).connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 30_000
