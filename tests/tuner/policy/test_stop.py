"""Stop rules and the ceiling's consistency check on hand-made trials."""

from __future__ import annotations

import optuna
from optuna.trial import TrialState

from autotune.contract import LoaderConfig, ProbeResult
from autotune.state import TrialRecord, new_trial
from autotune.tuner.evidence._ceiling import ceiling_suspect, changes_step, near_ceiling
from autotune.tuner.evidence._noise import ci95_median, clearly_better, relative_spread
from autotune.tuner.policy._stop import stop_reason


def trial(
    number: int,
    windows: list[float],
    *,
    role: str = "search",
    wait: float = 0.05,
    state: TrialState = TrialState.COMPLETE,
    config: LoaderConfig | None = None,
) -> optuna.trial.FrozenTrial:
    record = TrialRecord(
        role=role,
        status={"COMPLETE": "ok", "PRUNED": "pruned"}.get(state.name, "crashed"),
        result=ProbeResult(data_wait_fraction=wait),
        config=config or LoaderConfig(),
    )
    value = sorted(windows)[len(windows) // 2] if state == TrialState.COMPLETE else None
    t = new_trial(record, state, value, {}, {}, dict(enumerate(windows)))
    t.number = number
    return t


def test_ci95_of_the_median_covers_it_and_narrows_with_data() -> None:
    few = [10.0, 11.0, 12.0, 9.0, 10.5]
    lo, hi = ci95_median(few)
    assert (lo, hi) == (9.0, 12.0)
    many = [10.0 + (i % 5) * 0.1 for i in range(40)]
    lo2, hi2 = ci95_median(many)
    assert lo2 <= sorted(many)[20] <= hi2
    assert hi2 - lo2 < 0.5


def test_noise_floor_and_clear_gains() -> None:
    assert relative_spread([100.0, 100.0, 100.0]) == 0.03
    assert clearly_better([120.0, 121.0, 119.0], [100.0, 101.0, 99.0])
    assert not clearly_better([101.0, 102.0, 100.0], [100.0, 101.0, 99.0])


def test_near_ceiling_only_from_below_and_within_ten_percent() -> None:
    assert near_ceiling([96.0, 97.0, 98.0], [100.0, 100.0, 100.0])
    assert not near_ceiling([60.0, 62.0, 61.0], [50.0, 100.0, 150.0])
    assert not near_ceiling([250.0, 250.0, 250.0], [100.0, 100.0, 100.0])


def test_stops_near_the_ceiling_when_the_best_barely_waits() -> None:
    trials = [trial(0, [50.0] * 3, role="baseline", wait=0.5), trial(1, [97.0, 98.0, 99.0])]
    assert "ceiling" in (stop_reason(trials, [100.0] * 3, patience=5) or "")
    waiting = [trials[0], trial(1, [97.0, 98.0, 99.0], wait=0.4)]
    assert stop_reason(waiting, [100.0] * 3, patience=5) is None


def test_patience_counts_trials_without_gain_but_not_failures() -> None:
    trials = [trial(0, [100.0] * 3, role="baseline"), trial(1, [200.0] * 3)]
    trials += [trial(2 + i, [199.0, 201.0, 200.0]) for i in range(3)]
    assert stop_reason(trials, None, patience=4) is None
    failed = [trial(9 + i, [], state=TrialState.FAIL) for i in range(5)]
    assert stop_reason(trials + failed, None, patience=4) is None
    assert "4 trials in a row" in (stop_reason([*trials, trial(5, [150.0] * 3)], None, 4) or "")


def test_a_ceiling_below_a_measured_run_is_suspect() -> None:
    fast = [trial(0, [100.0] * 3, role="baseline", wait=0.3), trial(1, [300.0] * 3)]
    assert "trial #1" in (ceiling_suspect(fast, [200.0] * 3) or "")
    assert ceiling_suspect(fast, [1000.0] * 3) is None
    # Baseline: 100 samples/s while waiting 80% -> 500 samples/s of compute alone.
    waiting = [trial(0, [100.0] * 3, role="baseline", wait=0.8)]
    assert "between waits" in (ceiling_suspect(waiting, [200.0] * 3) or "")
    assert ceiling_suspect(waiting, [600.0] * 3) is None


def test_once_every_neighbour_of_the_best_is_measured_the_search_stops() -> None:
    trials = [trial(0, [100.0] * 3, role="baseline"), trial(1, [200.0] * 3)]
    assert stop_reason(trials, None, patience=2) is None
    reason = stop_reason(trials, None, patience=2, searched_around_best=True) or ""
    assert "neighbour of the fastest (#1)" in reason
    # Patience spent on the way down to the knee is not the reason: the line search ended.
    down = [*trials, trial(2, [150.0] * 3), trial(3, [120.0] * 3)]
    reason = stop_reason(down, None, patience=2, searched_around_best=True) or ""
    assert "neighbour of the fastest (#1)" in reason and "knee" in reason
    assert "in a row" in (stop_reason(down, None, patience=2) or "")
    # The script as written in the lead: no line was searched, patience decides.
    flat = [trial(0, [100.0] * 3, role="baseline"), trial(1, [101.0, 99.0, 100.0])]
    assert stop_reason(flat, None, patience=2, searched_around_best=True) is None


STREAMED = LoaderConfig(num_workers=0, pin_memory=True, num_streams=1, device="cuda")


def waiting(number: int, params: dict[str, int | bool]) -> optuna.trial.FrozenTrial:
    """A trial as ``Study.enqueue_trial`` leaves it: its settings queued, nothing measured."""
    study = optuna.create_study()
    study.enqueue_trial(params)
    (t,) = study.get_trials(states=(TrialState.WAITING,))
    t.number = number
    return t


def test_what_changes_the_step_the_compute_ceiling_measured() -> None:
    script = LoaderConfig(batch_size=256)
    assert not changes_step(LoaderConfig(num_workers=8, prefetch_factor=4), script)
    assert not changes_step(LoaderConfig(device="cuda", pin_memory=False), script)
    assert changes_step(LoaderConfig(num_streams=2), script)
    assert changes_step(LoaderConfig(pin_memory=True), script)
    assert not changes_step(LoaderConfig(pin_memory=True), LoaderConfig(pin_memory=True))
    assert changes_step(LoaderConfig(device="cpu"), script)
    assert not changes_step(LoaderConfig(device="cpu"), LoaderConfig(device="cpu"))
    assert changes_step(LoaderConfig(batch_size=512), script)
    assert changes_step(LoaderConfig(threads=1), script)


def test_a_queued_guess_that_changes_the_step_is_measured_before_the_ceiling_ends_it() -> None:
    # Copy-bound on a GPU: the script's own .to() is in its step, so the script as written
    # runs at the compute ceiling; copy streams from pinned memory can still pass it.
    at_ceiling = [trial(0, [99.0, 100.0, 101.0], role="baseline", wait=0.01)]
    assert "ceiling" in (stop_reason(at_ceiling, [100.0] * 3, patience=5) or "")
    queued = waiting(1, {"num_workers": 0, "pin_memory": True, "num_streams": 1})
    assert stop_reason([*at_ceiling, queued], [100.0] * 3, patience=5) is None
    same_step = waiting(1, {"num_workers": 4})
    assert "ceiling" in (stop_reason([*at_ceiling, same_step], [100.0] * 3, patience=5) or "")


def test_a_best_that_changed_the_step_is_not_bounded_by_the_ceiling_nor_disproves_it() -> None:
    trials = [
        trial(0, [99.0, 100.0, 101.0], role="baseline", wait=0.01),
        trial(1, [250.0, 251.0, 252.0], config=STREAMED, wait=0.01),
    ]
    assert ceiling_suspect(trials, [100.0] * 3) is None
    assert stop_reason(trials, [250.0] * 3, patience=5) is None
    plain = [trials[0], trial(1, [250.0, 251.0, 252.0], config=LoaderConfig(num_workers=4))]
    assert "trial #1" in (ceiling_suspect(plain, [100.0] * 3) or "")


def test_a_best_above_a_noisy_ceiling_within_its_noise_is_said_to_reach_it() -> None:
    trials = [trial(0, [50.0] * 3, role="baseline", wait=0.5), trial(1, [105.0, 106.0, 107.0])]
    said = stop_reason(trials, [95.0, 100.0, 105.0], patience=5) or ""
    assert "reaches the compute ceiling (106% of it" in said, said
    assert "runs at 106%" not in said


def baseline(
    windows: list[float], *, wait: float, workers: int = 0, outside: float | None = None
) -> optuna.trial.FrozenTrial:
    """The script as written, loading in ``workers`` workers, beside ``outside`` cores of
    another process's load (None: no reading)."""
    result = ProbeResult(
        status="ok",
        samples_per_s=sorted(windows)[len(windows) // 2],
        windows=windows,
        data_wait_fraction=wait,
        interference_cores=[] if outside is None else [outside] * len(windows),
        cpu_count=None if outside is None else 2,
        script_config=LoaderConfig(num_workers=workers),
    )
    record = TrialRecord(
        role="baseline",
        status="ok",
        result=result,
        config=LoaderConfig(num_workers=workers),
        script_config=LoaderConfig(num_workers=workers),
    )
    t = new_trial(
        record, TrialState.COMPLETE, result.samples_per_s, {}, {}, dict(enumerate(windows))
    )
    t.number = 0
    return t


def test_a_wait_within_the_noise_ends_the_search_at_the_baseline() -> None:
    # 2 % of the time waiting: hiding it gains 2 %, inside the 3 % no pick can resolve.
    quiet = [baseline([1990.0, 2000.0, 2010.0], wait=0.02, outside=0.0)]
    reason = stop_reason(quiet, None, patience=5, step_fixed=True) or ""
    assert "waits for data 2% of its time" in reason and "at most 2.0%" in reason
    # The rule is the step's: where the space may change it, the search goes on.
    assert stop_reason(quiet, None, patience=5) is None


def test_the_wait_bound_holds_only_for_a_quiet_main_process_loader_with_the_step_fixed() -> None:
    windows = [1990.0, 2000.0, 2010.0]
    waits_more = [baseline(windows, wait=0.08, outside=0.0)]  # 8.7 % to gain: measure it
    assert stop_reason(waits_more, None, patience=5, step_fixed=True) is None
    # Workers of its own take cores from the step: fewer may be faster than the wait says.
    with_workers = [baseline(windows, wait=0.02, workers=4, outside=0.0)]
    assert stop_reason(with_workers, None, patience=5, step_fixed=True) is None
    # Another process on a core: the threads' question is open, whatever the wait.
    loaded = [baseline(windows, wait=0.02, outside=1.0)]
    assert stop_reason(loaded, None, patience=5, step_fixed=True) is None
    # A guess queued that changes the step (torch's threads) is measured first.
    quiet = baseline(windows, wait=0.02, outside=0.0)
    threads = waiting(1, {"num_workers": 0, "threads": 1})
    assert stop_reason([quiet, threads], None, patience=5, step_fixed=True) is None
    # Noisy windows widen what no pick can resolve: a 5 % wait inside a 12 % spread ends it.
    noisy = [baseline([1800.0, 2000.0, 2200.0], wait=0.05, outside=0.0)]
    assert "at most 5.3%" in (stop_reason(noisy, None, patience=5, step_fixed=True) or "")
