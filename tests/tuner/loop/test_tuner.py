"""Tuner logic against a fake runner that obeys the real runner's interface."""

from __future__ import annotations

from dataclasses import replace

import optuna
import pytest
from optuna.trial import TrialState

from autotune import state
from autotune.contract import EpochFigures, LoaderConfig, MeasuredLoader, ProbeResult, TrialConfig
from autotune.runner import BaseRunner, Target, WindowCallback
from autotune.tuner import StudyKey, Tuner, TunerOptions, open_study, summarize
from autotune.tuner.loop._live_search import in_run
from tests.tuner.fake_runner import FakeRunner

HW = {"id": "test-hw", "cpu_count": 2}
TARGET = Target("train.py")


def make(
    runner: BaseRunner,
    url: str = "sqlite:///:memory:",
    cpu_count: int = 2,
    cuda: bool = False,
    **options: object,
) -> Tuner:
    storage = optuna.storages.RDBStorage(url)
    study = open_study(storage, "s", StudyKey("train.py", (), HW), seed=1)
    return Tuner(
        study,
        TARGET,
        runner,
        TunerOptions(**options),  # type: ignore[arg-type]
        cpu_count=cpu_count,
        cuda=cuda,
    )


def test_baseline_is_trial_zero_and_the_script_as_written() -> None:
    runner = FakeRunner(load_s=0.1, compute_s=0.01)
    tuner = make(runner, trials=4, patience=10)
    tuner.run()
    first = tuner.study.trials[0]
    assert state.role(first) == "baseline"
    assert runner.calls[0].loader == LoaderConfig()
    assert first.params["num_workers"] == 0


def test_seeding_predicts_workers_that_hide_loading() -> None:
    # Loading 0.1 s per batch per worker, 0.01 s step: about 10 workers (x1.25 margin).
    runner = FakeRunner(load_s=0.1, compute_s=0.01)
    tuner = make(runner, trials=3, patience=10)
    tuner.run()
    seeded = [t for t in tuner.study.trials if state.role(t) == "seeded"]
    assert seeded and seeded[0].params["num_workers"] == 13
    assert state.load(tuner.study).predicted_workers == 13


def test_cpu_bound_prediction_is_capped_by_cores() -> None:
    runner = FakeRunner(load_s=0.1, compute_s=0.01, cpu_bound=True, cores=2)
    tuner = make(runner, trials=3, patience=10)
    tuner.run()
    known = state.load(tuner.study)
    assert known.predicted_workers == 2
    assert known.diagnosis is not None and known.diagnosis.bottleneck == "input-cpu"


def test_io_bound_search_finds_many_workers_and_a_big_speedup() -> None:
    runner = FakeRunner(load_s=0.2, compute_s=0.005)
    tuner = make(runner, trials=12)
    outcome = tuner.run()
    summary = summarize(tuner.study, "mem").to_dict()
    assert summary["recommended"]["config"]["num_workers"] >= 20
    assert summary["speedup"] > 5
    assert summary["diagnosis"]["bottleneck"] in ("input-latency", "model")
    assert outcome.stop_reason


def test_a_model_bound_script_loading_in_its_main_process_is_answered_from_its_baseline() -> None:
    # 1 % of the step waits for data: hiding it gains 1 %, which no pick can resolve.
    runner = FakeRunner(load_s=0.0005, compute_s=0.05)
    tuner = make(runner, trials=12)
    outcome = tuner.run()
    summary = summarize(tuner.study, "mem").to_dict()
    assert "waits for data 1% of its time" in outcome.stop_reason, outcome.stop_reason
    assert len(runner.calls) == 1 and summary["trials"]["complete"] == 1
    assert summary["speedup"] == 1.0 and summary["recommended"]["trial"] == 0
    assert summary["diagnosis"]["bottleneck"] == "model"


