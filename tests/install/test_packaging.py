"""What the wheel holds: every package, Alembic's scripts found through the package, and a
Dockerfile that installs the wheel. wheel_smoke.sh (run by .ci/run) installs and uses it."""

from __future__ import annotations

from pathlib import Path

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
        ".".join(init.parent.relative_to(ROOT).parts)
        for top in ("autotune", "api")
        for init in (ROOT / top).rglob("__init__.py")
    }
    listed = set(config["packages"])  # type: ignore[call-overload]
    assert found | {MIGRATIONS_PACKAGE, f"{MIGRATIONS_PACKAGE}.versions"} == listed
    assert config["package-dir"] == {MIGRATIONS_PACKAGE: "migrations"}


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
