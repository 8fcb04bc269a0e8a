"""``/studies/{name}/trials``: every measurement of a study."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query

from autotune import store

from ..deps import ConnDep, Limit, Offset, StudyName, TrialNumber
from ..schemas import TrialDetail, TrialPage
from . import ERRORS

router = APIRouter(prefix="/studies/{name}/trials", tags=["trials"], responses=ERRORS)

TrialState = Literal["running", "complete", "pruned", "fail", "waiting"]


@router.get("", response_model=TrialPage, summary="A study's trials, by number")
def list_trials(
    conn: ConnDep,
    name: StudyName,
    state: Annotated[TrialState | None, Query(description="Only trials in this state.")] = None,
    limit: Limit = 50,
    offset: Offset = 0,
) -> dict[str, Any]:
    items, total = store.list_trials(conn, name, state=state, limit=limit, offset=offset)
    return {"items": items, "total": total, "limit": limit, "offset": offset}


@router.get("/{number}", response_model=TrialDetail, summary="One trial with its windows")
def get_trial(conn: ConnDep, name: StudyName, number: TrialNumber) -> dict[str, Any]:
    return store.get_trial(conn, name, number)
