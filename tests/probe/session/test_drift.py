"""A settled run's watch on its own data wait: a sustained rise is found, noise is not."""

from __future__ import annotations

from autotune.probe.session._drift import MIN_BATCHES, RISE, SUSTAIN, Drift, DriftWatch


def _feed(
    watch: DriftWatch, now: float, seconds: float, step: float, wait: float
) -> tuple[float, list[Drift]]:
    """Batches of ``step`` seconds, ``wait`` of each spent waiting for data, for ``seconds``."""
    found = []
    end = now + seconds
    while now < end:
        now += step
        drift = watch.batch(now - wait, now)
        if drift is not None:
            found.append(drift)
    return now, found


def test_a_steady_run_never_reopens() -> None:
    watch = DriftWatch(1.0, 0.0)
    _, found = _feed(watch, 0.0, 60.0, step=0.010, wait=0.001)
    assert found == []


def test_a_sustained_rise_is_reported_once_with_the_figures_then_and_now() -> None:
    watch = DriftWatch(1.0, 0.0)
    now, found = _feed(watch, 0.0, 5.0, step=0.010, wait=0.001)
    assert found == []
    now, found = _feed(watch, now, SUSTAIN + 0.5, step=0.030, wait=0.021)
    assert len(found) == 1, found
    drift = found[0]
    assert drift.windows == SUSTAIN
    assert abs(drift.reference_wait_per_batch_s - 0.001) < 1e-4
    assert abs(drift.reference_step_s - 0.010) < 1e-3
    assert abs(drift.wait_per_batch_s - 0.021) < 1e-3
    assert abs(drift.step_s - 0.030) < 2e-3


def test_single_noisy_windows_and_small_rises_are_noise() -> None:
    watch = DriftWatch(1.0, 0.0)
    now, _ = _feed(watch, 0.0, 3.0, step=0.010, wait=0.001)
    found: list[Drift] = []
    for _ in range(10):  # a bad window, then a good one: never SUSTAIN in a row
        now, bad = _feed(watch, now, 1.0, step=0.030, wait=0.021)
        now, good = _feed(watch, now, 1.0, step=0.010, wait=0.001)
        found += bad + good
    # A rise below RISE of the step, however long it lasts.
    small = 0.001 + 0.8 * RISE * 0.010
    now, more = _feed(watch, now, 20.0, step=0.010 + small, wait=small)
    assert found == [] and more == []


def test_the_first_window_after_settling_is_not_the_reference() -> None:
    watch = DriftWatch(1.0, 0.0)
    # The settled settings start their workers: a slow first window is start-up, not the
    # reference (else the steady state after it would never look risen).
    now, found = _feed(watch, 0.0, 1.0, step=0.050, wait=0.045)
    now, found2 = _feed(watch, now, 4.0, step=0.010, wait=0.001)
    now, risen = _feed(watch, now, SUSTAIN + 0.5, step=0.030, wait=0.021)
    assert found == [] and found2 == [] and len(risen) == 1


def test_a_window_of_too_few_batches_is_extended() -> None:
    watch = DriftWatch(1.0, 0.0)
    # Batches of 0.5 s: a 1 s window holds 2, fewer than MIN_BATCHES; it waits for more.
    _feed(watch, 0.0, 1.0, step=0.5, wait=0.4)
    assert MIN_BATCHES > 2
    assert watch.n == 2  # the window's two batches are still counted, not averaged
