"""The worker line search: neighbours of the best, and the bracket a failure leaves."""

from __future__ import annotations

import optuna
from optuna.trial import TrialState

from autotune import state
from autotune.contract import EpochFigures, LoaderConfig, MeasuredLoader, ProbeResult
from autotune.state import queued_params
from autotune.tuner.evidence._trials import frozen_from_result
from autotune.tuner.policy._space import SearchSpace
from autotune.tuner.workers._climb import back_off, climb, searched_around_best

SPACE = SearchSpace(max_workers=32)


def _study() -> optuna.Study:
    return optuna.create_study(direction="maximize")


def _add(
    study: optuna.Study,
    workers: int,
    rate: float | None,
    role: str = "seeded",
    *,
    prefetch: int = 2,
    wait: float | None = None,
    cpu: float | None = None,
    batch: int | None = None,
    outside: float | None = None,
    threads: int | None = None,
    space: SearchSpace = SPACE,
    windows: list[float] | None = None,
    framework: str | None = None,
) -> None:
    """``cpu``: CPU-seconds each worker burns per second (None: not measured);
    ``outside``: cores other processes used in every window, on 2 cores (None: not read)."""
    config = LoaderConfig(
        num_workers=workers, prefetch_factor=prefetch, persistent_workers=False, threads=threads
    )
    status = "ok" if rate is not None else "crashed"
    result = ProbeResult(
        status=status,
        samples_per_s=rate,
        windows=windows or ([rate] * 3 if rate else []),
        applied_config=config,
        data_wait_fraction=wait,
        measured_wall_s=10.0 if cpu is not None else None,
        worker_cpu_s=cpu * 10.0 * workers if cpu is not None else None,
        batch_size=batch,
        interference_cores=[outside] * 3 if rate and outside is not None else [],
        cpu_count=2 if outside is not None else None,
        measured_loader=MeasuredLoader("TfmdDL", "Datasets", 64, framework=framework),
    )
    params = space.params(config)
    study.add_trial(frozen_from_result(result, role, params, space.distributions(params)))


def _queued(study: optuna.Study) -> list[int]:
    waiting = study.get_trials(deepcopy=False, states=(TrialState.WAITING,))
    return [queued_params(t)["num_workers"] for t in waiting]


def test_the_best_queues_half_its_workers_first_then_half_again_as_many() -> None:
    study, notes = _study(), []
    _add(study, 0, 100.0, role="baseline")
    _add(study, 8, 400.0)
    assert climb(study, SPACE, notes.append)
    assert _queued(study) == [4]
    assert climb(study, SPACE, notes.append)  # 4 waits already: it is not queued twice
    assert _queued(study) == [4, 12]
    assert not climb(study, SPACE, notes.append)
    assert notes and "8 workers" in notes[0]


def _queued_configs(study: optuna.Study) -> list[tuple[int, int]]:
    waiting = study.get_trials(deepcopy=False, states=(TrialState.WAITING,))
    return [
        (
            queued_params(t)["num_workers"],
            queued_params(t)["prefetch_factor"],
        )
        for t in waiting
    ]


def test_a_best_that_still_waits_for_data_tries_a_deeper_prefetch_last() -> None:
    study, notes = _study(), []
    _add(study, 0, 100.0, role="baseline")
    _add(study, 8, 400.0, wait=0.5)
    _add(study, 4, 300.0)
    _add(study, 12, 380.0)
    assert climb(study, SPACE, notes.append)
    assert _queued_configs(study) == [(8, 8)]
    assert "prefetch_factor 8" in notes[0]
    # Then, last, back down toward the knee: 4 runs clearly below 8, so between them.
    assert climb(study, SPACE, notes.append)
    assert _queued_configs(study) == [(8, 8), (6, 2)]
    assert not climb(study, SPACE, notes.append)  # both wait: nothing new
    # A best that is fed (little waiting) gains nothing from a deeper queue: only the knee.
    fed = _study()
    _add(fed, 8, 400.0, wait=0.02)
    _add(fed, 4, 300.0)
    _add(fed, 12, 380.0)
    assert climb(fed, SPACE, lambda _: None) and _queued_configs(fed) == [(6, 2)]
    # Nor does one already at the deepest prefetch.
    deep = _study()
    _add(deep, 8, 400.0, prefetch=8, wait=0.5)
    _add(deep, 4, 300.0, prefetch=8)
    _add(deep, 12, 380.0, prefetch=8)
    assert climb(deep, SPACE, lambda _: None) and _queued_configs(deep) == [(6, 8)]


