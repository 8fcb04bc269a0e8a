"""``autotune show``: a live run's segments over time, each reopened search marked, and its
reason written as it is (never read as rich markup)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from autotune.cli import _common, app
from tests.store.factory import close_storages, live_study, make_study

cli = CliRunner()


@pytest.fixture(autouse=True)
def wide(monkeypatch: pytest.MonkeyPatch) -> None:
    """One row a line: the terminal the CLI's console measured is not the test's."""
    monkeypatch.setattr(_common.out, "_width", 400)


WHY = "reopened: the data wait rose from 1.2 to 11.4 ms a batch [red]<b>x</b>[/red] [/x.cc:5]"


def test_show_marks_each_reopened_search_and_says_when_each_segment_started(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'a.db'}"
    live_study(url, "live", why=WHY)
    close_storages()
    result = cli.invoke(app, ["show", "live", "--storage", url])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    header = next(line for line in lines if line.startswith("┃"))
    assert [c.strip() for c in header.split("┃")[1:-1]][:4] == ["#", "role", "state", "started"]
    segments = [line for line in lines if line.startswith("│")]
    assert [r.split("│")[1].strip() for r in segments] == ["0", "1", "2", "3", "4"]
    # When each started, from the run's first segment (they start 10 s apart).
    assert [r.split("│")[4].strip() for r in segments] == [
        "+0.0s", "+10.0s", "+20.0s", "+30.0s", "+40.0s",
    ]  # fmt: skip
    roles = [r.split("│")[2].strip() for r in segments]
    # The reopened search is marked where it starts, set apart by a rule, its reason literal.
    assert roles == ["baseline", "adapt", "adapt", "↻ reopened", "reopened"]
    assert lines[lines.index(segments[3]) - 1].startswith("├")
    assert WHY in segments[3] and f"{WHY}; the run ended" in segments[4]
    # Each rank's own rate beside the job's: rank 1 lags.
    assert "(ranks 500, 450)" in segments[2]


def test_a_probe_s_study_has_no_started_column_and_no_mark(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'a.db'}"
    make_study(url, "probed", trials=2)
    close_storages()
    result = cli.invoke(app, ["show", "probed", "--storage", url])
    assert result.exit_code == 0, result.output
    assert "started" not in result.output and "↻" not in result.output