def test_model_bound_stops_near_the_ceiling_without_pretending() -> None:
    # Workers of its own as written: fewer could give the step its cores back, so the
    # search measures on, and the ceiling ends it.
    script = LoaderConfig(num_workers=2, prefetch_factor=2, persistent_workers=False)
    runner = FakeRunner(load_s=0.0005, compute_s=0.05, script=script)
    tuner = make(runner, trials=12)
    outcome = tuner.run()
    summary = summarize(tuner.study, "mem").to_dict()
    assert summary["speedup"] < 1.1
    assert "ceiling" in outcome.stop_reason
    assert summary["diagnosis"]["bottleneck"] == "model"
    assert summary["trials"]["complete"] <= 3


def test_failed_trials_are_recorded_never_recommended_and_do_not_stop_the_search() -> None:
    runner = FakeRunner(
        load_s=0.2,
        compute_s=0.005,
        fail=lambda c: "worker crashed" if (c.num_workers or 0) > 20 else None,
    )
    tuner = make(runner, trials=10, patience=20)
    tuner.run()
    summary = summarize(tuner.study, "mem").to_dict()
    failed = [t for t in tuner.study.trials if t.state == TrialState.FAIL]
    assert failed, "the fake should have produced failures"
    assert all(state.record_of(t).reason == "worker crashed" for t in failed)
    assert summary["recommended"]["config"]["num_workers"] <= 20
    assert summary["trials"]["failed"] == len(failed)
    assert summary["failures"][0]["reason"] == "worker crashed"


def test_patience_stops_a_flat_search() -> None:
    runner = FakeRunner(load_s=0.03, compute_s=0.01)  # 3 workers already hide loading
    tuner = make(runner, trials=30, patience=3, ceiling=False)
    outcome = tuner.run()
    # Patience, or sooner: every neighbour of the best measured without a gain.
    assert "brought no gain beyond noise" in outcome.stop_reason or (
        "none brought a gain beyond noise" in outcome.stop_reason
    )
    probed = [t for t in tuner.study.trials if state.record_of(t).duplicate_of is None]
    assert len(probed) < 30


def test_a_tie_far_above_the_baseline_goes_to_the_cheaper_without_probes() -> None:
    runner = FakeRunner(load_s=0.1, compute_s=0.01)  # any >= 10 workers ties
    # No ceiling: the search goes on past the first hit, so tied configs are measured. Four
    # trials: the seed (13), half (6, clearly slower) and the step up (20, tied); the knee's
    # midpoint after them (9 workers, 90 % of the rest by the model) would sit at the edge of
    # NEAR, where a re-measure is the right call and the tie is no longer the case tested.
    tuner = make(runner, trials=4, patience=20, ceiling=False)
    tuner.run()
    confirmation = state.load(tuner.study).confirmation
    assert confirmation is not None
    assert confirmation.skipped, confirmation.why
    assert confirmation.why is not None and "no re-measure" in confirmation.why
    assert confirmation.probe_seconds == 0.0
    candidates = confirmation.candidates
    assert len(candidates) >= 2
    assert all(c.runs == 1 for c in candidates)
    assert confirmation.ci95 is not None and confirmation.median is not None
    lo, hi = confirmation.ci95
    assert lo <= confirmation.median <= hi
    assert confirmation.baseline_median is not None
    medians = [c.median for c in candidates if c.median is not None]
    assert len(medians) == len(candidates)
    tied = [c for c in candidates if c.median is not None and c.median >= max(medians) * 0.97]
    winner = next(c for c in candidates if c.trial == confirmation.winner)
    assert winner.config["num_workers"] == min(c.config["num_workers"] for c in tied)


def test_confirmation_is_skipped_when_one_config_wins_by_far() -> None:
    # Loading binds two cores: 2 workers are the knee, 1 runs at half their rate.
    runner = FakeRunner(load_s=0.1, compute_s=0.01, cpu_bound=True, cores=2)
    tuner = make(runner, trials=8, patience=20)
    tuner.run()
    confirmation = state.load(tuner.study).confirmation
    assert confirmation is not None
    probes = len(runner.calls)
    assert confirmation.skipped, confirmation.why
    # The interval says how it was computed: one probe's windows, not a re-measure.
    assert confirmation.interval is not None
    assert "windows of one probe" in confirmation.interval
    assert confirmation.ci95 is not None and confirmation.median is not None
    lo, hi = confirmation.ci95
    assert lo <= confirmation.median <= hi
    # One probe per trial (the ceilings ride on the baseline's), and one more of the script
    # as written alone: its loading ran torch's threads over both cores, so its baseline is
    # one draw of its rate (evidence/_draws.py). No leader was probed again.
    assert probes == len(tuner.study.trials) + 1
    assert runner.calls[-1].loader == LoaderConfig()  # the script as written, exactly
    assert confirmation.draws is not None and "in 2 processes" in confirmation.draws
    assert confirmation.probe_seconds > 0.0


