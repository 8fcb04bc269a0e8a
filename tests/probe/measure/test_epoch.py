"""The epoch clock: one epoch split where its time goes, an epoch not seen whole said so, and
the start-up charged once per epoch."""

from __future__ import annotations

import pytest

from autotune.contract import EpochFigures, ProbeSettings
from autotune.probe.measure import EpochClock, OtherPass, charge_per_epoch
from autotune.probe.measure._meter import Meter


def _val(started: float, first: float, ended: float) -> OtherPass:
    return OtherPass("DataLoader", "Val", 8, 0, "fit.py:30", started, first, ended, batches=10)


def _one_epoch() -> EpochClock:
    clock = EpochClock(epoch_batches=16)
    clock.train_iter(0.0)
    clock.train_first(0.5)  # the first epoch's first batch: none complete
    assert not clock.complete
    clock.train_end(1.9)
    clock.other(_val(2.0, 2.1, 3.0))
    clock.built(3.15, 0.05, True)  # the training loader, built again for the next epoch
    clock.train_iter(3.2)
    clock.train_first(3.7)
    assert clock.complete
    return clock


def test_an_epoch_is_split_into_its_parts() -> None:
    figures = _one_epoch().figures()
    assert figures.epoch_s == pytest.approx(3.2)  # first batch to the next epoch's
    assert figures.train_s == pytest.approx(1.4)
    assert figures.startup_s == pytest.approx(0.5)
    assert figures.first_startup_s == pytest.approx(0.5)
    assert [p.seconds for p in figures.passes] == [pytest.approx(1.0)]
    assert figures.passes[0].site == "fit.py:30" and figures.passes[0].batches == 10
    assert figures.builds_s == pytest.approx(0.05)
    assert figures.rest_s == pytest.approx(3.2 - 1.4 - 0.5 - 1.0 - 0.05)
    assert figures.rebuilt is True
    assert figures.outside_s == pytest.approx(3.2 - 1.4 - 0.5)
    assert figures.reason == ""


def test_the_latest_epoch_seen_is_the_one_stated() -> None:
    clock = _one_epoch()  # the first epoch: 3.2 s, its workers still ramping up
    clock.train_end(5.0)
    clock.train_iter(5.1)
    clock.train_first(5.2)
    figures = clock.figures()
    assert figures.epoch_s == pytest.approx(5.2 - 3.7)
    assert figures.passes == [] and figures.startup_s == pytest.approx(0.1)


def test_a_pass_the_script_broke_out_of_ends_at_what_came_next() -> None:
    clock = EpochClock(epoch_batches=16)
    clock.train_iter(0.0)
    clock.train_first(0.5)
    clock.other(_val(2.0, 2.1, 3.0))  # no train_end: the loop broke out at 2.0
    clock.train_iter(3.2)
    clock.train_first(3.3)
    assert clock.figures().train_s == pytest.approx(1.5)


def test_a_pass_inside_the_training_pass_says_so() -> None:
    # Validation every so many steps (Lightning's val_check_interval=0.5): one pass at 1.0,
    # while the training pass runs until 1.9, and one after it.
    clock = EpochClock(epoch_batches=16)
    clock.train_iter(0.0)
    clock.train_first(0.5)
    clock.other(_val(1.0, 1.05, 1.3))
    clock.train_end(1.9)
    clock.other(_val(2.0, 2.1, 3.0))
    clock.train_iter(3.2)
    clock.train_first(3.3)
    assert [p.in_training for p in clock.figures().passes] == [True, False]
    assert [p.in_training for p in _one_epoch().figures().passes] == [False]


def test_no_epoch_end_seen_says_why_in_batches_and_seconds() -> None:
    clock = EpochClock(epoch_batches=10_000)
    clock.train_iter(0.0)
    clock.train_first(0.5)
    figures = clock.figures(batch_s=0.01)
    assert figures.epoch_s is None and figures.first_startup_s == pytest.approx(0.5)
    assert figures.reason == (
        "the probe was too short to see an epoch end: 10000 batches an epoch, about 100.0 s "
        "of training batches"
    )
    assert figures.epoch_batches == 10_000


def test_a_loader_without_length_says_so() -> None:
    clock = EpochClock()
    clock.train_iter(0.0)
    clock.train_first(0.5)
    assert "no length" in clock.figures().reason


def _charge(figures: EpochFigures, *, workers: int, persistent: bool) -> tuple[float, float]:
    out, scale = charge_per_epoch(
        figures,
        windows=[1200.0, 1280.0, 1300.0],
        batch_size=8,
        batch_s=8 / 1280,
        steady=1280.0,
        workers=workers,
        persistent=persistent,
    )
    return out.charged_startup_s, scale


