"""`autotune db upgrade` and `autotune serve` from the command line, over a real probe run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from api import create_app
from autotune.hardware import fingerprint
from tests.conftest import EXAMPLES, ROOT

CLI = [sys.executable, "-m", "autotune.cli"]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, cwd=ROOT, timeout=120)


@pytest.mark.parametrize("command", [["db", "upgrade"], ["serve"]])
def test_bad_storage_is_one_clear_line(command: list[str]) -> None:
    res = _run(*command, "--storage", "nonsense")
    assert res.returncode != 0
    assert res.stderr.strip().startswith("error: 'nonsense' is not a database URL")
    assert "Traceback" not in res.stderr


def test_serve_refuses_an_unmigrated_database(tmp_path: Path) -> None:
    res = _run("serve", "--storage", f"sqlite:///{tmp_path / 'new.db'}")
    assert res.returncode != 0
    assert "run `autotune db upgrade" in res.stderr


@pytest.mark.slow
def test_a_real_probe_is_served(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'probe.db'}"
    script = EXAMPLES / "model_bound.py"
    probe = _run(
        "probe",
        str(script),
        "--trials",
        "2",
        "--window",
        "0.3",
        "--windows",
        "2",
        "--warmup",
        "0.2",
        "--storage",
        url,
    )
    assert probe.returncode == 0, probe.stderr
    upgraded = _run("db", "upgrade", "--storage", url)
    assert upgraded.returncode == 0, upgraded.stderr
    assert "1 studies mirrored" in upgraded.stdout
    with TestClient(create_app(url)) as client:
        studies = client.get("/api/v1/studies").json()["items"]
        assert len(studies) == 1
        name = studies[0]["name"]
        assert studies[0]["script"] == str(script.resolve())
        trials = client.get(f"/api/v1/studies/{name}/trials").json()
        assert trials["total"] >= 2
        first = client.get(f"/api/v1/studies/{name}/trials/0").json()
        assert first["role"] == "baseline"
        assert first["windows"]
        found = client.get(
            "/api/v1/recommendations",
            params={"script": str(script.resolve()), "host": fingerprint()["id"]},
        )
        assert found.status_code == 200, found.text
        assert found.json()["study"] == name