class Interrupting(FakeRunner):
    def run(
        self,
        target: Target,
        config: TrialConfig,
        *,
        timeout_s: float,
        on_window: WindowCallback | None = None,
    ) -> ProbeResult:
        if len(self.calls) == 2:
            self.calls.append(config)
            raise KeyboardInterrupt
        return super().run(target, config, timeout_s=timeout_s, on_window=on_window)


def test_ctrl_c_keeps_finished_trials_and_marks_the_running_one() -> None:
    tuner = make(Interrupting(load_s=0.1, compute_s=0.01), trials=10, patience=20, ceiling=False)
    outcome = tuner.run()
    assert outcome.interrupted
    states = [t.state for t in tuner.study.trials]
    assert states.count(TrialState.COMPLETE) >= 2
    assert state.record_of(tuner.study.trials[-1]).status == "interrupted"
    assert summarize(tuner.study, "mem").to_dict()["recommended"] is not None


def test_rerun_continues_the_same_study(tmp_path) -> None:  # type: ignore[no-untyped-def]
    url = f"sqlite:///{tmp_path / 'a.db'}"
    make(FakeRunner(load_s=0.1, compute_s=0.01), url, trials=3, patience=20).run()
    runner = FakeRunner(load_s=0.1, compute_s=0.01)
    again = make(runner, url, trials=5, patience=20)
    again.run()
    assert [state.role(t) for t in again.study.trials].count("baseline") == 1
    assert all(c.loader != LoaderConfig() or c.mode != "measure" for c in runner.calls[:1])


def test_pruner_stops_a_clearly_slower_trial() -> None:
    runner = FakeRunner(load_s=0.2, compute_s=0.005, noise=0.01)
    storage = optuna.storages.RDBStorage("sqlite:///:memory:")
    from autotune.tuner.policy._pruner import WindowPruner

    study = open_study(storage, "s", StudyKey("train.py", (), HW), pruner=WindowPruner(), seed=1)
    tuner = Tuner(
        study,
        TARGET,
        runner,
        TunerOptions(trials=14, patience=30, ceiling=False),
        cpu_count=2,
        cuda=False,
    )
    tuner.run()
    pruned = [
        t
        for t in study.trials
        if t.state == TrialState.PRUNED and state.record_of(t).duplicate_of is None
    ]
    assert pruned, "slow configs after a fast one should be pruned"
    best = max(t.value for t in study.trials if t.value is not None)
    assert all(max(t.intermediate_values.values()) < best for t in pruned)


def test_over_memory_is_infeasible() -> None:
    def hungry(config: TrialConfig, res: ProbeResult) -> ProbeResult:
        if (config.loader.num_workers or 0) > 8:
            res.status, res.reason = "over_memory", "host memory over budget"
        return res

    tuner = make(FakeRunner(load_s=0.2, compute_s=0.005, after=hungry), trials=10, patience=20)
    tuner.run()
    bad = [t for t in tuner.study.trials if state.record_of(t).status == "over_memory"]
    assert bad and all(t.state == TrialState.FAIL for t in bad)
    assert all(t.constraints.get("host_memory", 0) > 0 for t in bad)
    assert summarize(tuner.study, "mem").to_dict()["recommended"]["config"]["num_workers"] <= 8


