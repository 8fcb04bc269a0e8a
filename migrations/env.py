"""Alembic environment for autotune's own tables; Optuna's tables are never touched."""

from __future__ import annotations

from typing import Any

from alembic import context
from sqlalchemy import Connection

from autotune.store._engine import engine_for
from autotune.store._tables import PREFIX, VERSION_TABLE, metadata

config = context.config


def include_object(
    obj: Any, name: str | None, type_: str, reflected: bool, compare_to: Any
) -> bool:
    # Autogenerate sees every table in the database; Optuna owns all but ours.
    if type_ == "table":
        return bool(name and name.startswith(PREFIX))
    table = getattr(obj, "table", None)
    if table is not None:
        return bool(table.name.startswith(PREFIX))
    return True


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=metadata,
        version_table=VERSION_TABLE,
        include_object=include_object,
        render_as_batch=True,  # SQLite alters tables by copying them
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    with engine_for(config.get_main_option("sqlalchemy.url")).connect() as conn:
        _run(conn)


if context.is_offline_mode():
    context.configure(
        url=config.get_main_option("sqlalchemy.url"),
        target_metadata=metadata,
        version_table=VERSION_TABLE,
        include_object=include_object,
        literal_binds=True,
    )
    with context.begin_transaction():
        context.run_migrations()
else:
    run_migrations_online()
