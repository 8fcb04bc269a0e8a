"""Realistic studies without probing: trials built from ProbeResults as the tuner writes them."""

from __future__ import annotations

import os
import random
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any

import optuna
import pytest
from optuna.distributions import CategoricalDistribution, IntDistribution

from autotune import state
from autotune._words import first_line
from autotune.contract import LoaderConfig, ProbeResult
from autotune.hardware import fingerprint_id
from autotune.tuner.evidence._trials import frozen_from_result
from autotune.tuner.policy._diagnosis import diagnose_study
from autotune.tuner.policy._machine import Machine

PG_ENV = "AUTOTUNE_TEST_PG"
PG_DEFAULT = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
DISTRIBUTIONS: dict[str, Any] = {
    "num_workers": IntDistribution(0, 8),
    "pin_memory": CategoricalDistribution([False, True]),
}


def hardware(cpu_count: int = 2, gpu_model: str | None = None) -> dict[str, Any]:
    fp: dict[str, Any] = {
        "cpu_model": "Intel(R) Xeon(R) Processor",
        "cpu_count": cpu_count,
        "memory_gb": 8,
        "gpu_model": gpu_model,
        "gpu_count": 1 if gpu_model else 0,
        "driver": None,
        "torch": "2.13.0",
        "cuda": None,
        "platform": "linux",
    }
    fp["id"] = fingerprint_id(fp)
    return fp


def probe_result(rng: random.Random, workers: int, status: str = "ok") -> ProbeResult:
    rate = 800.0 * (1 + min(workers, 4)) * rng.uniform(0.9, 1.1)
    config = LoaderConfig(
        num_workers=workers,
        prefetch_factor=2 if workers else None,
        pin_memory=False,
        persistent_workers=False,
        batch_size=32,
        num_streams=0,
        device="cpu",
    )
    ok = status == "ok"
    return ProbeResult(
        status=status,  # type: ignore[arg-type]
        reason="" if ok else "worker 3 crashed: MemoryError",
        script_config=LoaderConfig(num_workers=0, batch_size=32, pin_memory=False),
        applied_config=config,
        windows=[rate * rng.uniform(0.95, 1.05) for _ in range(3)] if ok else [],
        # Another process on the cores during the baseline's last window (2 cores: >= 0.5).
        interference_cores=[0.05, 0.1, 0.9 if workers == 0 else 0.1] if ok else [],
        samples_per_s=rate if ok else None,
        step_p50_s=0.01,
        step_p95_s=0.02,
        data_wait_fraction=0.4 / (1 + workers),
        wait_per_batch_s=0.004,
        compute_per_batch_s=0.006,
        time_to_first_batch_s=0.2,
        batches=300,
        samples=9600,
        batch_size=32,
        main_cpu_s=1.2,
        worker_cpu_s=0.8 * workers,
        measured_wall_s=1.5,
        peak_rss_bytes=500_000_000 + workers * 100_000_000,
        cpu_count=2,
        wall_s=3.2,
        exit_code=0 if ok else 1,
        stderr_tail="" if ok else "MemoryError\n",
    )


def add_trial(
    study: optuna.Study, rng: random.Random, role: str = "search", status: str = "ok"
) -> None:
    workers = 0 if role == "baseline" else rng.randint(0, 8)
    result = probe_result(rng, workers, status)
    params = {"num_workers": workers, "pin_memory": False}
    study.add_trial(frozen_from_result(result, role, params, DISTRIBUTIONS))


_opened: list[optuna.storages.RDBStorage] = []


def storage_for(url: str) -> optuna.storages.RDBStorage:
    """Optuna's storage on ``url``, closed by close_storages() when the test ends."""
    from autotune.store import open_storage

    store = open_storage(url)
    _opened.append(store)
    return store


def close_storages() -> None:
    while _opened:
        store = _opened.pop()
        store.remove_session()
        store.engine.dispose()


