"""The other loaders' stage, against the fake runner: their worker count climbs while their
passes get faster, beside the search's first trial with workers (or the pick), and the search
goes on with them so; the answer, the snippet and the epoch carry it; a study without such a
loader, or whose probes see no epoch, keeps the script's."""

from __future__ import annotations

from dataclasses import replace

from autotune import state
from autotune.contract import EpochFigures, LoaderPass, ProbeResult, TrialConfig
from autotune.tuner import summarize
from autotune.tuner.loop._others import tune_others
from tests.tuner.fake_runner import FakeRunner
from tests.tuner.loop.test_tuner import TARGET, make

# Each eval worker takes a batch in 0.1 s; 8 batches; the training pass takes 0.5 s.
EVAL_BATCH_S = 0.1


def _val_pass(workers: int, iterable: bool = False, batches: int = 8) -> LoaderPass:
    seconds = 8 * EVAL_BATCH_S / max(1, min(workers, 4))  # gains stop past 4 workers
    return LoaderPass(
        "DataLoader", "Val", 8, workers, seconds, batches, 0.01, "fit.py:30", iterable
    )


def _with_epoch(  # type: ignore[no-untyped-def]
    iterable: bool = False, seen: bool = True, duplicated: bool = False
):
    # ``duplicated``: a stream each worker runs whole: a pass's batches once per worker.
    def after(config: TrialConfig, result: ProbeResult) -> ProbeResult:
        if config.mode not in ("baseline", "measure"):
            return result
        workers = config.others.num_workers or 0 if config.others else 0
        batches = 8 * max(1, workers) if duplicated else 8
        val = _val_pass(workers, iterable, batches)
        figures = (
            EpochFigures(epoch_s=0.5 + val.seconds, train_s=0.5, startup_s=0.0, passes=[val])
            if seen or config.mode == "baseline"
            else EpochFigures(reason="the probe was too short to see an epoch end")
        )
        return replace(result, epoch=figures)

    return after


def test_the_eval_loaders_workers_climb_while_their_passes_get_faster() -> None:
    runner = FakeRunner(load_s=0.1, compute_s=0.01, after=_with_epoch())
    tuner = make(runner, trials=4, patience=10)
    tuner.run()
    others = state.load(tuner.study).others
    assert others is not None and others.config is not None
    # 0 (as written), 2, 4, 8: 8 is no faster than 4 beyond the gain asked, so 4 stands.
    assert [t.num_workers for t in others.tried] == [0, 2, 4, 8]
    assert others.config.num_workers == 4 and others.config.persistent_workers is True
    assert others.as_written_s == 0.8 and others.tuned_s == 0.2
    calls = [
        (c.loader.num_workers, c.others.num_workers if c.others else None) for c in runner.calls
    ]
    # The baseline and the seed (13 workers) with the other loaders as written; right after
    # the seed, the stage beside it (2, 4 and 8 workers for them); every later trial of the
    # search with the 4 found.
    assert calls[:5] == [(None, None), (13, None), (13, 2), (13, 4), (13, 8)], calls
    assert calls[5:] and all(others_at == 4 for _, others_at in calls[5:]), calls
    answer = summarize(tuner.study, "sqlite://")
    assert answer.recommended is not None and answer.epoch is not None
    assert answer.others == others
    # The recommended epoch: the seed's (its passes as written) with the stage's saving taken
    # off once, as a probe that ran them tuned reads it (0.5 s of training, 0.2 s of passes).
    assert answer.epoch.recommended_s == 0.5 + 0.2
    snippet = answer.snippet()
    assert "and for Val at fit.py:30" in snippet and "num_workers=4" in snippet.split("\n")[-1]
    assert "not tuned" not in snippet


def test_a_validation_pass_inside_the_training_pass_is_tuned_after_the_pick_only() -> None:
    # Mid-epoch validation (val_check_interval below 1) runs inside the windows: tuned for the
    # later trials alone, it would make them faster than the seed by what it saves. So the
    # search runs it as written, and the stage comes after the pick, as before.
    inside = _with_epoch()

    def after(config: TrialConfig, result: ProbeResult) -> ProbeResult:
        result = inside(config, result)
        if result.epoch is None:
            return result
        passes = [replace(p, in_training=True) for p in result.epoch.passes]
        return replace(result, epoch=replace(result.epoch, passes=passes))

    runner = FakeRunner(load_s=0.1, compute_s=0.01, after=after)
    tuner = make(runner, trials=4, patience=10)
    tuner.run()
    trials = len(tuner.study.trials)
    assert all(c.others is None for c in runner.calls[:trials])  # the search as written
    others = state.load(tuner.study).others
    assert others is not None and others.config is not None  # tuned once the pick was


def test_an_iterable_eval_loader_whose_workers_split_its_stream_is_tuned_in_probes() -> None:
    runner = FakeRunner(load_s=0.1, compute_s=0.01, after=_with_epoch(iterable=True))
    tuner = make(runner, trials=4, patience=10)
    tuner.run()
    others = state.load(tuner.study).others
    assert others is not None and others.config is not None and others.iterable
    assert others.config.num_workers == 4
    # Its probes asked for the stream to be changed too; the search's own probes never did.
    assert all(c.others_iterable == (c.others is not None) for c in runner.calls)


