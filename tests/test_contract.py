"""The probe/tuner contract's own rules."""

from __future__ import annotations

import json

import pytest

from autotune.contract import CEILING_GAP, ProbeResult, ProbeSettings


@pytest.mark.parametrize(
    ("windows", "done"),
    [
        ([100.0], False),  # one window is never enough
        ([100.0, 103.0], True),  # two agree within 5%
        ([100.0, 110.0], False),  # two disagree: measure another
        ([100.0, 110.0, 120.0], False),
        ([100.0, 110.0, 120.0, 90.0], True),  # the cap
    ],
)
def test_a_probe_ends_once_its_windows_agree(windows: list[float], done: bool) -> None:
    assert ProbeSettings(windows=4, min_windows=2).enough(windows) is done


def test_without_min_windows_every_window_is_measured() -> None:
    settings = ProbeSettings(windows=3)
    assert not settings.enough([100.0, 100.0])
    assert settings.enough([100.0, 100.0, 100.0])


def test_a_ceiling_settles_at_the_precision_it_is_used_to() -> None:
    settings = ProbeSettings(windows=4, min_windows=2)
    assert not settings.enough([100.0, 108.0])
    assert settings.for_ceiling().enough([100.0, 108.0])  # within CEILING_GAP
    assert not settings.for_ceiling().enough([100.0, 115.0])
    assert settings.for_ceiling().settled_spread == CEILING_GAP


def test_a_result_stored_before_interference_was_read_loads_without_it() -> None:
    old = {"status": "ok", "windows": [10.0, 11.0], "samples_per_s": 10.5, "gone_key": 1}
    res = ProbeResult.from_dict(old)
    assert res.interference_cores == [] and res.ceiling_interference_cores == []
    assert ProbeResult.from_dict(res.to_dict()) == res


def test_transport_figures_are_keyed_by_worker_count_through_json() -> None:
    # JSON keys are strings; the contract reads them back as the counts they are.
    result = ProbeResult(transport_by_workers={0: 900.0, 8: 400.0})
    back = ProbeResult.from_dict(json.loads(json.dumps(result.to_dict())))
    assert back.transport_by_workers == {0: 900.0, 8: 400.0}
    assert ProbeResult.from_dict({"transport_by_workers": None}).transport_by_workers is None
