from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import optuna
import pytest
from autotune.api import create_app
from fastapi.testclient import TestClient

from autotune import state
from autotune.store._migrate import upgrade
from autotune.store._sync import sync_study_strict
from autotune.tuner import summarize
from tests.store.factory import close_storages, hardware, make_study, storage_for

TOKEN = "s3cret-token"
SCRIPT = "/home/me/train.py"
HOST = hardware()["id"]
OTHER_HW = hardware(cpu_count=64, gpu_model="NVIDIA H100")


def fill(url: str) -> None:
    """Three studies: one per hardware for the same script, and one with nothing usable."""
    upgrade(url)
    store = storage_for(url)
    for study in (
        make_study(store, "alpha", script=SCRIPT, args=["--epochs", "1"], trials=6, seed=1),
        make_study(store, "beta", script=SCRIPT, hw=OTHER_HW, trials=3, seed=2),
    ):
        sync_study_strict(url, study, summarize(study, url))
    broken = optuna.create_study(storage=store, study_name="broken", direction="maximize")
    state.identify(broken, state.Identity(script="/home/me/other.py", hardware=hardware()))
    crashed = state.TrialRecord(role="baseline", status="crashed", reason="ImportError: no torch")
    broken.add_trial(state.new_trial(crashed, optuna.trial.TrialState.FAIL, None, {}, {}, {}))
    sync_study_strict(url, broken, summarize(broken, url))
    close_storages()


@pytest.fixture
def db(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'api.db'}"
    fill(url)
    return url


@pytest.fixture
def client(db: str) -> Iterator[TestClient]:
    with TestClient(create_app(db, api_token=TOKEN)) as c:
        yield c


@pytest.fixture
def auth() -> dict[str, str]:
    return {"Authorization": f"Bearer {TOKEN}"}
