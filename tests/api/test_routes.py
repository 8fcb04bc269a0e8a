"""Every endpoint over a filled SQLite database: the happy path and the errors people hit."""

from __future__ import annotations

import optuna
from fastapi.testclient import TestClient

from autotune import state
from autotune.contract import LoaderConfig, ProbeResult, RankFigures
from autotune.store import head_revision
from autotune.store._sync import sync_study_strict
from autotune.tuner import summarize
from tests.api.conftest import HOST, OTHER_HW, SCRIPT
from tests.store.factory import close_storages, hardware, storage_for

V1 = "/api/v1"


def test_health(client: TestClient) -> None:
    body = client.get(f"{V1}/health").json()
    assert body["status"] == "ok"
    assert body["schema_revision"] == head_revision()
    assert body["studies"] == 3


def test_list_studies_pages(client: TestClient) -> None:
    first = client.get(f"{V1}/studies", params={"limit": 2}).json()
    second = client.get(f"{V1}/studies", params={"limit": 2, "offset": 2}).json()
    assert first["total"] == 3
    assert len(first["items"]) == 2
    assert len(second["items"]) == 1
    names = {s["name"] for s in first["items"] + second["items"]}
    assert names == {"alpha", "beta", "broken"}
    alpha = next(s for s in first["items"] + second["items"] if s["name"] == "alpha")
    assert alpha["script"] == SCRIPT
    assert alpha["host"]["fingerprint"] == HOST
    assert alpha["trials"] == {"total": 8, "complete": 7, "failed": 1, "pruned": 0}
    assert alpha["speedup"] > 1
    assert alpha["state"] == "finished"


def test_list_studies_filters(client: TestClient) -> None:
    page = client.get(f"{V1}/studies", params={"host": OTHER_HW["id"]}).json()
    assert [s["name"] for s in page["items"]] == ["beta"]
    assert page["total"] == 1


def test_bad_paging_is_a_422_with_a_message(client: TestClient) -> None:
    for params in ({"limit": 0}, {"limit": 501}, {"offset": -1}, {"limit": "ten"}):
        r = client.get(f"{V1}/studies", params=params)
        assert r.status_code == 422, params
        assert r.json()["detail"].startswith("invalid request: query.")


def test_one_study_with_its_diagnosis(client: TestClient) -> None:
    body = client.get(f"{V1}/studies/alpha").json()
    # The factory's trials wait for data with an idle CPU: latency-bound loading.
    assert body["diagnosis"]["bottleneck"] == "input-latency"
    assert "latency-bound" in body["diagnosis"]["summary"]
    assert body["recommended"]["config"]["num_workers"] is not None
    assert body["failures"][0]["status"] == "crashed"


def test_one_study_says_what_another_process_did_to_its_windows(client: TestClient) -> None:
    body = client.get(f"{V1}/studies/alpha").json()
    # The factory's baseline ran its last window beside another process using 0.9 cores.
    said = body["interference"]
    assert said["baseline"] == {"disturbed": 1, "windows": 3}
    assert said["recommended"]["disturbed"] == 0
    assert said["summary"].startswith("another process used 0.9 cores during 1 of 3 windows")
    assert said["max_cores"] == 0.9
    # A study without readings (failed before any window) says nothing.
    assert client.get(f"{V1}/studies/broken").json()["interference"] is None


def test_unknown_study_is_a_404_saying_where_to_look(client: TestClient) -> None:
    for path in ("nope", "nope/best", "nope/trials", "nope/trials/0"):
        r = client.get(f"{V1}/studies/{path}")
        assert r.status_code == 404, path
        assert "no study named 'nope'" in r.json()["detail"]


def test_trials_filter_and_page(client: TestClient) -> None:
    failed = client.get(f"{V1}/studies/alpha/trials", params={"state": "fail"}).json()
    assert failed["total"] == 1
    assert failed["items"][0]["failure_class"] == "crashed"
    page = client.get(f"{V1}/studies/alpha/trials", params={"limit": 3, "offset": 3}).json()
    assert [t["number"] for t in page["items"]] == [3, 4, 5]
    assert client.get(f"{V1}/studies/alpha/trials", params={"state": "bogus"}).status_code == 422


def test_one_trial_with_its_windows(client: TestClient) -> None:
    trial = client.get(f"{V1}/studies/alpha/trials/1").json()
    assert len(trial["windows"]) == 3
    assert trial["peak_rss_bytes"] > 0
    missing = client.get(f"{V1}/studies/alpha/trials/99")
    assert missing.status_code == 404
    assert "numbered 0 to 7" in missing.json()["detail"]


def test_best_as_json_and_python(client: TestClient) -> None:
    rec = client.get(f"{V1}/studies/alpha/best").json()
    assert rec["study"] == "alpha"
    assert rec["speedup"] > 1
    snippet = client.get(f"{V1}/studies/alpha/best", params={"format": "python"})
    assert snippet.headers["content-type"].startswith("text/plain")
    assert "DataLoader(dataset, " in snippet.text
    assert f"num_workers={rec['config']['num_workers']}" in snippet.text
    assert client.get(f"{V1}/studies/alpha/best", params={"format": "yaml"}).status_code == 422


