"""The ``autotune`` command."""

from __future__ import annotations

import faulthandler
import os
import signal

import typer

from autotune.cli._db import db
from autotune.cli._help import Command, Group
from autotune.cli._join import join
from autotune.cli._probe import probe
from autotune.cli._run import run
from autotune.cli._serve import serve
from autotune.cli._studies import best, show, studies

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
app.command(cls=Command)(join)
# The old name, kept so scripts and compose files that start `autotune worker` still run; "worker"
# is the DataLoader's word for its processes.
app.command(
    "worker",
    cls=Command,
    help="The old name of `autotune join`, kept so existing scripts and compose files run.",
)(join)
app.add_typer(db, name="db")


# Set, `kill -USR1 PID` prints every thread's Python stack to stderr: where a command that
# seems stuck is waiting. Opt-in: under `autotune run`, SIGUSR1 may be a scheduler's signal
# (SLURM's --signal) that must keep its usual meaning.
STACKS_ENV = "AUTOTUNE_STACKS_ON_USR1"


def main() -> None:
    if os.environ.get(STACKS_ENV) and hasattr(signal, "SIGUSR1"):
        faulthandler.register(signal.SIGUSR1, all_threads=True)
    app()
