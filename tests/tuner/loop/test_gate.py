"""The gates a search passes before each trial: alone, every turn may start one; a worker
starts one only while the budget has room, and re-measures only when no trial runs."""

from __future__ import annotations

import time
import warnings
from pathlib import Path

import optuna
from optuna.distributions import IntDistribution
from optuna.trial import TrialState

from autotune import state
from autotune.contract import ProbeResult
from autotune.tuner.loop._gate import Alone, MachineTurn


def _finished(study: optuna.Study, n: int) -> None:
    for _ in range(n):
        record = state.TrialRecord.of_result(ProbeResult(status="ok"), "search")
        study.add_trial(
            state.new_trial(
                record, TrialState.COMPLETE, 100.0, {"w": 1}, {"w": IntDistribution(0, 8)}, {}
            )
        )


def test_alone_every_turn_may_start_and_it_is_always_settled() -> None:
    gate = Alone()
    with gate.turn() as may_start:
        assert may_start
    assert gate.settled()


def test_a_worker_starts_a_trial_only_while_the_budget_has_room(tmp_path: Path) -> None:
    study = optuna.create_study(direction="maximize")
    gate = MachineTurn(study, trials=3, lock_path=tmp_path / "lock", poll_s=0.01)
    _finished(study, 2)
    with gate.turn() as may_start:
        assert may_start  # 2 counted, none running: one more fits
    running = study.ask()  # another worker's trial, in flight
    with gate.turn() as may_start:
        assert not may_start  # 2 counted + 1 running fill the budget of 3
    assert not gate.settled()  # and the leaders wait for it
    study.tell(running, 50.0)
    assert gate.settled()
    study.enqueue_trial({"w": 4})
    _finished(study, 1)
    with gate.turn() as may_start:
        assert may_start  # a queued retry runs even past the budget: its failed try counted


def test_a_dead_workers_trial_does_not_hold_the_last_slot(tmp_path: Path) -> None:
    """Its heartbeat goes stale; the next turn fails it (and queues its retry) before it
    counts the budget, or the living workers would wait for it forever."""
    storage = optuna.storages.RDBStorage(
        f"sqlite:///{tmp_path / 'hb.db'}",
        heartbeat_interval=1,
        grace_period=1,
        heartbeat_stale_trial_callback=optuna.storages.RetryHeartbeatStaleTrialCallback(),
    )
    study = optuna.create_study(storage=storage, direction="maximize")
    gate = MachineTurn(study, trials=3, lock_path=tmp_path / "lock", poll_s=0.01)
    _finished(study, 2)
    with warnings.catch_warnings():  # heartbeats with ask/tell, as the tuner uses them
        warnings.filterwarnings("ignore", message="Heartbeat of storage is supposed")
        dead = study.ask({"w": IntDistribution(0, 8)})
    storage.record_heartbeat(state.optuna_trial_id(dead))  # then its process dies: no more beats
    deadline = time.monotonic() + 30
    while True:
        with gate.turn() as may_start:
            if may_start:
                break
        assert time.monotonic() < deadline, "the dead trial held the budget"
        gate.wait()
    assert study.trials[dead.number].state == TrialState.FAIL
    assert [t.state for t in study.trials[dead.number + 1 :]] == [TrialState.WAITING]
    storage.engine.dispose()
