"""The probe/tuner contract's own rules."""

from __future__ import annotations

import pytest

from autotune.contract import ProbeSettings


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
