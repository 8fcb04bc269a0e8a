"""A probe's windows read as five would spread: three windows are no bolder than five."""

from __future__ import annotations

import random
import statistics

import pytest

from autotune.contract import LoaderConfig
from autotune.tuner.evidence import window_range
from autotune.tuner.evidence._candidates import Candidate, separated
from autotune.tuner.evidence._noise import relative_spread


def test_three_windows_stretch_about_their_median_and_two_or_five_stay() -> None:
    lo, hi = window_range([90.0, 100.0, 104.0])
    assert lo == pytest.approx(100 - 10 * 2.326 / 1.693)
    assert hi == pytest.approx(100 + 4 * 2.326 / 1.693)
    assert window_range([95.0, 100.0]) == (95.0, 100.0)  # an early stop chose them
    five = [90.0, 95.0, 100.0, 104.0, 110.0]
    assert window_range(five) == (90.0, 110.0)
    assert window_range([*five, 120.0]) == (90.0, 120.0)
    assert relative_spread([90.0, 100.0, 110.0]) == pytest.approx(10 * 2.326 / 1.693 / 100)


def test_on_one_machine_three_windows_read_as_noisy_as_five() -> None:
    # Windows of one config with 5 % noise: the spread read off three, stretched, is on
    # average what five show; unstretched it would read a quarter narrower.
    rng = random.Random(7)

    def draws(n: int) -> list[float]:
        return [1000 * (1 + rng.gauss(0, 0.05)) for _ in range(n)]

    three = statistics.fmean(relative_spread(draws(3)) for _ in range(4000))
    five = statistics.fmean(relative_spread(draws(5)) for _ in range(4000))
    assert three == pytest.approx(five, rel=0.06)
    raw = statistics.fmean(
        (max(w) - min(w)) / 2 / statistics.median(w) for w in (draws(3) for _ in range(4000))
    )
    assert raw < 0.8 * five


def test_a_far_winner_is_separated_by_what_five_windows_would_show() -> None:
    slow = Candidate(0, LoaderConfig(), [980.0, 1000.0, 1020.0])
    # Its lowest window beats the other's highest by 4 %, but five windows of each would
    # overlap: not separated. By 10 %: separated either way.
    near = Candidate(1, LoaderConfig(num_workers=2), [1061.0, 1080.0, 1100.0])
    assert not separated(near, slow)
    far = Candidate(2, LoaderConfig(num_workers=4), [1150.0, 1170.0, 1190.0])
    assert separated(far, slow)