def test_a_loader_that_takes_no_prefetch_factor_is_never_given_a_deeper_queue() -> None:
    # fastai's DataLoader keeps torch's 2 on its stand-in, and no argument of dataloaders()
    # sets it: the trial would repeat the best's settings.
    study, notes = _study(), []
    _add(study, 0, 100.0, role="baseline", framework="fastai")
    _add(study, 8, 400.0, wait=0.5, framework="fastai")
    _add(study, 4, 300.0, framework="fastai")
    _add(study, 12, 380.0, framework="fastai")
    assert climb(study, SPACE, notes.append)
    assert _queued_configs(study) == [(6, 2)]
    assert not any("prefetch" in note for note in notes), notes


def test_a_queue_that_already_holds_a_whole_epoch_is_not_deepened() -> None:
    # 32 batches an epoch over a map-style dataset: torch issues none past the epoch's last,
    # so 16 workers x 2 already hold all of them in flight and prefetch_factor 8 adds none.
    def study_of(workers: int) -> optuna.Study:
        study = _study()
        loader = MeasuredLoader("DataLoader", "Slow", 64, iterable=False)
        base = ProbeResult(
            status="ok",
            samples_per_s=100.0,
            windows=[100.0] * 3,
            applied_config=LoaderConfig(num_workers=0),
            measured_loader=loader,
            epoch=EpochFigures(epoch_batches=32),
        )
        params = SPACE.params(base.applied_config)
        study.add_trial(frozen_from_result(base, "baseline", params, SPACE.distributions(params)))
        _add(study, workers, 400.0, wait=0.6, cpu=0.05)
        _add(study, 2 * workers, 380.0, wait=0.6, cpu=0.05)
        return study

    whole = study_of(16)
    while climb(whole, SPACE, lambda _: None):
        pass
    assert all(prefetch == 2 for _, prefetch in _queued_configs(whole)), _queued_configs(whole)
    # 8 workers x 2 hold half an epoch: the deeper queue is still worth a probe.
    half = study_of(8)
    while climb(half, SPACE, lambda _: None):
        pass
    assert (8, 8) in _queued_configs(half), _queued_configs(half)


def test_no_climb_from_the_baseline_or_past_the_space() -> None:
    study = _study()
    _add(study, 0, 100.0, role="baseline")
    assert not climb(study, SPACE, lambda _: None)
    _add(study, 32, 400.0)
    _add(study, 16, 300.0)
    _add(study, 23, 300.0)
    # 48 is outside the space: the top neighbour is clamped to 32, already tried; 23 and 32
    # bracket the knee within half again.
    assert not climb(study, SPACE, lambda _: None)
    assert _queued(study) == []


def test_a_latency_bound_best_only_climbs_up_then_deepens() -> None:
    study, notes = _study(), []
    _add(study, 0, 100.0, role="baseline")
    _add(study, 8, 400.0, wait=0.6, cpu=0.05)  # waits for data, workers idle
    assert climb(study, SPACE, notes.append)
    assert climb(study, SPACE, notes.append)
    assert climb(study, SPACE, notes.append)
    assert not climb(study, SPACE, notes.append)
    # Its rate grows with the count: twice as many, then a deeper queue; only then, back
    # down toward the knee, half as many.
    assert _queued_configs(study) == [(16, 2), (8, 8), (4, 2)]
    assert "trying 16" in notes[0] and "prefetch_factor 8" in notes[1]
    # A best whose workers are busy on the CPU may oversubscribe the cores: fewer first.
    busy = _study()
    _add(busy, 8, 400.0, wait=0.6, cpu=0.9)
    for _ in range(3):
        assert climb(busy, SPACE, lambda _: None)
    assert not climb(busy, SPACE, lambda _: None)
    assert _queued_configs(busy) == [(4, 2), (8, 8), (12, 2)]