def test_a_ceiling_that_a_trial_beats_is_measured_again() -> None:
    def unlucky(config: TrialConfig, res: ProbeResult) -> ProbeResult:
        # The first ceiling, measured after the baseline, lands on a busy machine: far too low.
        if config.mode == "baseline":
            res.ceiling_windows = [w / 5 for w in res.ceiling_windows]
            res.ceiling_samples_per_s = (res.ceiling_samples_per_s or 0) / 5
        return res

    runner = FakeRunner(load_s=0.2, compute_s=0.005, after=unlucky)
    tuner = make(runner, trials=8)
    outcome = tuner.run()
    ceiling = state.load(tuner.study).ceiling
    assert ceiling is not None and ceiling.remeasured is True
    assert [c.mode for c in runner.calls].count("baseline") == 1
    assert [c.mode for c in runner.calls].count("ceiling") == 1  # the re-measure
    assert ceiling.samples_per_s == pytest.approx(32 / 0.005, rel=0.1)
    summary = summarize(tuner.study, "mem").to_dict()
    assert 0.9 <= summary["efficiency"] <= 1.1
    assert outcome.stop_reason


def test_failures_above_a_worker_count_cap_the_range_and_back_off() -> None:
    # Too many open files above 8 workers: the seed (26 workers) crashes.
    runner = FakeRunner(
        load_s=0.2,
        compute_s=0.01,
        fail=lambda c: "Too many open files" if (c.num_workers or 0) > 8 else None,
    )
    tuner = make(runner, trials=12, patience=4)
    tuner.run()
    cap = state.load(tuner.study).worker_cap
    assert cap is not None and cap < 26
    summary = summarize(tuner.study, "mem").to_dict()
    assert summary["recommended"]["config"]["num_workers"] == 8
    assert summary["speedup"] > 5


def test_keeping_the_scripts_own_settings_is_a_speedup_of_exactly_one() -> None:
    # Loading is free: nothing beats the script as written, whatever the noise says.
    runner = FakeRunner(load_s=0.0, compute_s=0.05, noise=0.05)
    tuner = make(runner, trials=6)
    tuner.run()
    summary = summarize(tuner.study, "mem").to_dict()
    assert summary["recommended"]["config"] == summary["baseline"]["config"]
    assert summary["speedup"] == 1.0


def test_a_pruned_trial_keeps_the_settings_it_was_asked_to_run() -> None:
    runner = FakeRunner(load_s=0.2, compute_s=0.005, noise=0.01)
    storage = optuna.storages.RDBStorage("sqlite:///:memory:")
    study = open_study(storage, "s", StudyKey("train.py", (), HW), seed=1)
    Tuner(
        study,
        TARGET,
        runner,
        TunerOptions(trials=14, patience=30, ceiling=False),
        cpu_count=2,
        cuda=False,
    ).run()
    pruned = [t for t in study.trials if state.record_of(t).status == "pruned"]
    assert pruned
    for t in pruned:
        assert state.record_of(t).config.num_workers == t.params["num_workers"]


def test_the_script_as_written_asked_for_again_is_the_baseline_not_a_probe() -> None:
    # No input bottleneck (nothing seeded), and a wait past what a search ends at its
    # baseline for: 8 % of the step.
    runner = FakeRunner(load_s=0.004, compute_s=0.05)
    tuner = make(runner, trials=6, patience=10, ceiling=False)
    # A sampler that only ever proposes the script's own worker count (0).
    tuner.study.sampler = optuna.samplers.PartialFixedSampler(
        {"num_workers": 0}, tuner.study.sampler
    )
    outcome = tuner.run()
    asked = [t for t in tuner.study.trials if state.role(t) not in ("baseline", "seeded")]
    assert asked and all(state.record_of(t).duplicate_of == 0 for t in asked)
    assert "exhausted" in outcome.stop_reason


def test_no_seed_when_the_script_as_written_is_the_seed() -> None:
    # No input bottleneck: the seed would keep the script's 0 workers, which the baseline
    # measured already (prefetch and persistence mean nothing without workers).
    runner = FakeRunner(load_s=0.001, compute_s=0.05)
    tuner = make(runner, trials=3, patience=10, ceiling=False)
    tuner.run()
    seeded = [t for t in tuner.study.trials if state.role(t) == "seeded"]
    assert all(t.params.get("num_workers") for t in seeded)