def test_an_iterable_eval_loader_whose_batches_multiply_with_workers_stays_as_written() -> None:
    runner = FakeRunner(
        load_s=0.1, compute_s=0.01, after=_with_epoch(iterable=True, duplicated=True)
    )
    tuner = make(runner, trials=4, patience=10)
    tuner.run()
    others = state.load(tuner.study).others
    assert others is not None and others.config is None and not others.iterable
    assert others.reason is not None and "do not split it" in others.reason
    assert others.tried[-1].num_workers == 2  # the first count tried ended the climb


def test_probes_that_see_no_epoch_leave_the_eval_loaders_as_written() -> None:
    runner = FakeRunner(load_s=0.1, compute_s=0.01, after=_with_epoch(seen=False))
    tuner = make(runner, trials=4, patience=10)
    tuner.run()
    others = state.load(tuner.study).others
    assert others is not None and others.config is None
    assert others.reason is not None and "saw an epoch whole" in others.reason
    assert "keep their settings" in summarize(tuner.study, "sqlite://").snippet()


def test_a_study_without_other_loaders_runs_no_stage() -> None:
    runner = FakeRunner(load_s=0.1, compute_s=0.01)
    tuner = make(runner, trials=4, patience=10)
    tuner.run()
    assert state.load(tuner.study).others is None
    assert all(c.others is None for c in runner.calls)


def _failing_from(workers: int):  # type: ignore[no-untyped-def]
    timed = _with_epoch()

    def after(config: TrialConfig, result: ProbeResult) -> ProbeResult:
        if config.others is not None and (config.others.num_workers or 0) >= workers:
            return replace(result, status="crashed", reason="worker died", windows=[])
        return timed(config, result)

    return after


def test_a_count_that_fails_a_probe_ends_the_climb_below_it() -> None:
    runner = FakeRunner(load_s=0.1, compute_s=0.01, after=_failing_from(4))
    tuner = make(runner, trials=4, patience=10)
    tuner.run()
    others = state.load(tuner.study).others
    assert others is not None and others.config is not None
    assert others.config.num_workers == 2
    assert [t.num_workers for t in others.tried] == [0, 2, 4]
    # The script's own failures list stays the search's: this probe's settings were ours.
    assert summarize(tuner.study, "sqlite://").failures == []


def test_a_first_count_that_fails_says_so_and_keeps_the_scripts_settings() -> None:
    runner = FakeRunner(load_s=0.1, compute_s=0.01, after=_failing_from(2))
    tuner = make(runner, trials=4, patience=10)
    tuner.run()
    others = state.load(tuner.study).others
    assert others is not None and others.config is None
    assert others.reason == "2 workers for them failed a probe (crashed)"


def test_no_stage_probe_starts_once_the_searchs_time_is_spent() -> None:
    runner = FakeRunner(load_s=0.1, compute_s=0.01, after=_with_epoch())
    tuner = make(runner, trials=4, patience=10, other_loaders=False)
    tuner.run()
    calls = len(runner.calls)
    others = tune_others(
        tuner.study,
        lambda c, others: runner.run(TARGET, TrialConfig(loader=c, others=others), timeout_s=60),
        lambda line: None,
        time_left=lambda: False,
    )
    assert others is not None and others.config is None
    assert others.reason == "the search's time ran out before them"
    assert len(runner.calls) == calls


def _stage_calls(after):  # type: ignore[no-untyped-def]
    """The probes the stage itself starts after a search of ``after``'s epochs: what each
    asked for the other loaders."""
    runner = FakeRunner(load_s=0.1, compute_s=0.01, after=after)
    tuner = make(runner, trials=4, patience=10, other_loaders=False)
    tuner.run()
    asked: list[TrialConfig] = []

    def probe(config, *, others, others_iterable=False):  # type: ignore[no-untyped-def]
        asked.append(TrialConfig(loader=config, others=others))
        return runner.run(TARGET, asked[-1], timeout_s=60)

    found = tune_others(tuner.study, probe, lambda line: None)
    assert found is not None
    return [c.others for c in asked]


def test_the_picks_own_probe_is_the_reference_where_it_saw_the_passes() -> None:
    # Its passes timed beside the pick, as written: the stage starts at 2 workers at once.
    assert [o.num_workers if o else None for o in _stage_calls(_with_epoch())] == [2, 4, 8]
    # Probes that saw no epoch: the pick's passes are measured first, as written.
    assert _stage_calls(_with_epoch(seen=False)) == [None]


def test_a_script_that_ends_before_the_windows_still_gets_its_eval_loaders_tuned() -> None:
    # A short script: every probe after the baseline ends with the script, its epochs whole.
    timed = _with_epoch()

    def short(config: TrialConfig, result: ProbeResult) -> ProbeResult:
        result = timed(config, result)
        return result if config.mode == "baseline" else replace(result, status="ended_early")

    runner = FakeRunner(load_s=0.1, compute_s=0.01, after=short)
    tuner = make(runner, trials=4, patience=10)
    tuner.run()
    others = state.load(tuner.study).others
    assert others is not None and others.config is not None, others
    assert others.config.num_workers == 4