def test_best_of_a_study_with_nothing_usable(client: TestClient) -> None:
    r = client.get(f"{V1}/studies/broken/best")
    assert r.status_code == 404
    assert "no recommendation yet" in r.json()["detail"]


def test_lookup_by_script_and_hardware(client: TestClient) -> None:
    mine = client.get(f"{V1}/recommendations", params={"script": SCRIPT, "host": HOST}).json()
    theirs = client.get(
        f"{V1}/recommendations", params={"script": SCRIPT, "host": OTHER_HW["id"]}
    ).json()
    assert (mine["study"], theirs["study"]) == ("alpha", "beta")
    exact = client.get(
        f"{V1}/recommendations", params={"script": SCRIPT, "host": HOST, "args": ["--epochs", "1"]}
    )
    assert exact.json()["study"] == "alpha"
    other_args = client.get(
        f"{V1}/recommendations", params={"script": SCRIPT, "host": HOST, "args": ["--fast"]}
    )
    assert other_args.status_code == 404


def test_lookup_on_unseen_hardware_names_the_hardware_seen(client: TestClient) -> None:
    r = client.get(f"{V1}/recommendations", params={"script": SCRIPT, "host": "deadbeef0000"})
    assert r.status_code == 404
    detail = r.json()["detail"]
    assert "no study matches" in detail
    assert "NVIDIA H100" in detail
    assert HOST in detail
    never = client.get(f"{V1}/recommendations", params={"script": "/x.py", "host": HOST})
    assert "never probed" in never.json()["detail"]
    assert client.get(f"{V1}/recommendations", params={"script": SCRIPT}).status_code == 422


def test_openapi_is_the_contract(client: TestClient) -> None:
    doc = client.get(f"{V1}/openapi.json").json()
    paths = set(doc["paths"])
    assert {
        f"{V1}/health",
        f"{V1}/studies",
        f"{V1}/studies/{{name}}",
        f"{V1}/studies/{{name}}/best",
        f"{V1}/studies/{{name}}/trials",
        f"{V1}/studies/{{name}}/trials/{{number}}",
        f"{V1}/recommendations",
        f"{V1}/studies/{{name}}/note",
    } <= paths
    err = doc["paths"][f"{V1}/studies"]["get"]["responses"]["422"]
    assert err["content"]["application/json"]["schema"]["$ref"].endswith("/ErrorBody")


def test_a_live_run_s_segments_are_listed_in_order_with_the_reopenings_marked(
    client: TestClient, db: str
) -> None:
    study = optuna.create_study(storage=storage_for(db), study_name="live", direction="maximize")
    state.identify(study, state.Identity(script=SCRIPT, hardware=hardware()))
    why = "reopened: the data wait rose from 1.2 to 11.4 ms a batch for 3 windows in a row"
    ranks = [RankFigures(rank=0, samples_per_s=150.0), RankFigures(rank=1, samples_per_s=160.0)]
    rows = [("baseline", 0, 100.0, ""), ("adapt", 4, 400.0, ""), ("reopened", 4, 300.0, why)]
    for role, workers, rate, reason in rows:
        result = ProbeResult(status="ok", samples_per_s=rate, windows=[rate], ranks=ranks)
        record = state.TrialRecord.of_result(result, role)
        record = state.TrialRecord(
            role=role,
            status="ok",
            reason=reason,
            config=LoaderConfig(num_workers=workers),
            result=record.result,
        )
        dist = {"num_workers": optuna.distributions.IntDistribution(0, 32)}
        study.add_trial(
            state.new_trial(
                record,
                optuna.trial.TrialState.COMPLETE,
                rate,
                {"num_workers": workers},
                dist,
                {0: rate},
            )
        )
    sync_study_strict(db, study, summarize(study, db))
    close_storages()
    items = client.get(f"{V1}/studies/live/trials").json()["items"]
    assert [(i["number"], i["role"]) for i in items] == [
        (0, "baseline"),
        (1, "adapt"),
        (2, "reopened"),
    ]
    assert items[2]["reason"] == why
    assert items[0]["started_at"] <= items[2]["started_at"]  # over time, in order
    detail = client.get(f"{V1}/studies/live/trials/2").json()
    assert [r["rank"] for r in detail["ranks"]] == [0, 1]  # each rank's figures, per segment
    # The list carries each rank's rate too (the dashboard's segment chart shows them).
    assert items[2]["rank_rates"] == [
        {"rank": 0, "status": "ok", "samples_per_s": 150.0},
        {"rank": 1, "status": "ok", "samples_per_s": 160.0},
    ]
    assert detail["rank_rates"] == items[2]["rank_rates"]


def test_a_single_process_trial_has_no_rank_rates(client: TestClient) -> None:
    items = client.get(f"{V1}/studies/alpha/trials").json()["items"]
    assert items and all(i["rank_rates"] is None for i in items)