def make_study(
    storage: str | optuna.storages.BaseStorage,
    name: str | None = None,
    *,
    script: str = "/home/me/train.py",
    args: list[str] | None = None,
    hw: dict[str, Any] | None = None,
    trials: int = 6,
    failures: int = 1,
    seed: int = 0,
    finished: bool = True,
) -> optuna.Study:
    """A study with a baseline, ``trials`` searches and ``failures`` crashed trials."""
    rng = random.Random(seed)
    if isinstance(storage, str):
        storage = storage_for(storage)
    study = optuna.create_study(
        storage=storage, study_name=name or f"train-{uuid.uuid4().hex[:8]}", direction="maximize"
    )
    state.identify(
        study,
        state.Identity(
            script=script, args=args or [], hardware=hw or hardware(), created_at=1_700_000_000.0
        ),
    )
    add_trial(study, rng, "baseline")
    for _ in range(trials):
        add_trial(study, rng)
    for _ in range(failures):
        add_trial(study, rng, status="crashed")
    # The tuner's own code writes the diagnosis, so its keys are the ones real studies hold;
    # like the tuner, the stop records it (a study still searching has none yet).
    diagnosis = diagnose_study(study, Machine(cpu_count=2))
    assert diagnosis is not None
    if finished:
        state.save_stop(study, "no gain in 4 trials", diagnosis)
    return study


LIVE_START = datetime(2026, 1, 1, 12, 0, 0)
LIVE_SEGMENT_S = 10.0  # each segment of live_study starts this long after the one before


def live_study(
    storage: str | optuna.storages.BaseStorage,
    name: str,
    *,
    why: str,
    world: int = 2,
    script: str = "/home/me/train.py",
) -> optuna.Study:
    """A live run's study as `autotune run --adapt --nproc-per-node 2` records it: the
    script's own settings (segment 0), the search's segments, then one reopened search
    (reason ``why``) of two segments, the second with a reason of its own after "; ".
    Each rank measures each segment; segment k started ``k * LIVE_SEGMENT_S`` after the first."""
    from dataclasses import replace

    from autotune.runner import merge_rank_results

    if isinstance(storage, str):
        storage = storage_for(storage)
    study = optuna.create_study(storage=storage, study_name=name, direction="maximize")
    state.identify(study, state.Identity(script=script, hardware=hardware()))
    segments = [
        ("baseline", 0, ""),
        ("adapt", 2, ""),
        ("adapt", 4, ""),
        ("reopened", 4, why),
        ("reopened", 8, f"{why}; the run ended during this segment"),
    ]
    for k, (role, workers, reason) in enumerate(segments):
        config = LoaderConfig(num_workers=workers, prefetch_factor=2 if workers else None)
        ranks = []
        for rank in range(world):
            rate = 100.0 * (1 + workers) * (1 - 0.1 * rank)  # rank 1 lags: its rate shows it
            ranks.append(
                ProbeResult(
                    status="ok",
                    samples_per_s=rate,
                    windows=[rate, rate],
                    applied_config=config,
                    wait_per_batch_s=0.01 / (1 + workers),
                    compute_per_batch_s=0.005,
                    data_wait_fraction=0.5 / (1 + workers),
                )
            )
        result = merge_rank_results(ranks) if world > 1 else ranks[0]
        # The job's rate as a live run states it: the slowest rank's times the ranks.
        result.samples_per_s = world * min(r.samples_per_s or 0.0 for r in ranks)
        record = replace(state.TrialRecord.of_result(result, role), reason=reason or None)
        study.add_trial(
            state.new_trial(
                record,
                optuna.trial.TrialState.COMPLETE,
                result.samples_per_s,
                {"num_workers": workers},
                {"num_workers": IntDistribution(0, 32)},
                dict(enumerate(result.windows)),
                started=LIVE_START + timedelta(seconds=k * LIVE_SEGMENT_S),
            )
        )
    return study


def _pg_admin_url() -> str:
    return os.environ.get(PG_ENV, PG_DEFAULT)


@contextmanager
def pg_database() -> Iterator[str]:
    """A fresh PostgreSQL database, dropped afterwards; skips with the reason if none answers."""
    import sqlalchemy

    admin_url = _pg_admin_url()
    try:
        admin = sqlalchemy.create_engine(
            admin_url, isolation_level="AUTOCOMMIT", connect_args={"connect_timeout": 3}
        )
        with admin.connect() as conn:
            conn.exec_driver_sql("SELECT 1")
    except Exception as exc:
        pytest.skip(
            f"no PostgreSQL server at {admin_url} ({first_line(exc)}); "
            f"set {PG_ENV} to a reachable server"
        )
    name = f"autotune_test_{uuid.uuid4().hex[:12]}"
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    url = sqlalchemy.make_url(admin_url).set(database=name).render_as_string(hide_password=False)
    try:
        yield url
    finally:
        from autotune.store._engine import engine_for

        close_storages()
        engine_for(url).dispose()
        engine_for.cache_clear()
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()
