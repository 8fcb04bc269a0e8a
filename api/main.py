"""Builds the app: settings, engine, error handlers and the routers under /api/v1."""

from __future__ import annotations

import os

from fastapi import FastAPI

from autotune import __version__
from autotune.store import engine_for, storage_url

from . import errors
from .routes import health, pages, recommendations, studies, trials

TOKEN_ENV = "AUTOTUNE_API_TOKEN"
PREFIX = "/api/v1"

_DESCRIPTION = """\
Recommended DataLoader settings, measured by `autotune probe`, and every measurement behind
them. Reads are open. Writes need `Authorization: Bearer $AUTOTUNE_API_TOKEN` and are off when
the server has no token. Every error is JSON: `{"detail": "what went wrong and what to do"}`.
"""


def create_app(storage: str | None = None, *, api_token: str | None = None) -> FastAPI:
    """The service over ``storage`` (default: $AUTOTUNE_STORAGE or ./autotune.db).

    ``api_token`` defaults to $AUTOTUNE_API_TOKEN; with neither, write endpoints answer 403.
    Run `autotune db upgrade` first: the app reads our tables and never creates them.
    """
    url = storage_url(storage)
    app = FastAPI(
        title="autotune",
        version=__version__,
        description=_DESCRIPTION,
        docs_url=f"{PREFIX}/docs",
        redoc_url=None,
        openapi_url=f"{PREFIX}/openapi.json",
    )
    app.state.storage_url = url
    app.state.engine = engine_for(url)
    app.state.api_token = api_token if api_token is not None else os.environ.get(TOKEN_ENV)

    errors.install(app)
    for module in (health, studies, trials, recommendations):
        app.include_router(module.router, prefix=PREFIX)
    app.include_router(pages.router)  # the dashboard at /
    return app
