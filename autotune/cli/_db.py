"""``autotune db``: schema upgrades and the mirror of Optuna's studies into our tables."""

from __future__ import annotations

import typer

from autotune._words import first_line
from autotune.cli._common import STORAGE_HELP, fail, out
from autotune.cli._help import Command, Group

db = typer.Typer(help="Database schema and mirror.", no_args_is_help=True, cls=Group)


@db.command(cls=Command)
def upgrade(
    storage_opt: str | None = typer.Option(None, "--storage", help=STORAGE_HELP),
) -> None:
    """Upgrade Optuna's tables and autotune's to the newest schema, then mirror every study."""
    from autotune.store import StorageError, safe_url, storage_url, sync_all
    from autotune.store import upgrade as upgrade_schema
    from autotune.tuner import summarize

    url = storage_url(storage_opt)
    try:
        # A schema newer than this autotune knows is a StorageError saying so.
        revision = upgrade_schema(url)
        names = sync_all(lambda study: summarize(study, safe_url(url)), url)
    except StorageError as exc:
        fail(str(exc))
    except Exception as exc:  # driver errors differ per backend; all mean "cannot open"
        fail(f"cannot upgrade {safe_url(url)}: {first_line(exc)}")
    out.print(f"{safe_url(url)}: schema at {revision}, {len(names)} studies mirrored")
