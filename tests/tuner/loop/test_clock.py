"""The search's budget on the user's clock: no probe outlasts it by more than its two least
windows, no trial or re-measure starts after it, and the answer says what it left unmeasured."""

from __future__ import annotations

import math
import time

from autotune import state
from autotune.contract import ProbeResult, ProbeSettings, TrialConfig
from autotune.tuner.loop._clock import LEAST_DEADLINE_S, Clock
from tests.tuner.fake_runner import FakeRunner
from tests.tuner.loop.test_tuner import make


def test_a_probe_started_near_the_budget_s_end_stops_measuring_with_it() -> None:
    usual = ProbeSettings(deadline_s=90.0)
    now = time.monotonic()
    near = Clock(10.0, started=now - 7.0).fit(usual).deadline_s
    assert near is not None and LEAST_DEADLINE_S < near <= 3.0
    assert Clock(10.0, started=now - 9.99).fit(usual).deadline_s == LEAST_DEADLINE_S
    assert Clock(3600.0, started=now).fit(usual) == usual  # the usual deadline comes first
    ranks = ProbeSettings(deadline_s=None)  # ranks never get one: they would block apart
    assert Clock(10.0, started=now - 9.0).fit(ranks) == ranks


def test_a_search_stopped_by_its_budget_starts_nothing_after_it_and_says_what_is_unknown() -> None:
    probes = 0

    def spend_after_the_seed(config: TrialConfig, result: ProbeResult) -> ProbeResult:
        nonlocal probes
        probes += 1
        if probes == 2:  # the baseline, then the seed: the budget is over as the seed ends
            tuner._clock.started = -math.inf
        return result

    runner = FakeRunner(load_s=0.1, compute_s=0.01, after=spend_after_the_seed)
    tuner = make(runner, trials=20, patience=10, timeout_s=600.0)
    outcome = tuner.run()
    assert probes == 2, [c.loader for c in runner.calls]  # no trial, no re-measure after it
    reason = outcome.stop_reason
    assert reason.startswith("reached --budget 600s; "), reason
    # The seed led, with its neighbours and the counts below it never measured.
    assert "the neighbours of the best (13 workers) were not all measured" in reason, reason
    assert state.load(tuner.study).stop_reason == reason


def test_a_budget_spent_by_the_baseline_says_nothing_was_measured_beside_it() -> None:
    runner = FakeRunner(load_s=0.1, compute_s=0.01)
    tuner = make(runner, trials=20, patience=10, timeout_s=1e-9)
    outcome = tuner.run()
    # The baseline (its ceilings in the same probe) and no trial: the seed stays queued.
    assert [c.mode for c in runner.calls] == ["baseline"], runner.calls
    assert "no setting was measured beside the script as written" in outcome.stop_reason