def test_under_a_failure_cap_the_climb_steps_up_but_never_past_the_middle() -> None:
    study = _study()
    _add(study, 0, 100.0, role="baseline")
    _add(study, 8, 400.0)
    _add(study, 4, 300.0)
    state.cap_workers(study, 20)  # 21 failed: half again as many (12) is inside
    assert climb(study, SPACE, lambda _: None)
    assert _queued(study) == [12]
    near = _study()
    _add(near, 8, 400.0)
    _add(near, 4, 300.0)
    state.cap_workers(near, 12)  # 13 failed: the geometric midpoint, 10
    assert climb(near, SPACE, lambda _: None)
    assert _queued(near) == [10]
    narrow = _study()
    _add(narrow, 8, 400.0)
    _add(narrow, 4, 300.0)
    _add(narrow, 6, 300.0)
    state.cap_workers(narrow, 9)  # 9 < 8 * 1.2: closed; 6 and 8 bracket the knee
    assert not climb(narrow, SPACE, lambda _: None)


def test_a_failure_above_every_working_count_caps_and_bisects() -> None:
    study, notes = _study(), []
    _add(study, 4, 300.0)
    failed = LoaderConfig(num_workers=24, prefetch_factor=2, persistent_workers=False)
    back_off(study, 2, failed, ProbeResult(status="crashed"), SPACE, notes.append)
    assert state.load(study).worker_cap == 23
    assert _queued(study) == [10]  # the geometric midpoint of 4 and 24
    assert "capping at 23" in notes[0]
    # A failure at or below a count that worked says nothing about the count.
    low = LoaderConfig(num_workers=3, prefetch_factor=2, persistent_workers=False)
    back_off(study, 3, low, ProbeResult(status="crashed"), SPACE, notes.append)
    assert state.load(study).worker_cap == 23 and len(notes) == 1


def test_a_failure_far_above_the_script_as_written_retries_on_the_log_scale() -> None:
    study = _study()
    _add(study, 0, 100.0, role="baseline")
    failed = LoaderConfig(num_workers=65, prefetch_factor=2, persistent_workers=False)
    back_off(study, 1, failed, ProbeResult(status="crashed"), SPACE, lambda _: None)
    assert _queued(study) == [8]  # sqrt(1 x 65), where halving would try 32, 16, then 8
    edge = _study()
    _add(edge, 8, 400.0)
    failed = LoaderConfig(num_workers=10, prefetch_factor=2, persistent_workers=False)
    back_off(edge, 2, failed, ProbeResult(status="crashed"), SPACE, lambda _: None)
    assert _queued(edge) == [9]


def _run_queued(study: optuna.Study, rate: float, **kwargs: float) -> None:
    """The queued trial ran: measured at ``rate``, with the wait and CPU given."""
    (waiting,) = study.get_trials(deepcopy=False, states=(TrialState.WAITING,))
    params = queued_params(waiting)
    trial = study.ask()
    study.tell(trial, state=TrialState.FAIL)  # the queue slot; the result is added whole
    _add(study, params["num_workers"], rate, prefetch=params.get("prefetch_factor", 2), **kwargs)


