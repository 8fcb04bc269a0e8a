"""``autotune join`` (once ``autotune worker``): join a study in shared storage and probe trials
from it."""

from __future__ import annotations

import os
from pathlib import Path

import typer

from autotune.cli._common import STORAGE_HELP, err, fail, missing_sqlite, say, study
from autotune.cli._probe import local_tuner
from autotune.cli._progress import ProgressReporter
from autotune.hardware import fingerprint
from autotune.runner import Target


def join(
    study_name: str = typer.Option(..., "--study", help="The study to join."),
    storage_opt: str | None = typer.Option(None, "--storage", help=STORAGE_HELP),
    trials: int | None = typer.Option(
        None, "--trials", min=1, help="Trials in the study, baseline included (default: its own)."
    ),
    trial_timeout: float | None = typer.Option(
        None, "--trial-timeout", min=1, help="Seconds per probe (default: the study's)."
    ),
) -> None:
    """Join a study created with `autotune probe --seed-only` in shared storage and probe its
    trials, one at a time per machine, until it holds its number of trials (`autotune worker`
    is the old name)."""
    from autotune import state
    from autotune.store import storage_url
    from autotune.tuner import StudyError, check_hardware, load_options, work

    missing = missing_sqlite(storage_url(storage_opt))
    if missing is not None:
        fail(
            f"no SQLite storage at {missing} on this machine. A SQLite file is local to the "
            "machine that probed: processes that join from other machines need a shared "
            "database; create the study on PostgreSQL (see docs/cluster.md) and pass its URL to "
            "--storage"
        )
    loaded, url = study(study_name, storage_opt)
    hardware = fingerprint()
    try:
        check_hardware(
            loaded, hardware, action="join", advice="run `autotune join` on a matching machine"
        )
        options = load_options(loaded, trials=trials, trial_timeout_s=trial_timeout)
    except StudyError as exc:
        fail(str(exc))
    identity = state.load(loaded).identity
    script = str(identity.script)
    if not Path(script).is_file():
        fail(f"the study's script {script} is not on this machine; put it at the same path")
    # Ranks are part of what the study measures: every joining process starts as many as its
    # creator.
    target = Target(script, tuple(identity.args), nproc_per_node=identity.nproc_per_node)
    err.print(
        say(
            f"autotune join {os.getpid()}: study ",
            (study_name, "bold"),
            f", {options.trials} trials",
        ),
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
    err.print(f"autotune join {os.getpid()}: {outcome.stop_reason}", highlight=False)
