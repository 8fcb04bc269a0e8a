"""``autotune worker``: join a study in shared storage and probe trials from it."""

from __future__ import annotations

import os
from pathlib import Path

import typer

from autotune.cli._common import err, fail, study
from autotune.cli._probe import ProgressReporter, local_tuner
from autotune.hardware import fingerprint
from autotune.runner import Target
from autotune.tuner import StudyError
from autotune.tuner._worker import check_hardware, load_options, work

STORAGE_HELP = "SQLAlchemy URL, e.g. postgresql+psycopg://user@host/db (or $AUTOTUNE_STORAGE)."


def worker(
    study_name: str = typer.Option(..., "--study", help="The study to join."),
    storage_opt: str | None = typer.Option(None, "--storage", help=STORAGE_HELP),
    trials: int | None = typer.Option(
        None, "--trials", min=1, help="Trials in the study, baseline included (default: its own)."
    ),
    trial_timeout: float | None = typer.Option(
        None, "--trial-timeout", min=1, help="Seconds per probe (default: the study's)."
    ),
) -> None:
    """Probe trials of a study created with `autotune probe --workers-only`, one at a time
    per machine, until it holds its number of trials."""
    loaded, url = study(study_name, storage_opt)
    hardware = fingerprint()
    try:
        check_hardware(loaded, hardware)
        options = load_options(loaded, trials=trials, trial_timeout_s=trial_timeout)
    except StudyError as exc:
        fail(str(exc))
    script = str(loaded.user_attrs.get("script"))
    if not Path(script).is_file():
        fail(f"the study's script {script} is not on this machine; put it at the same path")
    target = Target(script, tuple(loaded.user_attrs.get("args") or ()))
    err.print(
        f"autotune worker {os.getpid()}: study [bold]{study_name}[/], {options.trials} trials",
        soft_wrap=True,
        highlight=False,
    )
    with ProgressReporter(options.trials) as reporter:
        tuner = local_tuner(loaded, target, options, url, reporter)
        try:
            outcome = work(tuner)
        except StudyError as exc:
            fail(str(exc))
        except KeyboardInterrupt:
            raise typer.Exit(130) from None
    err.print(f"autotune worker {os.getpid()}: {outcome.stop_reason}", highlight=False)