@pytest.mark.parametrize("cpu_speedup", [2.3, 0.2])
def test_cpu_against_gpu_is_measured_early_and_the_faster_kept(cpu_speedup: float) -> None:
    # A small model on CUDA whose step is all launches: its step may run faster on the CPU
    # (a small MLP: 2.3x on an H200) or slower. A short search must find out which, with the
    # script's own loader, so the device alone decides.
    script = LoaderConfig(
        num_workers=0,
        pin_memory=False,
        persistent_workers=False,
        batch_size=32,
        num_streams=0,
        device="cuda",
    )
    runner = FakeRunner(load_s=0.002, compute_s=0.01, script=script, cpu_speedup=cpu_speedup)
    tuner = make(runner, cuda=True, trials=4, patience=10, ceiling=False)
    tuner.run()
    seeded = [c.loader for c in runner.calls[1:] if c.mode != "ceiling"][:3]
    assert [c.device for c in seeded] == ["cuda", "cuda", "cpu"]
    # Nothing beside the device differs from the script as written.
    applied = seeded[2].merged_over(script).under_torch_rules()
    assert applied == replace(script, device="cpu").under_torch_rules()
    best = summarize(tuner.study, "mem").to_dict()["recommended"]["config"]["device"]
    assert best == ("cpu" if cpu_speedup > 1 else "cuda")


# A script whose batches reach the GPU by its own .to() from pageable memory: 201 MB batches
# take 22 ms to copy against a 4 ms step (the copy-bound example on an H200, roughly).
COPY_BOUND_SCRIPT = LoaderConfig(
    num_workers=0,
    pin_memory=False,
    persistent_workers=False,
    batch_size=256,
    num_streams=0,
    device="cuda",
)


def copy_bound_runner(load_s: float) -> FakeRunner:
    return FakeRunner(
        load_s=load_s,
        compute_s=0.004,
        copy_s=0.022,
        batch=256,
        script=COPY_BOUND_SCRIPT,
        cpu_speedup=0.1,
    )


def test_on_a_gpu_the_copy_is_seeded_apart_from_the_workers() -> None:
    # Loading waits, so workers are seeded; the batches' copy to the GPU is a question of
    # its own, asked with the script's own loader: a worker count that loses (large batches
    # through worker processes) must not hide what pinning and a copy stream gain.
    runner = copy_bound_runner(load_s=0.01)
    tuner = make(runner, cuda=True, trials=5, patience=10, ceiling=False)
    tuner.run()
    seeded = [c.loader for c in runner.calls[1:] if c.mode != "ceiling"][:2]
    assert (seeded[0].num_workers or 0) > 0 and seeded[0].num_streams == 1
    assert seeded[1] == LoaderConfig(num_workers=0, device="cuda", pin_memory=True, num_streams=1)


@pytest.mark.parametrize("tune_batch_size", [False, True])
def test_a_copy_bound_step_at_the_compute_ceiling_still_gets_its_copy_streams(
    tune_batch_size: bool,
) -> None:
    # Batches already in memory, copied to the GPU with .to() in the step: the script as
    # written runs at the compute ceiling (which replays its step, copy included), yet copy
    # streams from pinned memory take the copy out of the step. The ceiling must not end the
    # search before they are measured, nor stand against them once they are.
    script = COPY_BOUND_SCRIPT
    runner = copy_bound_runner(load_s=0.0001)
    tuner = make(runner, cuda=True, trials=8, patience=3, tune_batch_size=tune_batch_size)
    outcome = tuner.run()
    modes = [c.mode for c in runner.calls]
    assert modes[0] == "baseline" and "ceiling" not in modes  # never re-measured either
    assert "ceiling" not in outcome.stop_reason, outcome.stop_reason
    best = summarize(tuner.study, "mem").to_dict()["recommended"]
    assert best["config"]["num_streams"] >= 1 and best["config"]["pin_memory"], best
    assert best["samples_per_s"] > 4 * runner.rate(script)
    assert summarize(tuner.study, "mem").to_dict()["binding_ceiling"] is None