def test_the_way_down_starts_at_the_fewest_workers_that_may_deliver_the_best_rate() -> None:
    # Storage that serves 6 requests at once behind a first guess of 256 workers: each worker
    # delivers at least the script's own 115 samples/s, so 7 may deliver 740; not 128.
    wide = SearchSpace(max_workers=512)
    study = _study()
    _add(study, 0, 115.0, role="baseline", space=wide)
    _add(study, 256, 740.0, wait=0.9, cpu=0.01, space=wide)
    _add(study, 512, 700.0, wait=0.9, cpu=0.01, space=wide)  # more added nothing
    _add(study, 256, 720.0, prefetch=8, wait=0.9, cpu=0.01, space=wide)
    assert climb(study, wide, lambda _: None)
    assert _queued(study) == [7]
    _run_queued(study, 730.0)  # it does, so far below 256 that a peak may lie between
    assert climb(study, wide, lambda _: None)
    assert _queued(study) == [42]
    _run_queued(study, 735.0)  # none does: halving goes on from 7
    assert climb(study, wide, lambda _: None)
    assert _queued(study) == [3]
    _run_queued(study, 340.0)  # 3 and 7 bracket the knee
    assert climb(study, wide, lambda _: None)
    assert _queued(study) == [5]


def test_the_search_around_the_best_is_done_once_each_neighbour_is_measured() -> None:
    study = _study()
    _add(study, 0, 100.0, role="baseline")
    assert not searched_around_best(study, SPACE)  # the script as written leads: no line
    _add(study, 16, 400.0, wait=0.6, cpu=0.05)
    assert not searched_around_best(study, SPACE)  # 32 and prefetch 8 are untried
    assert climb(study, SPACE, lambda _: None)
    assert not searched_around_best(study, SPACE)  # 32 is queued, not measured
    _run_queued(study, 300.0)
    assert climb(study, SPACE, lambda _: None)
    _run_queued(study, 380.0)
    assert not searched_around_best(study, SPACE)  # the knee: is 4 as fast as 16?
    assert climb(study, SPACE, lambda _: None)
    # 4: each worker at least as fast as the script's main process (100) may deliver 400.
    assert _queued(study) == [4]
    _run_queued(study, 250.0)  # no: 4 and 16 bracket the knee
    assert climb(study, SPACE, lambda _: None)
    assert _queued(study) == [8]  # their geometric midpoint
    _run_queued(study, 300.0)  # clearly below 16's 400: 8 and 16 bracket it, twice apart
    assert not searched_around_best(study, SPACE)
    assert climb(study, SPACE, lambda _: None)
    assert _queued(study) == [11]
    _run_queued(study, 380.0)  # 8 and 11: within half again, closed
    assert searched_around_best(study, SPACE)
    study.enqueue_trial({"num_workers": 20})  # a back-off's retry still waits to run
    assert not searched_around_best(study, SPACE)
    _run_queued(study, 350.0)
    assert searched_around_best(study, SPACE)
    # A new best has neighbours of its own.
    _add(study, 24, 600.0, wait=0.6, cpu=0.05)
    assert not searched_around_best(study, SPACE)


def test_workers_that_never_idle_are_not_given_a_deeper_queue() -> None:
    # The script as written loads a 32-sample batch in 0.1 s: 8 workers can deliver 2,560/s.
    study = _study()
    baseline = ProbeResult(
        status="ok",
        samples_per_s=300.0,
        windows=[300.0] * 3,
        data_wait_fraction=0.95,
        wait_per_batch_s=0.1,
        compute_per_batch_s=0.005,
        batch_size=32,
    )
    study.add_trial(frozen_from_result(baseline, "baseline", {}, {}))
    state.cap_workers(study, 8)  # 9 crashed: no step up either
    _add(study, 8, 2450.0, wait=0.7, cpu=0.02, batch=32)  # 96 % of what 8 workers can
    _add(study, 6, 1800.0, wait=0.7, cpu=0.02, batch=32)  # the knee's step down, measured
    assert not climb(study, SPACE, lambda _: None)
    assert searched_around_best(study, SPACE)
    idle = _study()
    idle.add_trial(frozen_from_result(baseline, "baseline", {}, {}))
    state.cap_workers(idle, 8)
    _add(idle, 8, 1200.0, wait=0.7, cpu=0.02, batch=32)  # half its capacity: workers idle
    assert climb(idle, SPACE, lambda _: None)
    assert _queued_configs(idle) == [(8, 8)]


