"""The ``autotune`` command."""

from __future__ import annotations

import typer

from autotune.cli._db import db
from autotune.cli._probe import probe
from autotune.cli._run import run
from autotune.cli._serve import serve
from autotune.cli._studies import best, show, studies
from autotune.cli._worker import worker

app = typer.Typer(
    help="Measure, don't guess: the DataLoader settings that keep your GPU fed.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
_PASSTHROUGH = {"allow_extra_args": True, "ignore_unknown_options": True}
app.command(context_settings=_PASSTHROUGH)(probe)
app.command(context_settings=_PASSTHROUGH)(run)
app.command()(studies)
app.command()(show)
app.command()(best)
app.command()(serve)
app.command()(worker)
app.add_typer(db, name="db")


def main() -> None:
    app()
