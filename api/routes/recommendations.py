"""``/recommendations``: what a training script asks before it builds its DataLoader."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from autotune import store

from ..deps import NO_NUL, ConnDep
from ..schemas import Recommendation
from . import ERRORS

router = APIRouter(prefix="/recommendations", tags=["recommendations"], responses=ERRORS)


@router.get(
    "",
    response_model=Recommendation,
    summary="The recommendation for a script measured on this hardware",
)
def lookup(
    conn: ConnDep,
    script: Annotated[
        str,
        Query(
            min_length=1,
            max_length=1024,
            pattern=NO_NUL,
            description="The script's absolute path, as probed.",
        ),
    ],
    host: Annotated[
        str,
        Query(
            min_length=1,
            max_length=64,
            pattern=NO_NUL,
            description="Hardware fingerprint id (autotune.hardware).",
        ),
    ],
    args: Annotated[
        list[str] | None,
        Query(description="The script's arguments, repeated in order; leave out to match any."),
    ] = None,
) -> dict[str, Any]:
    return store.lookup(conn, script=script, host=host, args=args)
