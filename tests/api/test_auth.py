"""Writes need the bearer token; with no token configured they are off."""

from __future__ import annotations

from autotune.api import create_app
from fastapi.testclient import TestClient

V1 = "/api/v1"


def test_writes_without_or_with_a_wrong_token_are_401(client: TestClient) -> None:
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "Basic eDp5"}):
        r = client.put(f"{V1}/studies/alpha/note", json={"note": "x"}, headers=headers)
        assert r.status_code == 401, headers
        assert "Authorization: Bearer" in r.json()["detail"]
        assert r.headers["www-authenticate"] == "Bearer"
        assert client.delete(f"{V1}/studies/alpha", headers=headers).status_code == 401
    assert client.get(f"{V1}/studies/alpha").status_code == 200


def test_set_a_note(client: TestClient, auth: dict[str, str]) -> None:
    r = client.put(
        f"{V1}/studies/alpha/note", json={"note": "tuned for the 8-GPU box"}, headers=auth
    )
    assert r.status_code == 200
    assert client.get(f"{V1}/studies/alpha").json()["note"] == "tuned for the 8-GPU box"
    assert (
        client.put(f"{V1}/studies/nope/note", json={"note": "x"}, headers=auth).status_code == 404
    )
    assert client.put(f"{V1}/studies/alpha/note", json={"nope": 1}, headers=auth).status_code == 422


def test_delete_removes_the_study_for_good(
    client: TestClient, auth: dict[str, str], db: str
) -> None:
    assert client.delete(f"{V1}/studies/beta", headers=auth).status_code == 204
    assert client.get(f"{V1}/studies/beta").status_code == 404
    assert client.delete(f"{V1}/studies/beta", headers=auth).status_code == 404
    # Optuna's copy went too, so a full re-mirror does not bring it back.
    from autotune.store._sync import sync_all
    from autotune.tuner import summarize

    assert "beta" not in sync_all(lambda s: summarize(s, db), db)
    assert client.get(f"{V1}/studies/beta").status_code == 404


def test_writes_are_off_without_a_configured_token(db: str, monkeypatch: object) -> None:
    import os

    assert "AUTOTUNE_API_TOKEN" not in os.environ
    with TestClient(create_app(db)) as c:
        r = c.delete(f"{V1}/studies/alpha", headers={"Authorization": "Bearer anything"})
        assert r.status_code == 403
        assert "AUTOTUNE_API_TOKEN" in r.json()["detail"]
        assert c.get(f"{V1}/studies/alpha").status_code == 200
