"""Every error as JSON ``{"detail": "..."}`` with a message a person can act on."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.exc import DataError, DBAPIError, OperationalError
from starlette.exceptions import HTTPException

from autotune._words import first_line
from autotune.store import NotFoundError


def _where(loc: tuple[object, ...]) -> str:
    return ".".join(str(p) for p in loc) or "request"


async def _validation(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = [
        {
            "loc": [str(p) for p in e.get("loc", ())],
            "msg": str(e.get("msg", "")),
            "type": str(e.get("type", "")),
        }
        for e in exc.errors()
    ]
    parts = [f"{_where(tuple(e['loc']))}: {e['msg']}" for e in errors]
    return JSONResponse(
        status_code=422,
        content={"detail": "invalid request: " + "; ".join(parts), "errors": errors},
    )


async def _http(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, HTTPException)
    return JSONResponse(
        status_code=exc.status_code, content={"detail": str(exc.detail)}, headers=exc.headers
    )


async def _not_found(_: Request, exc: Exception) -> JSONResponse:
    return JSONResponse(status_code=404, content={"detail": str(exc)})


def _reason(exc: Exception) -> str:
    """The driver's own words when SQLAlchemy wrapped its error (``orig``), else the error's."""
    orig = getattr(exc, "orig", None)
    return first_line(orig if isinstance(orig, BaseException) else exc)


async def _bad_value(_: Request, exc: Exception) -> JSONResponse:
    reason = _reason(exc)
    return JSONResponse(
        status_code=422, content={"detail": f"the database refused a value: {reason}"}
    )


async def _database_down(_: Request, exc: Exception) -> JSONResponse:
    reason = _reason(exc)
    return JSONResponse(
        status_code=503,
        content={
            "detail": f"the database cannot be read: {reason}; check AUTOTUNE_STORAGE "
            "and that `autotune db upgrade` ran"
        },
    )


def install(app: FastAPI) -> None:
    app.add_exception_handler(RequestValidationError, _validation)
    app.add_exception_handler(HTTPException, _http)
    app.add_exception_handler(NotFoundError, _not_found)
    app.add_exception_handler(DataError, _bad_value)
    app.add_exception_handler(OperationalError, _database_down)
    app.add_exception_handler(DBAPIError, _database_down)
