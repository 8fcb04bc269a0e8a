"""The probe runs inside the user's process: it must not drag in the tuner's packages."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import probe


def test_probed_script_sees_no_tuner_packages(tmp_path: Path) -> None:
    report = tmp_path / "modules.json"
    res = probe("imports.py", "--report", str(report))
    assert res.status in ("ended_early", "ok"), res.reason + res.stderr_tail
    loaded = json.loads(report.read_text())
    assert loaded == {name: False for name in loaded}, loaded


def test_importing_the_probe_package_is_light() -> None:
    code = (
        "import sys, autotune.probe, autotune.contract;"
        "bad=[m for m in ('optuna','sqlalchemy','fastapi','alembic','typer','rich') "
        "if m in sys.modules]; print(bad)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "[]"
