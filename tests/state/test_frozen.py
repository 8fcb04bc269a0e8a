"""Studies written by the release before the typed state (0.1.0) load as they are, and give
the same answer: a frozen database made by that release's own `autotune probe` runs.

The database (``frozen/studies_0.1.0.sql``) holds five studies: a latency-bound search with
ceilings and a confirmation, a script that crashes as written, a study created for workers,
a script too short to tune (a verdict and its length), and a search of a loader whose
workers fail past 8 (it stopped first). ``frozen/answers_0.1.0.json`` is what that
release's ``autotune best --json`` said of each, ``frozen/snippets_0.1.0.json`` the code it
gave to paste. They were written once and are never regenerated: they stand for users'
databases.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

import optuna
import pytest

from autotune import state
from autotune.answer import Answer
from autotune.tuner import summarize
from tests.store.factory import close_storages, storage_for

FROZEN = Path(__file__).resolve().parent / "frozen"
NAMES = ("latency", "crash", "workers", "short", "flaky")


@pytest.fixture(scope="module")
def storage(tmp_path_factory: pytest.TempPathFactory) -> Iterator[optuna.storages.RDBStorage]:
    db = tmp_path_factory.mktemp("frozen") / "studies.db"
    conn = sqlite3.connect(db)
    try:
        conn.executescript((FROZEN / "studies_0.1.0.sql").read_text(encoding="utf-8"))
    finally:
        conn.close()
    yield storage_for(f"sqlite:///{db}")
    close_storages()


def _expected(name: str) -> dict[str, Any]:
    answers = json.loads((FROZEN / "answers_0.1.0.json").read_text(encoding="utf-8"))
    return dict(answers[name])


def _without_built_by(answer: dict[str, Any], said: dict[str, Any]) -> dict[str, Any]:
    """``answer`` less the measured loader's ``built_by`` where the release said none: a key
    added since (the measured loader is typed now), null for these plain scripts."""
    loader, old = answer.get("measured_loader"), said.get("measured_loader")
    if loader and old is not None and "built_by" not in old:
        assert loader.pop("built_by") is None
    _without_threads(answer)
    return answer


def _without_threads(value: Any) -> None:
    """Every settings dict in ``value`` less ``threads`` (torch's threads, a setting added
    since), which a study measured before it never set: null wherever it is."""
    if isinstance(value, dict):
        if "num_workers" in value and "threads" in value:
            assert value.pop("threads") is None
        for item in value.values():
            _without_threads(item)
    elif isinstance(value, list):
        for item in value:
            _without_threads(item)


# A result's key the release wrote for a field since removed: it is not written again.
REMOVED = {"profile_path"}


def _only_added(saved: Any, raw: Any, where: str) -> None:
    """``saved`` is ``raw`` with keys only added, each null (a field the release did not
    have: nothing measured then is said now), less ``REMOVED``."""
    if isinstance(raw, dict):
        assert isinstance(saved, dict), where
        for key, value in raw.items():
            if key in REMOVED:
                assert key not in saved, f"{where}.{key}"
            else:
                assert key in saved, f"{where}.{key}"
                _only_added(saved[key], value, f"{where}.{key}")
        for key in set(saved) - set(raw):
            assert saved[key] is None, f"{where}.{key}"
    elif isinstance(raw, list):
        assert isinstance(saved, list) and len(saved) == len(raw), where
        for i, (s, r) in enumerate(zip(saved, raw, strict=True)):
            _only_added(s, r, f"{where}[{i}]")
    else:
        assert saved == raw, where


@pytest.mark.parametrize("name", NAMES)
def test_an_old_study_gives_the_answer_it_gave(
    storage: optuna.storages.RDBStorage, name: str
) -> None:
    study = optuna.load_study(study_name=name, storage=storage)
    expected = _expected(name)
    got = summarize(study, expected["storage"]).to_dict()
    # Keys are only ever added: what the release said is said the same, word for word.
    said = got.get("interference") or {}
    added = {k: said.pop(k) for k in ("condition", "comparison") if k in said}
    # Measured before epochs were timed: no epoch figures and no other loaders tuned, and
    # the keys say so.
    assert got.pop("epoch") is None and got.pop("others") is None
    # Added since: the cores (none narrower than the node then), and why the pick is not the
    # fastest (a sentence of the study's own figures, or none).
    assert got.pop("cores") is None
    assert got.pop("started_from") is None  # warm starts came later
    assert got.pop("randomness") is None  # not read then: said of nothing
    assert got.pop("choice") is None or expected["recommended"]["config"].get("num_workers")
    assert _without_built_by(got, expected) == expected
    if said:
        # Each of these studies compared like with like: the speedup it stated stands.
        assert added["comparison"] is None and added["condition"]["kind"] in (
            "quiet",
            "loaded",
            "changing",
        )
    # And the stored answer reads back into the same typed value, with the same snippet.
    again = Answer.from_dict(expected).to_dict()
    assert again.pop("epoch") is None and again.pop("others") is None
    assert again.pop("cores") is None and again.pop("choice") is None
    assert again.pop("started_from") is None and again.pop("randomness") is None
    assert _without_built_by(again, expected) == expected
    snippets = json.loads((FROZEN / "snippets_0.1.0.json").read_text(encoding="utf-8"))
    assert Answer.from_dict(expected).snippet() == snippets[name]


@pytest.mark.parametrize("name", NAMES)
def test_every_stored_value_loads_typed_and_saves_unchanged(
    storage: optuna.storages.RDBStorage, name: str
) -> None:
    study = optuna.load_study(study_name=name, storage=storage)
    raw = study.user_attrs
    known = state.load(study)
    assert known.identity.script == raw["script"] and known.identity.hardware == raw["hardware"]
    if "ceiling" in raw:
        assert known.ceiling is not None
        # As it is stored: JSON, whose keys are strings (the worker counts of the transport).
        saved = json.loads(json.dumps(asdict(known.ceiling)))
        # What the release wrote, key for key (it wrote `remeasured` only once set).
        assert {k: v for k, v in saved.items() if k in raw["ceiling"]} == raw["ceiling"]
        assert set(raw["ceiling"]) | {"remeasured"} >= set(saved)
    if "confirmation" in raw:
        assert known.confirmation is not None
        saved = asdict(known.confirmation)
        assert {k: v for k, v in saved.items() if k in raw["confirmation"]} == raw["confirmation"]
        # Fields added since: their defaults, which say nothing was re-measured afresh.
        assert {k: saved[k] for k in set(saved) - set(raw["confirmation"])} == {
            "fresh": False,
            "incomparable": None,
            "choice": None,
            "draws": None,
        }
    if "worker_options" in raw:
        assert known.options is not None
        saved_options = known.options.to_dict()
        settings, stored = saved_options.pop("settings"), dict(raw["worker_options"])
        stored_settings = stored.pop("settings")
        assert saved_options == stored
        assert {k: settings[k] for k in stored_settings} == stored_settings
        # Probe settings added since: their defaults (no deadline of its own; every probe may
        # end on two agreeing windows, as then).
        assert {k: settings[k] for k in set(settings) - set(stored_settings)} == {
            "deadline_s": None,
            "settled_below": None,
        }
    assert known.seeded == bool(raw.get("seeded"))
    assert known.verdict == raw.get("verdict")
    assert known.script_batches == raw.get("script_batches")
    for trial in study.get_trials(deepcopy=False):
        record = state.record_of(trial)
        if record.measured:
            # As stored: JSON (the transport's worker counts are string keys there).
            saved = json.loads(json.dumps(state.attrs_of(record)))
            _only_added(saved, trial.user_attrs, f"#{trial.number}")
        else:  # queued for a worker: only its role so far
            assert trial.user_attrs == {"role": record.role} == {"role": "seeded"}


def test_the_frozen_studies_cover_what_a_study_keeps(storage: optuna.storages.RDBStorage) -> None:
    """The test above means something only if the release's studies hold each kind of value."""
    kept = set()
    for name in NAMES:
        kept |= set(optuna.load_study(study_name=name, storage=storage).user_attrs)
    assert {
        "ceiling",
        "confirmation",
        "seed",
        "seeded",
        "predicted_workers",
        "verdict",
        "diagnosis",
        "stop_reason",
        "worker_options",
        "script_batches",
        "extra_probe_seconds",
    } <= kept