def test_a_restart_seen_is_charged_once_per_epoch() -> None:
    # 16 batches of 8 at 1,280 samples/s: 0.1 s an epoch, then 0.5 s of start-up each epoch.
    figures = EpochFigures(epoch_s=0.6, startup_s=0.5, epoch_batches=16)
    cost, scale = _charge(figures, workers=2, persistent=False)
    assert cost == pytest.approx(0.5 - 8 / 1280)  # one batch's own time is in the rate
    assert 1280 * scale == pytest.approx(128 / (0.1 + cost))


def test_the_start_ups_taken_out_of_the_windows_are_the_ones_charged_back() -> None:
    # An epoch of 128 batches of 16 asked of 128 workers at once: its first batch comes 3.2 s
    # after the epoch starts on average (most of the loading), the rest 0.9 s later; the
    # clock saw one epoch whose wait was 2.3 s. Windows of whole epochs read 2,048 / 4.1 s.
    rate = 2048 / (3.2 + 0.9)
    steady = 2048 / 0.9  # the windows with their start-ups taken out
    figures = EpochFigures(epoch_s=2.44, startup_s=2.3, epoch_batches=128)
    out, scale = charge_per_epoch(
        figures,
        windows=[rate * 0.95, rate, rate * 1.05],
        batch_size=16,
        batch_s=16 / steady,
        steady=steady,
        workers=128,
        persistent=True,
        startup_in_windows=3.2,
    )
    assert out.charged_startup_s == pytest.approx(3.2 - 16 / steady)
    # The windows' own rate, give or take the one batch's time: not the 1.3x that charging
    # the clock's 2.3 s back gave.
    assert rate * scale == pytest.approx(rate, rel=0.01)


def test_persistent_workers_unseen_restarting_are_not_charged() -> None:
    figures = EpochFigures(first_startup_s=0.5, epoch_batches=16)
    assert _charge(figures, workers=2, persistent=True) == (0.0, 1.0)
    # Not persistent: each epoch repeats the first epoch's start-up.
    cost, scale = _charge(figures, workers=2, persistent=False)
    assert cost > 0.4 and scale < 0.3


def test_nothing_charged_leaves_every_window_exactly_as_measured() -> None:
    # 15 batches of 8 at this rate: e / (e / rate) is 1 ulp off the rate, and a window scaled
    # by that would no longer equal the one the progress file already carried (seen in CI).
    rate = 220.2098329173666
    figures = EpochFigures(first_startup_s=0.5, epoch_batches=15)
    for windows in ([rate], [223.77696004900872, rate, 219.72131584096]):
        _, scale = charge_per_epoch(
            figures,
            windows=windows,
            batch_size=8,
            batch_s=8 / rate,
            steady=rate,
            workers=0,
            persistent=False,
        )
        assert scale == 1.0


def test_no_charge_without_an_epoch_length() -> None:
    figures = EpochFigures(startup_s=0.5)
    assert charge_per_epoch(
        figures, windows=[1.0], batch_size=8, batch_s=0.1, steady=1.0, workers=2, persistent=False
    ) == (figures, 1.0)


SETTINGS = ProbeSettings(warmup_batches=2, warmup_s=0.0, window_s=1.0, windows=2)


def _started(monkeypatch, epoch_batches: int, done: list[bool]):  # type: ignore[no-untyped-def]
    """A meter on a fake clock (``now[0]``) with an epoch clock, its first epoch begun."""
    now = [0.0]
    monkeypatch.setattr("autotune.probe.measure._meter.perf_counter", lambda: now[0])
    meter = Meter(SETTINGS, on_done=lambda: done.append(True), outside_cpu=lambda: None)
    clock = meter.clock = EpochClock(epoch_batches=epoch_batches)
    clock.train_iter(0.0)
    meter.iter_started(0.0)
    meter.first_batch(0.0, 0.01)
    return meter, clock, now


def test_the_meter_is_done_at_its_windows_and_times_an_epoch_inside_them(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    done: list[bool] = []
    meter, clock, now = _started(monkeypatch, 50, done)
    while not meter.done:
        now[0] += 0.01
        meter.record(now[0], now[0], 4)
        if meter.batches % 50 == 0:  # an epoch's end and the next epoch's first batch
            meter.epoch_ended(now[0])
            clock.train_iter(now[0] + 0.2)
            now[0] += 0.3
            meter.first_batch(now[0] - 0.3, now[0])
    # Never past its windows for an epoch end: done once they are, with the epoch seen.
    assert done == [True] and len(meter.windows) >= 2
    figures = clock.figures()
    assert figures.epoch_s == pytest.approx(0.5 + 0.3)  # 50 batches of 10 ms, then the restart
    assert figures.startup_s == pytest.approx(0.1)


def test_a_long_epoch_does_not_hold_the_meter(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    done: list[bool] = []
    meter, clock, now = _started(monkeypatch, 400_000, done)
    while not meter.done:
        now[0] += 0.01
        meter.record(now[0], now[0], 4)
    assert meter.batches < 1000 and done == [True]
    assert "too short to see an epoch end: 400000 batches" in clock.figures(0.01).reason
