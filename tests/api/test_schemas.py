"""The API's shapes are the store's rows: every field the store serves is in the contract,
and the contract promises nothing the store does not serve."""

from __future__ import annotations

from api.schemas import Host, TrialDetail, TrialItem
from autotune.hardware import HOST_FIELDS
from autotune.store._queries import _TRIAL_DETAIL, _TRIAL_ITEM


def test_trial_shapes_match_the_store() -> None:
    assert set(TrialItem.model_fields) == set(_TRIAL_ITEM)
    assert set(TrialDetail.model_fields) == set(_TRIAL_DETAIL) | {"windows"}


def test_host_shape_matches_the_hardware_fingerprint() -> None:
    assert set(Host.model_fields) == set(HOST_FIELDS) | {"fingerprint", "description"}
