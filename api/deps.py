"""Annotated dependencies the routes share: a connection, paging, names, the write token."""

from __future__ import annotations

import hmac
from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, HTTPException, Path, Query, Request, status
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy import Connection


def _connection(request: Request) -> Iterator[Connection]:
    with request.app.state.engine.connect() as conn:
        yield conn


def _transaction(request: Request) -> Iterator[Connection]:
    with request.app.state.engine.begin() as conn:
        yield conn


ConnDep = Annotated[Connection, Depends(_connection)]
WriteConnDep = Annotated[Connection, Depends(_transaction)]

# PostgreSQL text cannot hold NUL; refusing it here turns a driver error into a clear 422.
NO_NUL = r"^[^\x00]*$"

# Bounded so no value reaches the database as an integer it cannot hold.
Limit = Annotated[int, Query(ge=1, le=500, description="Items per page (1-500).")]
Offset = Annotated[int, Query(ge=0, le=1_000_000_000, description="Items to skip.")]
StudyName = Annotated[
    str,
    Path(
        min_length=1,
        max_length=512,
        pattern=NO_NUL,
        description="The study's name, as `autotune studies` lists it.",
    ),
]
TrialNumber = Annotated[int, Path(ge=0, le=2**31 - 1, description="The trial's number.")]

_bearer = HTTPBearer(auto_error=False, description="The server's AUTOTUNE_API_TOKEN.")


def _require_token(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> None:
    expected: str | None = request.app.state.api_token
    if not expected:
        raise HTTPException(
            status.HTTP_403_FORBIDDEN,
            "writes are off on this server: start it with AUTOTUNE_API_TOKEN set to enable them",
        )
    if credentials is None or not hmac.compare_digest(
        credentials.credentials.encode(), expected.encode()
    ):
        raise HTTPException(
            status.HTTP_401_UNAUTHORIZED,
            "this write needs the header 'Authorization: Bearer <AUTOTUNE_API_TOKEN>'",
            headers={"WWW-Authenticate": "Bearer"},
        )


WriteAccess = Depends(_require_token)
