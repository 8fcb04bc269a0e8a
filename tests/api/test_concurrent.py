"""The API reads the SQLite file while another process writes trials into it."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from autotune.api import create_app
from fastapi.testclient import TestClient

from tests.api.conftest import HOST, SCRIPT, TOKEN, fill
from tests.conftest import ROOT

# A probe's write pattern, faster: add a trial through Optuna, then mirror it.
_WRITER = """
import random, sys, optuna
from autotune.store import open_storage, sync_study
from autotune.tuner import summarize
from tests.store.factory import add_trial
url, n = sys.argv[1], int(sys.argv[2])
optuna.logging.set_verbosity(optuna.logging.WARNING)
study = optuna.load_study(study_name="alpha", storage=open_storage(url))
rng = random.Random(3)
for i in range(n):
    add_trial(study, rng)
    sync_study(url, study, summarize(study, url))
print("wrote", n)
"""


def test_reader_beside_a_writer_never_sees_a_locked_database(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'busy.db'}"
    fill(url)
    writer = subprocess.Popen(
        [sys.executable, "-c", _WRITER, url, "40"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    statuses: list[int] = []
    seen_trials: set[int] = set()
    with TestClient(create_app(url, api_token=TOKEN)) as client:
        deadline = time.monotonic() + 60
        while writer.poll() is None and time.monotonic() < deadline:
            for path, params in (
                ("/api/v1/studies/alpha/best", {}),
                ("/api/v1/recommendations", {"script": SCRIPT, "host": HOST}),
                ("/api/v1/studies/alpha", {}),
            ):
                r = client.get(path, params=params)
                statuses.append(r.status_code)
                assert r.status_code == 200, r.text
                if path == "/api/v1/studies/alpha":
                    seen_trials.add(r.json()["trials"]["total"])
    out, _ = writer.communicate(timeout=30)
    assert writer.returncode == 0, out
    assert "wrote 40" in out
    assert "database is locked" not in out
    assert "could not mirror" not in out
    assert len(statuses) > 20
    # The reader saw the study grow while the writer worked, not only before and after.
    assert len(seen_trials) > 2, seen_trials
