"""``/health``: is the service up, and is its schema current."""

from __future__ import annotations

from fastapi import APIRouter
from sqlalchemy import func, select

from api.deps import ConnDep
from api.routes import ERRORS
from api.schemas import Health
from autotune import __version__
from autotune.store._tables import VERSION_TABLE, studies

router = APIRouter(tags=["health"], responses={503: ERRORS[503]})


@router.get("/health", response_model=Health, summary="Service and schema status")
def health(conn: ConnDep) -> Health:
    from alembic.runtime.migration import MigrationContext

    revision = MigrationContext.configure(
        conn, opts={"version_table": VERSION_TABLE}
    ).get_current_revision()
    count = conn.execute(select(func.count()).select_from(studies)).scalar_one()
    return Health(status="ok", version=__version__, schema_revision=revision, studies=count)
