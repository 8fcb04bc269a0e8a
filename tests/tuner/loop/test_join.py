"""Several joining processes on one study, and tuners killed mid-trial: nothing lost, nothing
twice."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import optuna
import psutil
import pytest
import sqlalchemy
from autotune.api import create_app
from fastapi.testclient import TestClient
from optuna.trial import FrozenTrial, TrialState
from typer.testing import CliRunner

from autotune.cli import app
from autotune.state import Identity, counted, identify, measured, role
from autotune.tuner import save_options
from tests.conftest import MARK_ENV, SCRIPTS, assert_no_orphans
from tests.store.factory import close_storages, hardware, pg_database, storage_for

TRIALS = 4
GRACE_S = 4  # a trial whose heartbeat is older than this is failed and retried
FAST = ["--warmup", "0.2", "--window", "0.25", "--windows", "3", "--trial-timeout", "60"]
FAST += ["--trials", str(TRIALS)]


@pytest.fixture
def pg_url() -> Iterator[str]:
    with pg_database() as url:
        yield url


@pytest.fixture(autouse=True)
def _close_optuna_storages() -> Iterator[None]:
    yield
    _stores.clear()
    close_storages()


def _env(mark: str) -> dict[str, str]:
    return {
        **os.environ,
        MARK_ENV: mark,
        "AUTOTUNE_HEARTBEAT_S": "1",
        "AUTOTUNE_GRACE_S": str(GRACE_S),
    }


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "autotune.cli", *args]


def _trials(url: str, name: str) -> list[FrozenTrial]:
    if url not in _stores:
        _stores[url] = storage_for(url)
    try:
        return optuna.load_study(study_name=name, storage=_stores[url]).get_trials()
    except KeyError:  # not created yet
        return []


_stores: dict[str, optuna.storages.RDBStorage] = {}


def _probing(procs: list[subprocess.Popen[bytes]]) -> subprocess.Popen[bytes] | None:
    """The process that has a probe running under it right now."""
    for proc in procs:
        try:
            children = psutil.Process(proc.pid).children()
            if any("autotune.probe" in " ".join(c.cmdline()) for c in children):
                return proc
        except psutil.Error:
            continue
    return None


def _beating(url: str, trial: FrozenTrial) -> bool:
    """Whether ``trial``'s heartbeat is in the storage (Optuna's own table)."""
    engine = sqlalchemy.create_engine(url)
    try:
        with engine.connect() as conn:
            query = sqlalchemy.text("SELECT COUNT(*) FROM trial_heartbeats WHERE trial_id = :t")
            return bool(conn.execute(query, {"t": trial._trial_id}).scalar())
    finally:
        engine.dispose()


def _kill_mid_trial(
    procs: list[subprocess.Popen[bytes]], url: str, name: str, deadline_s: float = 90
) -> int:
    """SIGKILL whichever process is probing an asked-for trial; its trial number."""
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        victim = _probing(procs)
        running = [t for t in _trials(url, name) if t.state == TrialState.RUNNING]
        if victim is not None and len(running) == 1 and running[0].datetime_start:
            # Mid-trial, once its heartbeat is recorded: a running trial that never beat is
            # never stale, and a loaded machine can take seconds to write the first one.
            if not _beating(url, running[0]) or _probing([victim]) is None:
                time.sleep(0.1)
                continue
            victim.send_signal(signal.SIGKILL)
            victim.wait()
            return running[0].number
        time.sleep(0.1)
    raise AssertionError("no trial was ever probed")


def _check_killed_and_retried(trials: list[FrozenTrial], killed: int, log: str = "") -> None:
    numbers = [t.number for t in trials]
    assert len(numbers) == len(set(numbers))
    dead = trials[killed]
    assert dead.state == TrialState.FAIL, (dead, log)
    assert not measured(dead)
    retries = [t for t in trials if t.system_attrs.get("failed_trial") == killed]
    assert len(retries) == 1, [t.system_attrs for t in trials]
    assert retries[0].params == dead.params
    assert retries[0].state in (TrialState.COMPLETE, TrialState.FAIL, TrialState.PRUNED)
    assert len(counted(trials)) == TRIALS
    assert sum(role(t) == "baseline" for t in trials) == 1
    assert not [t for t in trials if t.state in (TrialState.RUNNING, TrialState.WAITING)]


@pytest.mark.postgres
@pytest.mark.slow
def test_three_workers_on_postgres_one_killed(pg_url: str) -> None:
    mark, name = uuid.uuid4().hex, "cluster"
    env = _env(mark)
    script = str(SCRIPTS / "basic.py")
    subprocess.run(_cli("db", "upgrade", "--storage", pg_url), env=env, check=True)
    created = subprocess.run(
        _cli("probe", script, "--seed-only", "--storage", pg_url, "--study", name, *FAST),
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert created.returncode == 0, created.stderr
    assert "autotune join --study cluster" in created.stderr
    assert [role(t) for t in _trials(pg_url, name) if t.state != TrialState.WAITING] == [
        "baseline"
    ]  # the rest is the workers' job
    workers = [
        subprocess.Popen(
            _cli(command, "--study", name, "--storage", pg_url),
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for command in ("join", "join", "worker")  # the old name still joins
    ]
    try:
        killed = _kill_mid_trial(workers, pg_url, name)
        for proc in workers:
            _out, errors = proc.communicate(timeout=150)
            assert proc.returncode in (0, -signal.SIGKILL), errors.decode()
    finally:
        for proc in workers:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert_no_orphans(mark)
    _check_killed_and_retried(_trials(pg_url, name), killed)

    best = subprocess.run(
        _cli("best", name, "--storage", pg_url, "--json"),
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    recommended = json.loads(best.stdout)["recommended"]
    with TestClient(create_app(pg_url)) as client:
        response = client.get(f"/api/v1/studies/{name}/best")
    assert response.status_code == 200, response.text
    served = response.json()
    assert served["trial"] == recommended["trial"]
    assert {k: v for k, v in served["config"].items() if v is not None} == {
        k: v for k, v in recommended["config"].items() if v is not None
    }


@pytest.mark.slow
def test_sqlite_tuner_killed_and_started_again(tmp_path: Path) -> None:
    mark, name = uuid.uuid4().hex, "local"
    url = f"sqlite:///{tmp_path / 'autotune.db'}"
    cmd = _cli("probe", str(SCRIPTS / "basic.py"), "--storage", url, "--study", name)
    cmd += ["--patience", "20", *FAST]
    tuner = subprocess.Popen(
        cmd, env=_env(mark), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        killed = _kill_mid_trial([tuner], url, name)
    finally:
        if tuner.poll() is None:
            tuner.kill()
            tuner.wait()
    killed_at = time.monotonic()
    # The orphaned probe notices its runner is gone and takes its DataLoader workers along.
    assert_no_orphans(mark, wait_s=5)
    before = [t for t in _trials(url, name) if t.state == TrialState.COMPLETE]
    # Start again once the killed trial's last heartbeat (at the latest, the kill) is older
    # than the grace: from then on it is stale, whatever the machine's load. A start within
    # the grace retries it only if the new run lasts beyond it (a known gap).
    time.sleep(max(0.0, killed_at + GRACE_S + 0.5 - time.monotonic()))
    # --resume: a restart whose machine load differs from the study's would otherwise measure
    # afresh in a new study (it says so), leaving this one as the kill left it.
    again = subprocess.run(
        [*cmd, "--resume"], env=_env(mark), capture_output=True, text=True, timeout=150
    )
    assert again.returncode == 0, again.stderr
    assert_no_orphans(mark)
    trials = _trials(url, name)
    for t in before:  # no finished trial lost or measured again
        assert trials[t.number].state == TrialState.COMPLETE
        assert trials[t.number].value == t.value
    _check_killed_and_retried(trials, killed, again.stderr)


def test_worker_on_other_hardware_refuses(db_url: str) -> None:
    study = optuna.create_study(storage=storage_for(db_url), study_name="elsewhere")
    elsewhere = hardware(cpu_count=512, gpu_model="NVIDIA B200")
    identify(study, Identity(script=str(SCRIPTS / "basic.py"), hardware=elsewhere))
    from autotune.tuner import TunerOptions

    save_options(study, TunerOptions())
    result = CliRunner().invoke(app, ["worker", "--study", "elsewhere", "--storage", db_url])
    assert result.exit_code != 0
    assert "cannot join study 'elsewhere'" in result.output
    assert "512 CPUs" in result.output
    assert f"{os.cpu_count()} CPUs" in result.output
    assert "Traceback" not in result.output
