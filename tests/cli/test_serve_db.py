"""`autotune db upgrade` and `autotune serve` from the command line, over a real probe run."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from autotune.api import create_app
from fastapi.testclient import TestClient

from autotune.hardware import fingerprint
from tests.conftest import EXAMPLES, ROOT

CLI = [sys.executable, "-m", "autotune.cli"]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, cwd=ROOT, timeout=600)


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
    # Latency-bound: its baseline is far below the compute ceiling, so the search goes on
    # past it (a model-bound baseline may stop the search at the ceiling right away).
    script = EXAMPLES / "io_bound.py"
    probe = _run(
        "probe",
        str(script),
        "--trials",
        # Three: a sampled config that is the script as written is the baseline again, not
        # a second trial, so two could leave the study with one.
        "3",
        "--window",
        "0.3",
        "--windows",
        "2",
        "--warmup",
        "0.2",
        # Serving is the subject, not the search's reach: the seed's ~100 workers took 85 s
        # to fork and measure beside other tests on 2 cores.
        "--max-workers",
        "4",
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


UNREACHABLE = "postgresql+psycopg://nobody@127.0.0.1:1/x"


def _one_clear_line(res: subprocess.CompletedProcess[str]) -> str:
    assert res.returncode != 0, res.stdout
    assert "Traceback" not in res.stderr, res.stderr
    lines = res.stderr.strip().splitlines()
    assert lines[0].startswith("error: "), res.stderr
    return " ".join(line.strip() for line in lines)  # rich wraps at the terminal's width


@pytest.mark.parametrize(
    "command",
    [["db", "upgrade"], ["serve"], ["studies"], ["best", "some-study"], ["show", "some-study"]],
)
def test_an_unreachable_storage_is_one_clear_line(command: list[str]) -> None:
    message = _one_clear_line(_run(*command, "--storage", UNREACHABLE))
    assert "nobody@127.0.0.1:1/x" in message
    assert "Connection refused" in message or "connection failed" in message


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def newer_schema_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database upgraded by a newer autotune: its schema revision is unknown here."""
    import sqlalchemy

    from autotune.store._engine import engine_for
    from autotune.store._migrate import upgrade
    from tests.store.factory import close_storages, pg_database

    with contextlib.ExitStack() as stack:
        if request.param == "sqlite":
            url = f"sqlite:///{tmp_path / 'newer.db'}"
        else:
            url = stack.enter_context(pg_database())
        upgrade(url)
        with engine_for(url).begin() as conn:
            conn.execute(
                sqlalchemy.text("UPDATE autotune_alembic_version SET version_num = '9999'")
            )
        engine_for(url).dispose()
        close_storages()
        yield url


@pytest.mark.parametrize("command", [["db", "upgrade"], ["serve"]])
def test_a_newer_schema_says_upgrade_autotune(command: list[str], newer_schema_url: str) -> None:
    message = _one_clear_line(_run(*command, "--storage", newer_schema_url))
    assert "at schema 9999, newer than this autotune knows" in message
    assert "upgrade autotune" in message


def test_serve_refuses_a_missing_sqlite_file_without_creating_it(tmp_path: Path) -> None:
    path = tmp_path / "absent.db"
    message = _one_clear_line(_run("serve", "--storage", f"sqlite:///{path}"))
    assert f"there is no database at {path}" in message
    assert "autotune db upgrade" in message
    assert not path.exists()


def test_serve_on_a_port_in_use_is_one_clear_line(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'ok.db'}"
    assert _run("db", "upgrade", "--storage", url).returncode == 0
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        res = _run("serve", "--storage", url, "--port", str(port))
    message = _one_clear_line(res)
    assert f"cannot listen on 127.0.0.1:{port}" in message
    assert "another --port" in message
    assert "serving" not in res.stderr


@pytest.mark.parametrize("command", [[], ["probe"], ["db"], ["db", "upgrade"], ["serve"]])
def test_help_shows_flags_as_flags(command: list[str]) -> None:
    res = _run(*command, "--help")
    assert res.returncode == 0, res.stderr
    assert "--help" in res.stdout
    assert "<bool>" not in res.stdout


def test_help_still_shows_the_type_of_an_option_with_a_value() -> None:
    assert "<int range>" in _run("serve", "--help").stdout


def test_a_missing_script_is_one_clear_line(tmp_path: Path) -> None:
    script = tmp_path / "absent.py"
    message = _one_clear_line(_run("probe", str(script), "--storage", f"sqlite:///{tmp_path}/a.db"))
    assert f"script {script} does not exist" in message


@pytest.mark.parametrize("command", [["best"], ["show"]])
def test_an_unknown_study_is_one_clear_line(command: list[str], tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'ok.db'}"
    assert _run("db", "upgrade", "--storage", url).returncode == 0
    message = _one_clear_line(_run(*command, "no-such-study", "--storage", url))
    assert "no study named 'no-such-study'" in message
