"""A settled run's watch on its own data wait: a sustained rise is found, noise is not."""

from __future__ import annotations

from autotune.contract import Drift
from autotune.probe.session._drift import MIN_BATCHES, QUIET, RISE, SUSTAIN, DriftWatch


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


class _Load:
    """The cores other processes used, as ``OutsideCpu`` reads them at each window's end."""

    def __init__(self, cores: float | None) -> None:
        self.cores = cores
        self.reads = 0

    def __call__(self) -> float | None:
        self.reads += 1
        return self.cores


def test_a_run_settled_beside_a_load_that_ends_reopens_with_the_cores() -> None:
    load = _Load(1.0)
    watch = DriftWatch(1.0, 0.0, load)
    now, found = _feed(watch, 0.0, 5.0, step=0.010, wait=0.001)
    assert found == []
    load.cores = QUIET / 2  # the other job ended; the run's own wait does not move
    now, found = _feed(watch, now, SUSTAIN + 0.5, step=0.010, wait=0.001)
    assert found, "the load ended for SUSTAIN windows and nothing was found"
    assert found[0].cores_then == 1.0 and abs((found[0].cores_now or 0) - QUIET / 2) < 1e-9
    assert found[0].windows == SUSTAIN
    # One reading a window, never per batch.
    assert load.reads <= 5 + SUSTAIN + 2


def test_a_load_that_starts_flickers_or_was_never_there_reopens_nothing() -> None:
    quiet = _Load(0.0)
    watch = DriftWatch(1.0, 0.0, quiet)
    now, found = _feed(watch, 0.0, 5.0, step=0.010, wait=0.001)
    quiet.cores = 1.0  # a load starts: the wait tells whether it matters
    now, more = _feed(watch, now, 10.0, step=0.010, wait=0.001)
    assert found == [] and more == []
    load = _Load(1.0)
    watch = DriftWatch(1.0, 0.0, load)
    now, found = _feed(watch, 0.0, 5.0, step=0.010, wait=0.001)
    for _ in range(10):  # quiet for less than SUSTAIN windows at a time
        load.cores = 0.0
        now, calm = _feed(watch, now, 1.0, step=0.010, wait=0.001)
        load.cores = 1.0
        now, busy = _feed(watch, now, 1.0, step=0.010, wait=0.001)
        found += calm + busy
    assert found == []
    unread = DriftWatch(1.0, 0.0, _Load(None))  # a machine whose load cannot be read
    _, found = _feed(unread, 0.0, 20.0, step=0.010, wait=0.001)
    assert found == []