def test_a_probe_that_measured_then_ran_out_of_time_caps_nothing() -> None:
    study, notes = _study(), []
    _add(study, 1, 200.0)
    slow = LoaderConfig(num_workers=2, prefetch_factor=2, persistent_workers=False)
    late = ProbeResult(status="hung", windows=[250.0, 320.0, 300.0, 280.0])
    back_off(study, 2, slow, late, SPACE, notes.append)
    assert state.load(study).worker_cap is None and not notes and not _queued(study)
    # A probe killed before it measured anything is still a count that fails.
    back_off(study, 3, slow, ProbeResult(status="hung", windows=[]), SPACE, notes.append)
    assert state.load(study).worker_cap == 1


def test_under_a_steady_load_the_climb_goes_up_while_the_best_is_above_every_smaller_count() -> (
    None
):
    # One worker that hardly waits for data: on a quiet machine the climb would halve first.
    quiet = _study()
    _add(quiet, 0, 100.0, role="baseline", outside=0.0)
    _add(quiet, 2, 250.0, wait=0.06, cpu=0.1, outside=0.0)
    assert climb(quiet, SPACE, lambda _: None) and _queued(quiet) == [1]
    # Beside another process on a core of 2, the same figures climb: doubled, up first.
    loaded = _study()
    _add(loaded, 0, 100.0, role="baseline", outside=1.0)
    _add(loaded, 2, 250.0, wait=0.06, cpu=0.1, outside=1.0)
    assert climb(loaded, SPACE, lambda _: None) and _queued(loaded) == [4]
    # A best within the load's noise of a smaller count: no evidence there that the climb is
    # over, so it doubles (8), where a quiet machine's rule would take half again as many.
    flat = _study()
    _add(flat, 0, 100.0, role="baseline", outside=1.0)
    _add(flat, 2, 250.0, wait=0.06, cpu=0.1, outside=1.0)
    _add(flat, 4, 252.0, wait=0.06, cpu=0.1, outside=1.0)
    assert climb(flat, SPACE, lambda _: None) and _queued(flat) == [8]
    # Both doublings above it measured, both below it: the climb is over.
    done = _study()
    for workers, rate in ((0, 100.0), (1, 150.0), (2, 250.0), (4, 252.0), (8, 200.0), (16, 190.0)):
        role = "baseline" if workers == 0 else "seeded"
        _add(done, workers, rate, role=role, wait=0.06, cpu=0.1, outside=1.0)
    assert searched_around_best(done, SPACE)


def test_under_a_steady_load_one_step_down_does_not_end_the_climb() -> None:
    # Beside one spinning core, 4 workers read 820 samples/s in one probe (243-327 in long
    # runs) and 8 read 381: the climb looks one doubling further before it stops.
    loaded = _study()
    _add(loaded, 0, 100.0, role="baseline", outside=1.0)
    _add(loaded, 4, 820.0, wait=0.3, cpu=0.1, outside=1.0)
    _add(loaded, 8, 381.0, wait=0.3, cpu=0.1, outside=1.0)
    assert not searched_around_best(loaded, SPACE)
    assert climb(loaded, SPACE, lambda _: None) and _queued(loaded) == [16]
    # On a quiet machine the same figures end the climb upward there.
    quiet = _study()
    _add(quiet, 0, 100.0, role="baseline", outside=0.0)
    _add(quiet, 4, 820.0, wait=0.3, cpu=0.1, outside=0.0)
    _add(quiet, 8, 381.0, wait=0.3, cpu=0.1, outside=0.0)
    assert climb(quiet, SPACE, lambda _: None) and _queued(quiet) == [4]  # a deeper queue


