"""Text from a script is shown literally on the terminal and kept whole in --json: rich markup
is not read, terminal controls are written out, long lines are cut on the terminal only."""

from __future__ import annotations

import io
import json

import pytest
from rich.table import Table
from typer.testing import CliRunner

from autotune._words import visible
from autotune.cli import app
from autotune.cli._common import _Console, literal, say
from tests.hostile import (
    ARG,
    DATASET,
    FIRST,
    REASON,
    SCRIPT_NAME,
    SHOWN_AS_IS,
    WORKER,
    Probed,
    autotune,
    probe_hostile,
)

cli = CliRunner()


def _shown(*renderables: object, width: int = 200) -> str:
    buffer = io.StringIO()
    console = _Console(file=buffer, width=width, highlight=False, emoji=False)
    for r in renderables:
        console.print(r)
    return buffer.getvalue()


def test_literal_text_is_never_markup_and_never_a_terminal_control() -> None:
    text = "[bold]x[/] [/__w/a/pair.cc:553] \x1b[31mred\x1b[0m\x07 nul\x00 \x9b2J \udcff :x:"
    shown = _shown(literal(text))
    assert shown == (
        "[bold]x[/] [/__w/a/pair.cc:553] \\x1b[31mred\\x1b[0m\\x07 nul\\x00 \\x9b2J \\udcff :x:\n"
    )


def test_long_text_is_cut_in_the_middle_and_says_how_much() -> None:
    text = "start " + "y" * 5000 + " (in DataLoader worker process 0)"
    shown = literal(text).plain
    assert shown.startswith("start yyy") and shown.endswith(" (in DataLoader worker process 0)")
    assert f"…[{len(text) - 400:,} more characters]…" in shown
    assert len(shown) < 400 + 40
    assert literal(text, limit=None).plain == text
    assert literal("y" * 400).plain == "y" * 400


def test_say_styles_only_what_we_style() -> None:
    line = say(("error:", "bold red"), " ", literal("[red]not red[/red]"))
    assert line.plain == "error: [red]not red[/red]"
    assert [str(span.style) for span in line.spans] == ["bold red"]


def test_the_consoles_survive_strings_that_no_caller_wrapped() -> None:
    # The net under call sites that print a script's text in an f-string: no MarkupError,
    # no terminal control, whatever reaches the console.
    table = Table(title="[/title]")
    table.add_column("reason")
    table.add_row("rank 0: [/__w/pytorch/third_party/gloo/pair.cc:553] \x1b[2J")
    shown = _shown("x [/__w/a/pair.cc:553] \x1b[31m y", "rank 1 [the main process]", table)
    assert "x [/__w/a/pair.cc:553] \\x1b[31m y" in shown
    assert "rank 1 [the main process]" in shown
    assert "[/__w/pytorch/third_party/gloo/pair.cc:553] \\x1b[2J" in shown
    assert "[/title]" in shown
    assert "\x1b" not in shown
    # Our own markup still styles.
    buffer = io.StringIO()
    _Console(file=buffer, force_terminal=True, width=80).print("[bold]ours[/]")
    assert "\x1b[1mours" in buffer.getvalue()


def test_an_error_line_quotes_a_name_as_it_is(db_url: str) -> None:
    assert cli.invoke(app, ["db", "upgrade", "--storage", db_url]).exit_code == 0
    name = "[/__w/x.cc:1] <b>[bold]n[/]"
    result = cli.invoke(app, ["best", name, "--storage", db_url])
    assert result.exit_code == 2, result.output
    assert f"no study named '{name}'" in result.output
    assert "Traceback" not in result.output


# --- a real probe of a script whose workers raise hostile text -------------------------------


@pytest.fixture(scope="module")
def probed(tmp_path_factory: pytest.TempPathFactory) -> Probed:
    return probe_hostile(tmp_path_factory.mktemp("literal"))


def _assert_literal(text: str) -> None:
    """Every hostile piece as it was, nothing a terminal would act on, no line too long."""
    for piece in [*SHOWN_AS_IS, "\\x1b[31mred\\x1b[0m", "bytes:\ufffd\ufffd"]:
        assert piece in text, piece
    assert "\x1b" not in text and "\x00" not in text and "\x07" not in text
    assert "❌" not in text  # ":x:" is not an emoji code here
    assert "Traceback" not in text and "MarkupError" not in text
    assert max(len(line) for line in text.splitlines()) < 600


@pytest.mark.slow
def test_probe_shows_the_workers_errors_literally(probed: Probed) -> None:
    text = probed.out + probed.err
    assert probed.code == 0, text  # the script as written works: it is the recommendation
    _assert_literal(text)
    assert WORKER in text
    assert "- crashed: ValueError: [bold]x[/] [/__w/a/pair.cc:553] <script>" in probed.err
    # The class name, the path and the argument: the dataset's class is named literally...
    assert f"measured loader: {DATASET}, batch size 32" in probed.out
    assert f"study {SCRIPT_NAME[:-3]}-" in probed.out
    # ...and the command to copy quotes them for a shell.
    assert f"--study '{probed.study}'" in probed.err
    assert f"-- --tag '{ARG}'" in probed.err
    # The reason whole, on one line (the probe kept the first 300 characters of the
    # 5,000-character line); the terminal wraps it, rich adds no line breaks of its own.
    assert f"- crashed: {visible(REASON)}\n" in probed.err
    assert "L" * 1000 not in text


@pytest.mark.slow
def test_show_and_studies_list_the_text_literally(probed: Probed) -> None:
    shown = autotune("show", probed.study, "--storage", probed.url)
    assert shown.returncode == 0, shown.stderr
    _assert_literal(shown.stdout)
    listed = autotune("studies", "--storage", probed.url)
    assert listed.returncode == 0, listed.stderr
    assert probed.study in listed.stdout


@pytest.mark.slow
def test_json_keeps_the_text_whole(probed: Probed) -> None:
    done = autotune("best", probed.study, "--json", "--storage", probed.url)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["failures"], answer
    for failure in answer["failures"]:
        assert failure["status"] == "crashed"
        assert failure["reason"] == REASON
    assert answer["measured_loader"]["dataset"] == DATASET
    assert answer["args"] == ["--tag", ARG]
    assert answer["script"] == str(probed.script)
    assert answer["study"] == probed.study
    # Controls are JSON escapes, as JSON has them: "\u001b", never the raw byte.
    assert "\x1b" not in done.stdout and "\\u001b[31mred" in done.stdout
    assert FIRST in REASON
    python = autotune("best", probed.study, "--format", "python", "--storage", probed.url)
    assert python.returncode == 0 and f"# autotune study {probed.study}:" in python.stdout
