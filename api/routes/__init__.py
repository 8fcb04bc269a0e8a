"""One router per resource, each a thin layer over the query functions of autotune.store."""

from __future__ import annotations

from typing import Any

from ..schemas import ErrorBody

# Declared on every router so the OpenAPI document describes the errors actually sent.
ERRORS: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorBody, "description": "Nothing matches; the message says what exists."},
    422: {"model": ErrorBody, "description": "A parameter is invalid; the message says which."},
    503: {"model": ErrorBody, "description": "The database cannot be reached."},
}
WRITE_ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorBody, "description": "The body is not valid JSON."},
    401: {"model": ErrorBody, "description": "Missing or wrong bearer token."},
    403: {"model": ErrorBody, "description": "Writes are off: no AUTOTUNE_API_TOKEN is set."},
}