def test_beside_a_steady_load_the_climb_goes_on_from_fewer_threads_within_noise() -> None:
    # Beside a spinner, 8 workers with torch's own 2 threads read 408 samples/s in one probe
    # (185-511 in its windows), with 1 thread 397 (401 in long runs): a tie, and the climb
    # goes on with 1 thread, which leaves the spinner's core alone.
    space = SearchSpace(max_workers=32, threads=(1, None))

    def study_with(two_threads: float, windows: list[float] | None = None) -> optuna.Study:
        study = _study()
        _add(study, 0, 42.0, role="baseline", outside=1.0, space=space)
        _add(study, 8, 397.0, wait=0.3, cpu=0.1, outside=1.0, threads=1, space=space)
        _add(study, 8, two_threads, wait=0.3, cpu=0.1, outside=1.0, space=space, windows=windows)
        assert climb(study, space, lambda _: None)
        return study

    def queued(study: optuna.Study) -> list[tuple[int, int | None]]:
        waiting = study.get_trials(deepcopy=False, states=(TrialState.WAITING,))
        return [(queued_params(t)["num_workers"], queued_params(t)["threads"]) for t in waiting]

    assert queued(study_with(408.0)) == [(16, 1)]
    # Higher by far, but only in a probe whose windows spread as wide: no evidence.
    assert queued(study_with(450.0, [185.0, 511.0, 450.0, 300.0, 480.0])) == [(16, 1)]
    # Clearly faster with torch's own threads: the climb goes on from those.
    assert queued(study_with(500.0)) == [(16, None)]


def test_the_note_names_a_cheaper_stand_in_as_such_not_as_the_best() -> None:
    study, notes = _study(), []
    _add(study, 0, 100.0, role="baseline")
    _add(study, 16, 400.0, wait=0.6, cpu=0.05)
    _add(study, 8, 396.0, wait=0.6, cpu=0.05)  # reaches 16 within noise: the climb's stand-in
    assert climb(study, SPACE, notes.append)
    assert notes == ["  #2 (8 workers) reaches the fastest, #1: trying 4"], notes


def test_a_cheaper_count_that_reaches_only_within_the_fastests_noise_probes_the_peak_between() -> (
    None
):
    # 48 workers in bursts (median 878, what they sustain about 570) and 2 steady at 582: 2
    # reaches 48 within its noise, yet far below its median, and nothing between is measured.
    wide = SearchSpace(max_workers=64)
    study, notes = _study(), []
    _add(study, 0, 250.0, role="baseline", space=wide)
    _add(study, 48, 878.0, wait=0.9, cpu=0.01, space=wide, windows=[1300.0, 878.0, 300.0])
    _add(study, 2, 582.0, wait=0.8, cpu=0.1, space=wide, windows=[580.0, 582.0, 584.0])
    assert not searched_around_best(study, wide)
    assert climb(study, wide, notes.append)
    assert _queued(study) == [10]  # the geometric midpoint of 2 and 48
    assert "(2 workers) reaches the fastest, #1: trying 10" in notes[0], notes


def test_once_the_middle_reads_alike_too_the_way_goes_down_to_the_knee() -> None:
    wide = SearchSpace(max_workers=64)
    study = _study()
    _add(study, 0, 250.0, role="baseline", space=wide)
    _add(study, 48, 880.0, wait=0.9, cpu=0.01, space=wide, windows=[900.0, 880.0, 860.0])
    _add(study, 8, 875.0, wait=0.8, cpu=0.05, space=wide, windows=[870.0, 875.0, 880.0])
    assert climb(study, wide, lambda _: None)
    assert _queued(study) == [20]
    _run_queued(study, 878.0)  # a plateau: the rate is flat from 8 to 48
    assert climb(study, wide, lambda _: None)
    assert _queued(study) == [4]


def test_a_climb_the_range_cuts_shorter_than_a_probe_resolves_is_not_tried() -> None:
    # 30 latency-bound workers in a range of 32: two more could add 7% at most, within noise.
    study = _study()
    _add(study, 0, 100.0, role="baseline")
    _add(study, 30, 2400.0, wait=0.6, cpu=0.05)
    while climb(study, SPACE, lambda _: None):
        pass
    assert 32 not in _queued(study), _queued(study)
    assert (30, 8) in _queued_configs(study)
