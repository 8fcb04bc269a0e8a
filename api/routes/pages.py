"""The dashboard: server-rendered pages whose scripts read the same /api/v1 as REST clients.

plotly.js comes from the installed ``plotly`` package, so the pages work with no internet.

Names, paths and reasons come from users' scripts: the templates escape every value
(``autoescape``, never ``|safe``), write control characters out (``|visible``), and each page
forbids any script but its own (a Content-Security-Policy with a nonce per response), so
text that got into the HTML by some other way still could not run.
"""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

import jinja2
import plotly
from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import FileResponse, HTMLResponse
from fastapi.templating import Jinja2Templates

from autotune import store
from autotune._words import visible

from ..deps import ConnDep, StudyName, TrialNumber

_HERE = Path(__file__).resolve().parent.parent
STATIC = _HERE / "static"
PLOTLY_JS = Path(plotly.__file__).resolve().parent / "package_data" / "plotly.min.js"
# Autoescape on for every template, whatever its file name; Starlette's default is by suffix.
templates = Jinja2Templates(
    env=jinja2.Environment(loader=jinja2.FileSystemLoader(_HERE / "templates"), autoescape=True)
)
templates.env.filters["visible"] = visible
# Plotly sets style attributes as it draws, hence 'unsafe-inline' for styles only.
# 'unsafe-eval' lets tools that drive the page evaluate code in it (Playwright's
# wait_for_function, as the dashboard's tests do); markup that got into the page still runs
# nothing: inline scripts without the nonce and event-handler attributes stay blocked.
_CSP = (
    "default-src 'self'; script-src 'self' 'nonce-{nonce}' 'unsafe-eval'; "
    "style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data: blob:; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)

router = APIRouter(include_in_schema=False)


def _page(request: Request, template: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    nonce = secrets.token_urlsafe(16)
    response = templates.TemplateResponse(
        request, template, {**context, "nonce": nonce}, status_code=status_code
    )
    response.headers["Content-Security-Policy"] = _CSP.format(nonce=nonce)
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


@router.get("/", response_class=HTMLResponse)
def studies_page(request: Request) -> HTMLResponse:
    return _page(request, "studies.html")


@router.get("/studies/{name}", response_class=HTMLResponse)
def study_page(request: Request, conn: ConnDep, name: StudyName) -> HTMLResponse:
    try:
        store.get_study(conn, name)
    except store.NotFoundError as exc:
        return _page(request, "missing.html", 404, title="No such study", message=str(exc))
    storage = store.safe_url(request.app.state.storage_url)
    return _page(request, "study.html", name=name, storage=storage)


@router.get("/studies/{name}/trials/{number}", response_class=HTMLResponse)
def trial_page(
    request: Request, conn: ConnDep, name: StudyName, number: TrialNumber
) -> HTMLResponse:
    try:
        store.get_trial(conn, name, number)
    except store.NotFoundError as exc:
        return _page(request, "missing.html", 404, title="No such trial", message=str(exc))
    return _page(request, "trial.html", name=name, number=number)


@router.get("/static/plotly.min.js")
def plotly_js() -> FileResponse:
    return FileResponse(PLOTLY_JS, media_type="text/javascript")


_OWN_STATIC = {p.name: p for p in STATIC.iterdir() if p.is_file()} if STATIC.is_dir() else {}
_MEDIA = {".js": "text/javascript", ".css": "text/css"}


@router.get("/static/{filename}")
def static_file(filename: str) -> FileResponse:
    path = _OWN_STATIC.get(filename)
    if path is None:
        raise HTTPException(404, f"no static file {filename!r}")
    return FileResponse(path, media_type=_MEDIA.get(path.suffix, "application/octet-stream"))
