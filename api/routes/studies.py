"""``/studies``: list, read, annotate and delete studies."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, Response, status
from fastapi.responses import PlainTextResponse

from autotune import store

from ..deps import NO_NUL, ConnDep, Limit, Offset, StudyName, WriteAccess, WriteConnDep
from ..schemas import NoteIn, Recommendation, StudyDetail, StudyPage
from . import ERRORS, WRITE_ERRORS

router = APIRouter(prefix="/studies", tags=["studies"], responses=ERRORS)


@router.get("", response_model=StudyPage, summary="Studies, newest first")
def list_studies(
    conn: ConnDep,
    limit: Limit = 50,
    offset: Offset = 0,
    script: Annotated[
        str | None, Query(max_length=1024, pattern=NO_NUL, description="Only this script path.")
    ] = None,
    host: Annotated[
        str | None,
        Query(max_length=64, pattern=NO_NUL, description="Only this hardware fingerprint."),
    ] = None,
) -> dict[str, Any]:
    items, total = store.list_studies(conn, limit=limit, offset=offset, script=script, host=host)
    return {"items": items, "total": total, "limit": limit, "offset": offset}


@router.get("/{name}", response_model=StudyDetail, summary="One study with its diagnosis")
def get_study(conn: ConnDep, name: StudyName) -> dict[str, Any]:
    return store.get_study(conn, name)


_BEST_CONTENT = {
    "application/json": {"schema": {"$ref": "#/components/schemas/Recommendation"}},
    "text/plain": {"schema": {"type": "string"}},
}


@router.get(
    "/{name}/best",
    response_model=Recommendation,
    summary="The recommended settings of a study",
    responses={
        200: {
            "content": _BEST_CONTENT,
            "description": "JSON, or with ?format=python the DataLoader call.",
        }
    },
)
def best(
    conn: ConnDep,
    name: StudyName,
    format: Annotated[
        str, Query(pattern="^(json|python)$", description="json (default) or python.")
    ] = "json",
) -> Any:
    rec = store.best(conn, name)
    if format == "python":
        return PlainTextResponse(rec["snippet"] + "\n")
    return rec


@router.put(
    "/{name}/note",
    response_model=StudyDetail,
    summary="Set the study's note (needs the bearer token)",
    dependencies=[WriteAccess],
    responses=WRITE_ERRORS,
)
def set_note(conn: WriteConnDep, name: StudyName, body: NoteIn) -> dict[str, Any]:
    return store.set_note(conn, name, body.note)


@router.delete(
    "/{name}",
    status_code=status.HTTP_204_NO_CONTENT,
    summary="Delete a study and its trials (needs the bearer token)",
    dependencies=[WriteAccess],
    responses=WRITE_ERRORS,
)
def delete_study(request: Request, conn: WriteConnDep, name: StudyName) -> Response:
    store.get_study(conn, name)  # 404 before touching anything
    # Optuna's copy first, in its own transaction: ours would hold SQLite's write lock.
    store.delete_optuna_study(request.app.state.storage_url, name)
    store.delete_study(conn, name)
    return Response(status_code=status.HTTP_204_NO_CONTENT)