@pytest.mark.parametrize("slowdown", [2.0, 0.5])
def test_beside_a_steady_load_torch_threads_on_the_free_cores_are_measured_early(
    slowdown: float,
) -> None:
    # Another process holds one core of two for the whole search. A step whose threads meet
    # at barriers runs at the pace of the thread sharing a core with it (``slowdown`` 2), or
    # gains from the second thread all the same (0.5). The loader with one thread is measured
    # first, then with torch's own count, and the faster is kept.
    runner = FakeRunner(
        load_s=0.03, compute_s=0.01, thread_slowdown=slowdown, load=lambda c: (1.0, 1.0)
    )
    tuner = make(runner, trials=4, patience=10, ceiling=False)
    tuner.run()
    first, second = runner.calls[1].loader, runner.calls[2].loader
    assert (first.threads, second.threads) == (1, None)
    assert replace(first, threads=None) == second  # only the threads differ
    best = summarize(tuner.study, "mem").to_dict()["recommended"]["config"]
    assert (best["threads"] == 1) is (slowdown > 1)


@pytest.mark.parametrize("loaded", [False, True])
def test_torch_threads_are_left_as_written_quiet_or_in_a_live_run(loaded: bool) -> None:
    # On a quiet machine the threads have every core; a live run (``in_run``) cannot start
    # its process anew for a trial, so it never asks for what only a fresh one reads.
    runner = FakeRunner(
        load_s=0.03,
        compute_s=0.01,
        thread_slowdown=2.0,
        load=(lambda c: (1.0, 1.0)) if loaded else (lambda c: (1.0, None)),
    )
    options = in_run(TunerOptions(trials=4, patience=10)) if loaded else None
    tuner = (
        make(runner, **vars(options))
        if options
        else make(runner, trials=4, patience=10, ceiling=False)
    )
    tuner.run()
    assert len(runner.calls) >= 3
    assert all(c.loader.threads is None for c in runner.calls)


def test_a_stored_answer_is_tried_first_instead_of_the_guess() -> None:
    runner = FakeRunner(load_s=0.1, compute_s=0.01)
    stored = LoaderConfig(num_workers=5, prefetch_factor=4, persistent_workers=True)
    tuner = make(runner, trials=2, patience=10, seed=stored, ceiling=False)
    tuner.run()
    tried = runner.calls[1].loader
    assert (tried.num_workers, tried.prefetch_factor, tried.persistent_workers) == (5, 4, True)
    assert state.role(tuner.study.trials[1]) == "seeded"
    known = state.load(tuner.study)
    assert known.seed is None and known.predicted_workers is None  # no guess was made


def test_an_outside_reason_and_a_role_for_every_searched_trial() -> None:
    runner = FakeRunner(load_s=0.1, compute_s=0.01)
    storage = optuna.storages.RDBStorage("sqlite:///:memory:")
    study = open_study(storage, "s", StudyKey("train.py", (), HW), seed=1)
    asked: list[int] = []

    def stop_when() -> str | None:
        asked.append(len(study.trials))
        return "the run ended" if len(study.trials) >= 3 else None

    tuner = Tuner(
        study,
        TARGET,
        runner,
        TunerOptions(trials=10, patience=10, ceiling=False, confirm_top=0),
        cpu_count=2,
        cuda=False,
        stop_when=stop_when,
        role="adapt",
    )
    outcome = tuner.run()
    assert outcome.stop_reason == "the run ended"
    assert [state.role(t) for t in study.trials] == ["baseline", "adapt", "adapt"]
    assert len(runner.calls) == 3  # no confirmation round with confirm_top=0


@pytest.mark.parametrize("seed_workers", [None, 64])
def test_a_rate_that_stops_growing_is_recommended_near_its_knee(seed_workers: int | None) -> None:
    # Each worker delivers a batch per 0.1 s, the step takes 0.01 s: the rate stops growing
    # at 10 workers. A first guess far past that (a stored answer of 64) steps back down.
    runner = FakeRunner(load_s=0.1, compute_s=0.01)
    seed = None if seed_workers is None else LoaderConfig(num_workers=seed_workers)
    tuner = make(runner, trials=20, seed=seed)
    tuner.run()
    answer = summarize(tuner.study, "mem")
    assert answer.recommended is not None
    workers = answer.recommended.config.num_workers
    assert 9 <= workers <= 15, [c.loader.num_workers for c in runner.calls]
    tried = [c.loader.num_workers or 0 for c in runner.calls]
    assert any(0 < n < workers for n in tried)  # the cheaper side was measured
    if max(tried) > workers:
        assert answer.choice is not None
        assert "reaches" in answer.choice or f"the knee: {workers} workers" in answer.choice


