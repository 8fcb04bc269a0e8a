"""The ``autotune`` command."""

from __future__ import annotations

import typer

from autotune.cli._db import db
from autotune.cli._help import Command, Group
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
    cls=Group,
)
_PASSTHROUGH = {"allow_extra_args": True, "ignore_unknown_options": True}
app.command(cls=Command, context_settings=_PASSTHROUGH)(probe)
app.command(cls=Command, context_settings=_PASSTHROUGH)(run)
app.command(cls=Command)(studies)
app.command(cls=Command)(show)
app.command(cls=Command)(best)
app.command(cls=Command)(serve)
app.command(cls=Command)(worker)
app.add_typer(db, name="db")


def main() -> None:
    app()
