"""A database error reaches the client as one line of JSON, even when the driver said nothing."""

from __future__ import annotations

import pytest
from autotune.api.errors import install
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy.exc import DataError, OperationalError


@pytest.mark.parametrize(
    ("error", "status", "said"),
    [
        (OperationalError("SELECT 1", {}, ConnectionError("")), 503, "cannot be read"),
        (DataError("INSERT", {}, ValueError("\n")), 422, "refused a value"),
    ],
)
def test_a_driver_error_with_no_message_is_named_by_its_type(
    error: Exception, status: int, said: str
) -> None:
    app = FastAPI()
    install(app)

    @app.get("/boom")
    def boom() -> None:
        raise error

    response = TestClient(app).get("/boom")
    assert response.status_code == status
    name = type(error.orig).__name__  # type: ignore[attr-defined]
    assert f"{said}: {name}" in response.json()["detail"]
