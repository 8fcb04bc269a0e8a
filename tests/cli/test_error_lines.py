"""`autotune db upgrade` and `autotune serve` say what failed in one line, even when the
driver's error has no message."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

import autotune.store
from autotune.cli import app

cli = CliRunner()


def _silent(*args: object, **kwargs: object) -> object:
    raise RuntimeError("\n")


@pytest.mark.parametrize(
    ("command", "broken", "said"),
    [
        (["db", "upgrade"], "upgrade", "cannot upgrade"),
        (["serve"], "current_revision", "cannot open storage"),
    ],
)
def test_an_error_with_no_message_is_named_by_its_type(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, command: list[str], broken: str, said: str
) -> None:
    db = tmp_path / "a.db"
    db.touch()
    monkeypatch.setattr(autotune.store, broken, _silent)
    result = cli.invoke(app, [*command, "--storage", f"sqlite:///{db}"])
    assert result.exit_code == 2, result.output
    assert f"{said} sqlite:///{db}: RuntimeError" in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("budget", ["soon", "-5m", "0s", "inf"])
def test_a_budget_that_is_not_a_positive_time_is_refused_before_any_probe(
    budget: str, tmp_path: Path
) -> None:
    script = tmp_path / "train.py"
    script.write_text("print('never run')\n")
    db = tmp_path / "autotune.db"
    result = cli.invoke(
        app, ["probe", str(script), "--budget", budget, "--storage", f"sqlite:///{db}"]
    )
    assert result.exit_code == 2, result.output
    assert "--budget" in result.output and "30s" in result.output, result.output
    assert "Traceback" not in result.output
    assert not db.exists()  # refused before the storage was opened
