"""The script as written, measured in a second process where one is one draw of its rate."""

from __future__ import annotations

from autotune.contract import LoaderConfig, ProbeResult
from autotune.tuner.evidence._candidates import Candidate
from autotune.tuner.evidence._confirm import confirm_plan, confirmation_plan
from autotune.tuner.evidence._draws import draws_rate, threads_busy, with_second_draw


def _result(threads: int, main_cpu_s: float, wall_s: float = 4.5) -> ProbeResult:
    return ProbeResult(torch_threads=threads, main_cpu_s=main_cpu_s, measured_wall_s=wall_s)


def test_a_main_process_running_torch_s_threads_side_by_side_is_one_draw() -> None:
    # cpu_bound as written: 2 threads, 9 CPU-s in 4.5 s of windows (2 cores).
    assert threads_busy(_result(2, 9.0))
    assert not threads_busy(_result(1, 4.4))  # one thread: as busy as one thread can be
    assert not threads_busy(_result(2, 0.6))  # io_bound as written: it sleeps on storage
    assert not threads_busy(ProbeResult(torch_threads=2, main_cpu_s=9.0))  # nothing measured


def _pool(busy: bool) -> tuple[Candidate, list[Candidate]]:
    base = Candidate(0, LoaderConfig(), [417.0, 358.0, 339.0], threads_busy=busy)
    leader = Candidate(1, LoaderConfig(num_workers=2, threads=1), [980.0, 988.0, 1001.0])
    return base, [base, leader]


def test_a_far_winner_over_a_one_draw_baseline_measures_the_baseline_once_more() -> None:
    base, pool = _pool(busy=True)
    plan = with_second_draw(confirmation_plan(pool, base, 2), base)
    assert plan.baseline_again and not plan.remeasure  # the leader is not probed again
    calls: list[int] = []

    def probe(c: Candidate) -> ProbeResult:
        calls.append(c.trial)
        return ProbeResult(windows=[611.0, 598.0, 620.0], wall_s=7.0)

    done = confirm_plan(plan, probe)
    assert calls == [0]
    # Each process one draw: the median of 358 and 611, not of the six windows pooled.
    assert done.baseline_median == draws_rate(base) == (358.0 + 611.0) / 2
    assert done.draws is not None and "358 then 611 samples/s in 2 processes" in done.draws
    assert done.probe_seconds == 7.0
    # 988 beats the faster process, 611, by far more than either probe's own windows spread:
    # the 71 % between the two processes is the script's rate moving, not noise to beat on
    # top of its fastest process (which had kept its own settings: docs/benchmarks.md).
    assert done.winner == 1, done.choice


def test_a_baseline_that_is_no_draw_or_is_measured_anyway_is_left_as_planned() -> None:
    base, pool = _pool(busy=False)
    plan = confirmation_plan(pool, base, 2)
    assert with_second_draw(plan, base) is plan
    busy, pool = _pool(busy=True)
    # The script as written leads: nothing to state a speedup over.
    lead = Candidate(0, LoaderConfig(), [1300.0, 1310.0, 1290.0], threads_busy=True)
    alone = confirmation_plan([lead], lead, 2)
    assert not with_second_draw(alone, lead).baseline_again
    # A plan that re-measures the baseline (here among the leaders) measures it again anyway.
    close = Candidate(1, LoaderConfig(num_workers=2), [420.0, 400.0, 380.0])
    again = confirmation_plan([busy, close], busy, 2)
    assert again.remeasure and any(c.config == busy.config for c in again.candidates)
    assert not with_second_draw(again, busy).baseline_again
