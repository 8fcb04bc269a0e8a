"""``autotune db``: schema upgrades and the mirror of Optuna's studies into our tables."""

from __future__ import annotations

import typer

from autotune.cli._common import fail, out

STORAGE_HELP = "SQLAlchemy URL (default: $AUTOTUNE_STORAGE or sqlite:///autotune.db)."

db = typer.Typer(help="Database schema and mirror.", no_args_is_help=True)


@db.command()
def upgrade(
    storage_opt: str | None = typer.Option(None, "--storage", help=STORAGE_HELP),
) -> None:
    """Upgrade Optuna's tables and autotune's to the newest schema, then mirror every study."""
    from autotune.store import StorageError, storage_url
    from autotune.store._engine import safe_url
    from autotune.store._migrate import upgrade as upgrade_schema
    from autotune.store._sync import sync_all

    url = storage_url(storage_opt)
    try:
        revision = upgrade_schema(url)
        names = sync_all(url)
    except StorageError as exc:
        fail(str(exc))
    except Exception as exc:  # driver errors differ per backend; all mean "cannot open"
        fail(f"cannot upgrade {safe_url(url)}: {str(exc).splitlines()[0][:200]}")
    out.print(f"{safe_url(url)}: schema at {revision}, {len(names)} studies mirrored")
