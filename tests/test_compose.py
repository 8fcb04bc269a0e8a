"""docker-compose.yml: it parses, runs only commands the CLI has, and starts in order."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
import yaml

from autotune.cli import app
from tests.conftest import ROOT


def _compose() -> dict[str, Any]:
    data = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    assert isinstance(data, dict)
    return data


def _names(group: typer.Typer) -> tuple[set[str], dict[str, typer.Typer]]:
    commands = {
        c.name or (c.callback.__name__ if c.callback else "") for c in group.registered_commands
    }
    groups = {g.name or "": g.typer_instance for g in group.registered_groups if g.typer_instance}
    return commands, groups


def _exists(argv: list[str]) -> bool:
    """Whether ``autotune argv...`` names a real (sub)command."""
    group = app
    for word in argv:
        commands, groups = _names(group)
        if word in commands:
            return True
        if word not in groups:
            return False
        group = groups[word]
    return False


def test_every_service_command_exists_in_the_cli() -> None:
    services = _compose()["services"]
    assert {"postgres", "migrate", "api", "worker"} <= set(services)
    for name in ("migrate", "api", "worker"):
        command = services[name]["command"]
        assert command[0] == "autotune", name
        assert _exists(command[1:]), f"{name}: {command}"
    assert services["migrate"]["command"][1:3] == ["db", "upgrade"]
    assert services["api"]["command"][1] == "serve"
    assert "0.0.0.0" in services["api"]["command"]
    assert services["worker"]["command"][1] == "join"
    assert not _exists(["nonsense"])


def test_services_start_in_order() -> None:
    services = _compose()["services"]
    assert "healthcheck" in services["postgres"]
    assert services["migrate"]["depends_on"] == {"postgres": {"condition": "service_healthy"}}
    for name in ("api", "worker"):
        assert services[name]["depends_on"] == {
            "migrate": {"condition": "service_completed_successfully"}
        }


def test_api_token_from_the_environment_and_a_gpu_per_worker() -> None:
    services = _compose()["services"]
    assert "AUTOTUNE_API_TOKEN" in services["api"]["environment"]
    devices = services["worker"]["deploy"]["resources"]["reservations"]["devices"]
    assert any("gpu" in d["capabilities"] for d in devices)
    for name in ("migrate", "api", "worker"):
        assert "postgres" in services[name]["environment"]["AUTOTUNE_STORAGE"]


def test_dockerfile_installs_what_the_services_run() -> None:
    text = (ROOT / "Dockerfile").read_text()
    assert "COPY migrations" in text
    assert '["postgres"]' in text  # the postgres extra is installed
    assert Path(ROOT / "migrations").is_dir()


def test_secure_defaults_no_database_port_loopback_api_and_a_required_password() -> None:
    services = _compose()["services"]
    # The database is reached on the compose network only: nothing published on the host.
    assert "ports" not in services["postgres"]
    # The API is published on the host's loopback unless the user says otherwise.
    (published,) = services["api"]["ports"]
    assert published.startswith("${AUTOTUNE_API_BIND:-127.0.0.1}:"), published
    # No default password anywhere: compose refuses to start without one, saying which.
    text = (ROOT / "docker-compose.yml").read_text()
    assert ":-autotune}" not in text
    assert services["postgres"]["environment"]["POSTGRES_PASSWORD"].startswith(
        "${POSTGRES_PASSWORD:?"
    )
    for name in ("migrate", "api", "worker"):
        assert "${POSTGRES_PASSWORD:?" in services[name]["environment"]["AUTOTUNE_STORAGE"]
    # Writes stay off without a token: the token has no default either.
    assert services["api"]["environment"]["AUTOTUNE_API_TOKEN"] == "${AUTOTUNE_API_TOKEN:-}"


def test_a_cpu_worker_is_the_gpu_worker_without_the_gpu() -> None:
    services = _compose()["services"]
    gpu, cpu = services["worker"], services["worker-cpu"]
    assert cpu["profiles"] == ["cpu"]  # started only when asked for: GPU nodes get `worker`
    assert not cpu["deploy"]
    for key in ("command", "environment", "volumes", "depends_on", "build", "image"):
        assert cpu[key] == gpu[key], key
    # DataLoader workers hand batches over in /dev/shm: Docker's 64 MB default is too small.
    assert gpu["shm_size"] == cpu["shm_size"] == "${AUTOTUNE_SHM_SIZE:-8g}"


def test_official_images_by_default_local_ones_by_argument() -> None:
    services = _compose()["services"]
    build = services["api"]["build"]
    assert build["args"] == {
        "BASE_IMAGE": "${AUTOTUNE_BASE_IMAGE:-python:3.11-slim}",
        "WHEELS": "${AUTOTUNE_WHEELS:-.no-wheels}",
    }
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "ARG BASE_IMAGE=python:3.11-slim" in dockerfile
    assert "ARG WHEELS=.no-wheels" in dockerfile
    assert not (ROOT / ".no-wheels").exists()  # the default really is "no wheel folder"
    # The local PostgreSQL (Debian's package) is the default image's major version.
    image = services["postgres"]["image"]
    assert image == "${AUTOTUNE_POSTGRES_IMAGE:-postgres:15}"
    major = image.rsplit(":", 1)[1].rstrip("}")
    local = (ROOT / "tests/install/compose/postgres.Dockerfile").read_text()
    assert f"/usr/lib/postgresql/{major}/bin" in local
    assert f"postgresql-{major}" in (ROOT / "tests/install/compose_smoke.sh").read_text()


def test_the_build_context_leaves_out_the_checkouts_bulk() -> None:
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert {".git", ".venv", "tests"} <= set(ignored)
    for needed in ("autotune", "api", "migrations", "pyproject.toml", "README.md"):
        assert needed not in ignored
