"""The API's shapes are the store's rows: every field the store serves is in the contract,
and the contract promises nothing the store does not serve."""

from __future__ import annotations

from dataclasses import fields

from autotune.api.schemas import Host, StudyDetail, TrialDetail, TrialItem

from autotune.answer import Answer
from autotune.hardware import HOST_FIELDS
from autotune.store._queries import _TRIAL_DERIVED, _TRIAL_DETAIL, _TRIAL_ITEM


def test_trial_shapes_match_the_store() -> None:
    assert set(TrialItem.model_fields) == set(_TRIAL_ITEM) | set(_TRIAL_DERIVED)
    assert set(TrialDetail.model_fields) == set(_TRIAL_DETAIL) | set(_TRIAL_DERIVED) | {"windows"}


def test_host_shape_matches_the_hardware_fingerprint() -> None:
    assert set(Host.model_fields) == set(HOST_FIELDS) | {"fingerprint", "description"}


def test_the_study_detail_serves_the_whole_answer() -> None:
    """Every figure the tuner's answer has is declared by the API's study detail (under the
    same name, or the name the API gives it), so a new figure cannot be left out silently."""
    renamed = {"study": "name", "hardware": "host"}
    # The API's own storage is not the tuner's; the framework is inside measured_loader.
    not_served = {"storage", "framework"}
    declared = set(StudyDetail.model_fields)
    missing = [
        f.name
        for f in fields(Answer)
        if f.name not in not_served and renamed.get(f.name, f.name) not in declared
    ]
    assert not missing, f"autotune.answer.Answer fields the API does not declare: {missing}"