def test_a_model_bound_script_keeps_its_own_settings_when_nothing_is_clearly_faster() -> None:
    # Loading costs 1% of the step: a worker can gain at most that, inside the noise.
    runner = FakeRunner(load_s=0.0005, compute_s=0.05, noise=0.03)
    tuner = make(runner, trials=8, ceiling=False)
    tuner.run()
    answer = summarize(tuner.study, "mem")
    assert answer.recommended is not None and answer.baseline is not None
    assert answer.recommended.trial == answer.baseline.trial
    assert answer.speedup == 1.0


def test_an_epoch_of_many_batches_never_widens_the_model_bound_worker_range() -> None:
    # The epoch's batch count bounds workers from above (one batch each); it must never
    # replace the diagnosis' own bound: on 2 cores a model-bound script was once probed
    # with 1,992 workers because an epoch had 32,768 batches.
    def epoch(config: TrialConfig, res: ProbeResult) -> ProbeResult:
        res.epoch = EpochFigures(epoch_s=60.0, train_s=60.0, epoch_batches=32768)
        res.measured_loader = MeasuredLoader(loader="DataLoader", iterable=False)
        return res

    runner = FakeRunner(load_s=0.0005, compute_s=0.05, noise=0.03, after=epoch)
    tuner = make(runner, trials=8, ceiling=False)
    tuner.run()
    assert max(c.loader.num_workers or 0 for c in runner.calls) <= 2 * 2


def test_threads_chosen_beside_a_load_that_then_went_are_not_the_answer() -> None:
    # A model-bound step that gains from both threads (0.6 of the time with two): its
    # baseline measured while another process held a core, twice as slow; every later trial
    # on the quiet machine, where one thread is the slower. The one-thread seed beats the
    # disturbed baseline; compared like with like it does not, and the script stays.
    seen: list[TrialConfig] = []

    def load(config: TrialConfig) -> tuple[float, float | None]:
        seen.append(config)
        return (2.0, 1.0) if len(seen) == 1 else (1.0, 0.0)

    runner = FakeRunner(load_s=0.0005, compute_s=0.05, thread_slowdown=0.6, load=load)
    tuner = make(runner, trials=4, patience=10, ceiling=False)
    tuner.run()
    assert runner.calls[1].loader.threads == 1  # the load made threads worth a try
    answer = summarize(tuner.study, "mem")
    assert answer.recommended is not None and answer.baseline is not None
    assert answer.recommended.config.threads is None, answer.choice
    assert answer.speedup in (None, 1.0) or answer.speedup < 1.1, answer


def test_a_model_bound_baseline_of_a_slow_minute_gets_no_speedup_from_workers() -> None:
    # Loading is 6 % of the step (past the 3 % that ends a search at its baseline); the
    # script as written was probed in a slow minute no reading shows (another guest of the
    # host: 0 cores outside), every later probe not. Workers then read 1.4x, which a 6 %
    # wait cannot give: re-measured interleaved with the script, what is left is what the
    # wait gives, 1 / (1 - 0.057) = 1.06x at most.
    seen: list[TrialConfig] = []

    def load(config: TrialConfig) -> tuple[float, float | None]:
        seen.append(config)
        return (1.4, 0.0) if len(seen) == 1 else (1.0, 0.0)

    runner = FakeRunner(load_s=0.0006, compute_s=0.01, noise=0.01, load=load)
    tuner = make(runner, trials=4, patience=10, ceiling=False)
    tuner.run()
    confirmation = state.load(tuner.study).confirmation
    assert confirmation is not None and confirmation.fresh, confirmation
    assert confirmation.why is not None and "waited for data" in confirmation.why
    answer = summarize(tuner.study, "mem")
    assert answer.recommended is not None and answer.baseline is not None
    assert answer.speedup is None or answer.speedup < 1.08, answer


