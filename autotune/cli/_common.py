"""What every command shares: one-line errors, the consoles, opening storage and studies."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import typer
from rich.console import Console

if TYPE_CHECKING:
    import optuna

# Optuna, SQLAlchemy and the store are imported where a command first needs them, not here:
# `autotune run --adapt` launches the training before it pays for them (about 0.6 s).

STORAGE_HELP = (
    "SQLAlchemy URL, e.g. postgresql+psycopg://user@host/db "
    "(default: $AUTOTUNE_STORAGE or sqlite:///autotune.db)."
)

err = Console(stderr=True, highlight=False)
out = Console(highlight=False)


def fail(message: str, code: int = 2) -> NoReturn:
    """One clear line on stderr and a non-zero exit; never a traceback."""
    err.print(f"[bold red]error:[/] {message}", soft_wrap=True)
    raise typer.Exit(code)


def check_script(script: Path) -> None:
    if not script.exists():
        fail(f"script {script} does not exist; pass the path of your training script")
    if not script.is_file():
        fail(f"{script} is not a file; pass the path of your training script")
    try:
        compile(script.read_bytes(), str(script), "exec")
    except SyntaxError as exc:
        fail(f"{script} has a syntax error at line {exc.lineno}: {exc.msg}; fix it and try again")
    except ValueError as exc:
        fail(f"{script} cannot be compiled: {exc}")


def missing_sqlite(url: str) -> Path | None:
    """The file of a SQLite URL that does not exist yet; None for other URLs."""
    from autotune.store import StorageError, parse_url

    try:
        parsed = parse_url(url)
    except StorageError:
        return None
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return None
    path = Path(str(parsed.database))
    return None if path.exists() else path


def storage(url: str | None, *, create: bool = True) -> tuple[optuna.storages.RDBStorage, str]:
    """Optuna's storage at ``url``; ``create=False`` for commands that only read what was
    measured: they refuse a SQLite file that does not exist instead of creating it empty."""
    import optuna

    from autotune.store import StorageError, open_storage, storage_url

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    resolved = storage_url(url)
    missing = None if create else missing_sqlite(resolved)
    if missing is not None:
        what = "the folder" if not missing.parent.exists() else "the file"
        fail(
            f"no autotune storage at {missing}: {what} does not exist, so nothing was probed "
            "with it; run `autotune probe` first, or pass the --storage it used"
        )
    try:
        return open_storage(resolved), resolved
    except StorageError as exc:
        fail(str(exc))


def study(name: str, url: str | None) -> tuple[optuna.Study, str]:
    from autotune.tuner import StudyError, load_study

    store, resolved = storage(url, create=False)
    try:
        return load_study(store, name), resolved
    except StudyError as exc:
        fail(str(exc))


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, default=str) + "\n")
    sys.stdout.flush()
