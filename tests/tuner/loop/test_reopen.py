"""Staying tuned, the search's side: on the run's word that its data wait rose, a short climb
from the settled config, recorded as "reopened" segments, then the run settles again."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

import optuna
import pytest

from autotune import state
from autotune.contract import AdaptOrder, Drift, LoaderConfig, LoaderFound, ProbeResult
from autotune.runner import LiveRunner, Target
from autotune.tuner import TunerOptions, stay_tuned
from autotune.tuner.loop._reopen import MAX_REOPENS, REOPEN_SEGMENTS

DRIFT = Drift(
    wait_per_batch_s=0.02,
    step_s=0.03,
    reference_wait_per_batch_s=0.001,
    reference_step_s=0.011,
    windows=3,
)


class FakeLive:
    """A live run whose segments' rates follow ``rate(workers)``, and which reports ``drifts``
    rises of its wait, one each time it is asked, then ends."""

    def __init__(self, rate: Callable[[int], float], drifts: int, found: Drift = DRIFT) -> None:
        self.rate, self.drifts, self.found = rate, drifts, found
        self.target = Target("train.py")
        self.orders: list[tuple[int, AdaptOrder]] = []
        self.asked: list[int] = []
        self.ended = self.interrupted = False
        self.mid_epoch = True
        self.interrupt_at = 10**6
        self.segment_ends: list[datetime] = []

    def order(self, k: int, order: AdaptOrder) -> None:
        self.orders.append((k, order))

    def settle(self, config: LoaderConfig) -> None:
        self.orders.append((-1, AdaptOrder(config, settle=True)))

    def segment(self, k: int, timeout_s: float, on_window: Any = None) -> ProbeResult:
        workers = self.orders[-1][1].config.num_workers or 0
        if workers >= self.interrupt_at:
            raise KeyboardInterrupt  # what LiveRun.segment raises once Ctrl-C outlasts its grace
        rate = self.rate(workers)
        self.segment_ends.append(datetime.now())
        return ProbeResult(
            status="ok", samples_per_s=rate, windows=[rate, rate], applied_config=LoaderConfig()
        )

    def loader(self) -> LoaderFound | None:
        return LoaderFound(switchable=True, mid_epoch=self.mid_epoch)

    def drift(self, k: int) -> Drift | None:
        self.asked.append(k)
        if self.drifts == 0:
            self.ended = True
            return None
        self.drifts -= 1
        return self.found


def _stay(live: FakeLive, settled: LoaderConfig) -> tuple[int, optuna.Study, list[str]]:
    study = optuna.create_study(direction="maximize")
    runner = LiveRunner(live)  # type: ignore[arg-type]
    runner.segments = 4  # the first search's segments 0-2 and the settle order, 3
    notes: list[str] = []
    reopened = stay_tuned(
        study,
        runner,
        settled,
        TunerOptions(max_workers=16),
        cpu_count=2,
        note=notes.append,
        after_trial=lambda s: None,
    )
    return reopened, study, notes


SETTLED = LoaderConfig(num_workers=4, prefetch_factor=2, persistent_workers=True)


def test_a_rise_reopens_a_climb_from_the_settled_config_and_settles_on_its_best() -> None:
    live = FakeLive(lambda w: 100.0 * min(w, 12), drifts=1)
    reopened, study, notes = _stay(live, SETTLED)
    assert reopened == 1
    assert live.asked[0] == 3  # the run settled by order 3 says it rose
    measured = [order.config.num_workers for _, order in live.orders if not order.settle]
    assert measured == [4, 8, 16]  # the settled config first, then doubling up to the bound
    k, settle = live.orders[-1]
    assert settle.settle and settle.config.num_workers == 16 and k == 7
    assert settle.config.persistent_workers is True  # the rest of the settled config kept
    assert live.asked[-1] == 7  # then it watches the new settled stretch
    trials = study.get_trials(deepcopy=False)
    assert [state.role(t) for t in trials] == ["reopened"] * 3
    assert all(
        "the data wait rose from 1.0 to 20.0 ms" in str(state.record_of(t).reason) for t in trials
    )
    assert [t.value for t in trials] == [400.0, 800.0, 1200.0]
    assert any("searching again" in n for n in notes)
    # Each segment starts when its measurement began, not when it was recorded after it.
    for trial, end in zip(trials, live.segment_ends, strict=True):
        assert trial.datetime_start is not None and trial.datetime_start <= end


def test_a_climb_that_gains_nothing_settles_back_on_the_settled_config() -> None:
    live = FakeLive(lambda w: 500.0, drifts=1)
    _, study, _ = _stay(live, SETTLED)
    measured = [order.config.num_workers for _, order in live.orders if not order.settle]
    assert measured == [4, 8]
    assert live.orders[-1][1].settle and live.orders[-1][1].config == SETTLED
    assert len(study.trials) == 2 <= REOPEN_SEGMENTS


def test_a_run_whose_wait_never_rises_pays_no_segment() -> None:
    live = FakeLive(lambda w: 500.0, drifts=0)
    reopened, study, _ = _stay(live, SETTLED)
    assert reopened == 0 and live.orders == [] and study.trials == []


def test_a_run_whose_conditions_keep_changing_is_not_chased_for_ever() -> None:
    live = FakeLive(lambda w: 500.0, drifts=100)
    reopened, _, _ = _stay(live, SETTLED)
    assert reopened == MAX_REOPENS
    assert sum(order.settle for _, order in live.orders) == MAX_REOPENS


def test_a_loader_that_cannot_switch_mid_epoch_is_never_reopened() -> None:
    live = FakeLive(lambda w: 500.0, drifts=1)
    live.mid_epoch = False  # an iterable dataset: its settings never change in a live run
    reopened, study, _ = _stay(live, SETTLED)
    assert reopened == 0 and live.orders == [] and live.asked == [] and not study.trials


def test_ctrl_c_in_a_reopened_search_leaves_the_run_on_the_settled_settings() -> None:
    live = FakeLive(lambda w: 100.0 * w, drifts=1)
    live.interrupt_at = 8  # Ctrl-C while 8 workers are measured
    with pytest.raises(KeyboardInterrupt):
        _stay(live, SETTLED)
    assert live.orders[-1] == (-1, AdaptOrder(SETTLED, settle=True))


def test_a_load_that_ended_reopens_with_the_cores_as_its_reason() -> None:
    calmed = Drift(0.001, 0.011, 0.001, 0.011, windows=3, cores_then=1.2, cores_now=0.05)
    live = FakeLive(lambda w: 100.0 * min(w, 12), drifts=1, found=calmed)
    reopened, study, _ = _stay(live, SETTLED)
    assert reopened == 1
    reasons = {str(state.record_of(t).reason) for t in study.get_trials(deepcopy=False)}
    assert reasons == {
        "reopened: the load beside the run ended (other processes used 1.2 cores when it "
        "settled, 0.1 for 3 windows in a row)"
    }
