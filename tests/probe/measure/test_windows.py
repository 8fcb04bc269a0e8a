"""The window rules on their own: whole turns of bursty workers, and stalls at epoch starts."""

from __future__ import annotations

import pytest

from autotune.probe.measure._windows import (
    BURST_CAP,
    closes_on_time_or_turn,
    stalled_at_epoch_start,
    whole_epoch_windows,
)


@pytest.mark.parametrize(
    ("batches", "waited", "elapsed", "closes"),
    [
        (24, 0.9, 1.0, True),  # two whole turns of 12 workers
        (13, 0.9, 1.0, False),  # mid-burst: one worker's batch into the next turn
        (13, 0.2, 1.0, True),  # the step paced the batches: on time
        (13, 0.9, BURST_CAP * 0.5, True),  # a stalled worker does not hold the window open
    ],
)
def test_a_loader_bound_window_closes_on_whole_turns_of_its_workers(
    batches: int, waited: float, elapsed: float, closes: bool
) -> None:
    assert (
        closes_on_time_or_turn(
            elapsed=elapsed, window_s=0.5, batches=batches, workers=12, waited=waited
        )
        is closes
    )


def test_one_worker_or_none_closes_on_time() -> None:
    for workers in (0, 1):
        assert closes_on_time_or_turn(
            elapsed=0.6, window_s=0.5, batches=7, workers=workers, waited=0.6
        )


def test_a_spread_is_a_stall_only_when_the_slowest_window_holds_an_epoch_start() -> None:
    windows = [4500.0, 92.0, 4400.0]
    assert stalled_at_epoch_start(windows, [0, 1, 0])
    # The same spread with the slowest window holding no start: another process, not a stall.
    assert not stalled_at_epoch_start(windows, [1, 0, 0])
    # A start in the slowest window, but a spread within noise.
    assert not stalled_at_epoch_start([1000.0, 950.0, 1020.0], [0, 1, 0])


def test_whole_epoch_windows_fit_the_span_a_probe_can_measure() -> None:
    # Planned: five 1.5 s windows, a span of 2 x 7.5 s. Epochs of 1 s: windows of two epochs,
    # all five fit. Epochs of 4 s: three fit. Epochs of 9.5 s: two, the least that has a
    # spread, where five would measure for 48 s.
    assert whole_epoch_windows(5, 1.5, 1.0) == 5
    assert whole_epoch_windows(5, 1.5, 4.0) == 3
    assert whole_epoch_windows(5, 1.5, 9.5) == 2
    # No epoch to go by: the planned count.
    assert whole_epoch_windows(5, 1.5, 0.0) == 5