def test_a_probe_that_may_lead_and_every_re_measure_measure_every_window() -> None:
    # A rate that stops growing at 4 workers: the knee is re-measured against a stand-in.
    runner = FakeRunner(load_s=0.04, compute_s=0.01, noise=0.01)
    tuner = make(runner, trials=10, patience=20, ceiling=False, min_windows=2)
    tuner.run()
    searched = [c.settings.settled_below for c in runner.calls[1 : len(tuner.study.trials)]]
    best = max(t.value or 0.0 for t in tuner.study.trials)
    # Two agreeing windows end a search probe only below the best so far by more than
    # probes drift (10 %): the bar rises with the best, never above the final one's.
    assert searched and all(b is not None for b in searched)
    bars = [b for b in searched if b is not None]
    assert bars == sorted(bars)
    assert bars[-1] <= best * 0.9 + 1e-6


def test_every_re_measure_of_confirmation_measures_every_window() -> None:
    # Loading costs 1 % of the step: the leader is within noise of the script, re-measured.
    # One worker as written, so that the search goes on past its baseline (``wait_bound``).
    script = LoaderConfig(num_workers=1, prefetch_factor=2, persistent_workers=False)
    runner = FakeRunner(load_s=0.0005, compute_s=0.05, noise=0.03, script=script)
    tuner = make(runner, trials=6, ceiling=False, min_windows=2)
    tuner.run()
    confirmation = state.load(tuner.study).confirmation
    assert confirmation is not None and not confirmation.skipped, confirmation
    remeasures = runner.calls[len(tuner.study.trials) :]
    assert remeasures and all(c.settings.min_windows == 0 for c in remeasures)


def test_a_library_s_shard_count_bounds_every_worker_count_tried() -> None:
    # Four shards (Hugging Face datasets says so from the baseline on): the rate stops at 4
    # workers whatever the latency asks (about 13), and no trial ever asks for more.
    runner = FakeRunner(load_s=0.1, compute_s=0.01, shards=4, shards_in="datasets")
    tuner = make(runner, trials=10)
    tuner.run()
    tried = [c.loader.num_workers or 0 for c in runner.calls]
    assert max(tried) <= 4, tried
    answer = summarize(tuner.study, "mem")
    assert answer.recommended is not None
    assert answer.recommended.config.num_workers == 4
    assert answer.diagnosis is not None
    assert "This dataset has 4 shards (datasets' `num_shards`)" in answer.diagnosis.summary
    assert "to_iterable_dataset(num_shards=N)" in answer.diagnosis.summary


def test_workers_a_measurement_saw_idle_bound_the_counts_tried_after_it() -> None:
    # No library says the count: the first trial past it (the seed) shows its idle workers,
    # and from then on no trial asks for more than fed it.
    runner = FakeRunner(load_s=0.1, compute_s=0.01, shards=3)
    tuner = make(runner, trials=10)
    tuner.run()
    tried = [c.loader.num_workers or 0 for c in runner.calls]
    first = next(i for i, n in enumerate(tried) if n > 3)
    assert all(n <= 3 for n in tried[first + 1 :]), tried
    answer = summarize(tuner.study, "mem")
    assert answer.recommended is not None
    assert answer.recommended.config.num_workers == 3
    assert answer.diagnosis is not None
    assert "got nothing to load from the dataset" in answer.diagnosis.summary


def test_no_more_workers_than_an_epoch_has_batches_over_a_map_style_dataset() -> None:
    # Eight batches an epoch: a ninth worker would have nothing to load, whatever the latency
    # asks for (about 13 workers).
    def epoch_of_eight(config: TrialConfig, result: ProbeResult) -> ProbeResult:
        result.measured_loader = MeasuredLoader(dataset="Slow", iterable=False)
        result.epoch = EpochFigures(epoch_batches=8)
        return result

    runner = FakeRunner(load_s=0.1, compute_s=0.01, after=epoch_of_eight)
    tuner = make(runner, trials=10)
    tuner.run()
    tried = [c.loader.num_workers or 0 for c in runner.calls]
    assert max(tried) == 8, tried
    answer = summarize(tuner.study, "mem")
    assert answer.diagnosis is not None
    assert "An epoch has 8 batches" in answer.diagnosis.summary
