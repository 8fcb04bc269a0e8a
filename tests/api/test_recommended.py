"""autotune.recommended(): the settings a training script fetches, or its own on any failure."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import pytest
import uvicorn
from autotune.api import create_app

import autotune
from autotune._recommended import RecommendationWarning, loader_kwargs
from tests.api.conftest import HOST, OTHER_HW, SCRIPT

FALLBACK = {"batch_size": 32, "num_workers": 0, "shuffle": True}


@pytest.fixture
def service(db: str) -> Iterator[str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(create_app(db), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


def test_from_the_service(service: str) -> None:
    got = autotune.recommended(SCRIPT, fallback=FALLBACK, url=service, host=HOST)
    assert got["shuffle"] is True
    assert got["num_workers"] > 0
    assert got["prefetch_factor"] == 2


def test_from_the_storage(db: str) -> None:
    got = autotune.recommended(SCRIPT, fallback=FALLBACK, storage=db, host=OTHER_HW["id"], args=[])
    assert got["num_workers"] > 0


def test_no_match_falls_back_with_the_reason(service: str) -> None:
    with pytest.warns(RecommendationWarning, match="measured only on"):
        got = autotune.recommended(SCRIPT, fallback=FALLBACK, url=service, host="0" * 12)
    assert got == FALLBACK


def test_service_down_falls_back(unused_port: int) -> None:
    with pytest.warns(RecommendationWarning, match="cannot be reached"):
        got = autotune.recommended(
            SCRIPT,
            fallback=FALLBACK,
            url=f"http://127.0.0.1:{unused_port}",
            host=HOST,
            timeout_s=0.5,
        )
    assert got == FALLBACK


def test_unreadable_storage_falls_back(tmp_path: object) -> None:
    with pytest.warns(RecommendationWarning, match="no study matches|cannot be read"):
        got = autotune.recommended(
            SCRIPT, fallback=FALLBACK, storage="sqlite:////no/such/x.db", host=HOST
        )
    assert got == FALLBACK


def test_kwargs_stay_valid_for_dataloader_without_workers() -> None:
    got = loader_kwargs(
        {
            "num_workers": 0,
            "prefetch_factor": None,
            "persistent_workers": True,
            "num_streams": 2,
            "device": "cuda",
        },
        {"prefetch_factor": 4},
    )
    assert got == {"num_workers": 0, "persistent_workers": False}


def test_importing_autotune_stays_light() -> None:
    code = (
        "import sys, autotune; f = autotune.recommended; "
        "print([m for m in ('sqlalchemy', 'optuna', 'fastapi', 'torch') if m in sys.modules])"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "[]"


@pytest.fixture
def unused_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
