"""What the wheel holds: every package, Alembic's scripts found through the package, and a
Dockerfile that installs the wheel. wheel_smoke.sh (run by .ci/run) installs and uses it."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import tomllib
from alembic.script import ScriptDirectory

from autotune.store._migrate import MIGRATIONS_PACKAGE, alembic_config, migrations_dir
from tests.conftest import ROOT


def _setuptools() -> dict[str, object]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert isinstance(config, dict)
    return config


def test_every_package_of_the_checkout_is_listed() -> None:
    config = _setuptools()
    found = {
        ".".join((name, *init.parent.relative_to(ROOT / top).parts))
        for top, name in (("autotune", "autotune"), ("api", "autotune.api"))
        for init in (ROOT / top).rglob("__init__.py")
    }
    listed = set(config["packages"])  # type: ignore[call-overload]
    assert found | {MIGRATIONS_PACKAGE, f"{MIGRATIONS_PACKAGE}.versions"} == listed
    assert config["package-dir"] == {
        "autotune.api": "api",
        "autotune.api.routes": "api/routes",
        MIGRATIONS_PACKAGE: "migrations",
    }


@pytest.mark.slow
def test_the_wheel_installs_one_import_name_autotune(tmp_path: Path) -> None:
    # A top-level `api` in site-packages would collide with a user's own api/ folder.
    # Built from a copy of what the wheel is made of, as wheel_smoke.sh does: the checkout
    # gets no build/ folder.
    src, dist = tmp_path / "src", tmp_path / "dist"
    for part in ("autotune", "api", "migrations"):
        shutil.copytree(ROOT / part, src / part, ignore=shutil.ignore_patterns("__pycache__"))
    for part in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / part, src / part)
    wheel_cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation"]
    subprocess.run([*wheel_cmd, "-q", "-w", str(dist), str(src)], check=True)
    (wheel,) = dist.glob("autotune-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
    tops = {name.split("/")[0] for name in names}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"autotune"}, sorted(tops)
    assert "autotune/api/main.py" in names
    assert "autotune/api/templates/base.html" in names
    assert "autotune/api/static/dashboard.js" in names
    assert "autotune/migrations/env.py" in names


def test_migrations_are_found_through_the_package() -> None:
    folder = migrations_dir()
    assert folder.resolve() == (ROOT / "migrations").resolve()  # the editable install's map
    script = ScriptDirectory.from_config(alembic_config("sqlite://"))
    assert [s.revision for s in script.walk_revisions()][-1] == "0001"
    shipped = {p.name for p in (folder / "versions").glob("*.py")}
    assert shipped == {p.name for p in (ROOT / "migrations" / "versions").glob("*.py")}


def test_the_image_installs_the_wheel() -> None:
    text = (ROOT / "Dockerfile").read_text()
    assert "pip wheel" in text
    assert "pip install -e" not in text
    assert Path(ROOT / "tests" / "install" / "wheel_smoke.sh").is_file()
    assert "tests/install/wheel_smoke.sh" in (ROOT / ".ci" / "run").read_text()
