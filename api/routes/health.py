"""``/health``: is the service up, and is its schema current."""

from __future__ import annotations

from fastapi import APIRouter

from autotune import __version__, store

from ..deps import ConnDep
from ..schemas import Health
from . import ERRORS

router = APIRouter(tags=["health"], responses={503: ERRORS[503]})


@router.get("/health", response_model=Health, summary="Service and schema status")
def health(conn: ConnDep) -> Health:
    return Health(status="ok", version=__version__, **store.health(conn))
