"""Schemathesis over the whole OpenAPI document, valid and invalid input: never a server error."""

from __future__ import annotations

import tempfile
from pathlib import Path

import schemathesis
from autotune.api import create_app
from hypothesis import HealthCheck, settings
from schemathesis import GenerationMode
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.api.conftest import TOKEN, fill

# Built at import: schemathesis parametrizes from the schema before fixtures exist.
_DB = f"sqlite:///{Path(tempfile.mkdtemp(prefix='autotune-fuzz-')) / 'fuzz.db'}"
fill(_DB)
schema = schemathesis.openapi.from_asgi("/api/v1/openapi.json", create_app(_DB, api_token=TOKEN))
schema.config.generation.update(
    modes=[GenerationMode.POSITIVE, GenerationMode.NEGATIVE],
    max_examples=25,
    deterministic=True,
    database="none",
)


@schema.parametrize()
@settings(deadline=None, suppress_health_check=list(HealthCheck))
def test_no_server_error(case: schemathesis.Case) -> None:
    response = case.call()
    assert response.status_code < 500, (response.status_code, response.text)
    body = response.json() if response.status_code >= 400 else None
    if body is not None:
        assert isinstance(body["detail"], str), body
        assert body["detail"]
    case.validate_response(
        response,
        checks=[
            status_code_conformance,
            content_type_conformance,
            response_schema_conformance,
        ],
    )
