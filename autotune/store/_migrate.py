"""Schema upgrades: Optuna's tables through Optuna, ours through Alembic in autotune.migrations
(the checkout's top-level migrations/, shipped inside the package). Every step runs under the
database's schema lock (``_engine.schema_lock``), so processes that start together on an empty
or older database upgrade it once, one after the other."""

from __future__ import annotations

import logging
from collections.abc import Callable
from importlib import resources
from pathlib import Path

import sqlalchemy
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util import CommandError

from autotune._words import first_line
from autotune.store._engine import engine_for, schema_lock
from autotune.store._storage import open_storage
from autotune.store._tables import VERSION_TABLE
from autotune.store._url import StorageError, safe_url, storage_url

MIGRATIONS_PACKAGE = "autotune.migrations"
_upgraded: set[str] = set()
_MISSING = (
    f"autotune's migrations ({MIGRATIONS_PACKAGE}) are missing from this installation; "
    "reinstall autotune (`pip install autotune-*.whl` or `pip install -e .`)"
)


def migrations_dir() -> Path:
    """The Alembic script folder, wherever the package is installed (wheel or editable)."""
    try:
        folder = Path(str(resources.files(MIGRATIONS_PACKAGE)))
    except ModuleNotFoundError:
        raise StorageError(_MISSING) from None
    if not (folder / "env.py").is_file():
        raise StorageError(_MISSING)
    return folder


def alembic_config(url: str | None = None) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(migrations_dir()))
    # ConfigParser treats % as interpolation; URLs carry %-escapes in passwords.
    cfg.set_main_option("sqlalchemy.url", storage_url(url).replace("%", "%%"))
    return cfg


def head_revision() -> str:
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None
    return head


def current_revision(url: str | None = None) -> str | None:
    """Our schema's revision in ``url``; None where our tables were never created."""
    with engine_for(storage_url(url)).connect() as conn:
        ctx = MigrationContext.configure(conn, opts={"version_table": VERSION_TABLE})
        return ctx.get_current_revision()


def newer_schema(url: str, revision: str | None) -> str | None:
    """Why this autotune cannot use ``url`` whose schema is ``revision``: a revision it does not
    know was written by a newer autotune, and no upgrade can help. None when it knows it."""
    if revision is None:
        return None
    script = ScriptDirectory.from_config(alembic_config())
    try:
        script.get_revision(revision)
    except CommandError:
        return (
            f"the storage {safe_url(url)} is at schema {revision}, newer than this autotune "
            f"knows (up to {script.get_current_head()}); upgrade autotune "
            "(pip install -U autotune) to use it"
        )
    return None


def upgrade_autotune(url: str | None = None, revision: str = "head") -> None:
    _migrate(url, revision, command.upgrade)


def downgrade_autotune(url: str | None, revision: str) -> None:
    _migrate(url, revision, command.downgrade)


def _migrate(url: str | None, revision: str, step: Callable[[Config, str], None]) -> None:
    resolved = storage_url(url)
    cfg = alembic_config(resolved)
    # Alembic narrates every step at INFO; a CLI user needs only the outcome.
    logging.getLogger("alembic").setLevel(logging.WARNING)
    try:
        # Locked outside the transaction, so the next process reads the revision committed.
        with schema_lock(resolved), engine_for(resolved).begin() as conn:
            cfg.attributes["connection"] = conn
            step(cfg, revision)
    except CommandError:
        why = newer_schema(resolved, current_revision(resolved))
        if why is None:
            raise
        raise StorageError(why) from None
    except sqlalchemy.exc.SQLAlchemyError as exc:
        reason = first_line(exc)
        raise StorageError(f"cannot upgrade {safe_url(resolved)}: {reason}") from None


def upgrade(url: str | None = None) -> str:
    """Bring Optuna's schema and ours to the newest version; returns our revision."""
    resolved = storage_url(url)
    with schema_lock(resolved):
        storage = open_storage(resolved, skip_compatibility_check=True)
        try:
            # Only when needed: Optuna's Alembic env reconfigures logging for the whole process.
            if storage.get_current_version() != storage.get_head_version():
                storage.upgrade()
        except Exception as exc:  # Optuna raises its own and driver errors alike
            raise StorageError(
                f"cannot upgrade Optuna's tables in {safe_url(resolved)}: {exc}"
            ) from None
        finally:
            storage.remove_session()
            storage.engine.dispose()
        upgrade_autotune(resolved)
    _upgraded.add(resolved)
    return head_revision()


def ensure_schema(url: str) -> None:
    """Our tables at head, checked once per process and URL: cheap enough before every sync.
    Another process may be upgrading at the same moment: the upgrade waits for its turn at the
    schema lock, and Alembic then finds the revision that process committed."""
    if url in _upgraded:
        return
    if current_revision(url) != head_revision():
        upgrade_autotune(url)
    _upgraded.add(url)


def autogenerate(message: str, scratch_url: str) -> None:
    """A new revision from the difference between the tables module and ``scratch_url`` at head."""
    upgrade_autotune(scratch_url)
    command.revision(alembic_config(scratch_url), message=message, autogenerate=True)
