"""``autotune run --adapt``: train once, tuning the loader on the real steps as it goes."""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from autotune.cli._common import err, fail, host_budget, literal, say, storage
from autotune.cli._progress import ProgressReporter, describe_config
from autotune.contract import LoaderConfig, ProbeSettings, adapt_rank_dir
from autotune.hardware import cuda_available, fingerprint, job_cores
from autotune.runner import LiveRun, Target

if TYPE_CHECKING:
    import optuna

    from autotune.tuner import LiveOthers, StudyKey


def run_adapting(
    script: Path,
    args: list[str],
    *,
    name: str | None,
    storage_opt: str | None,
    nproc_per_node: int | None,
    segments: int,
    max_workers: int | None,
    max_host_mem: float | None,
    warmup_s: float,
    window_s: float,
) -> int:
    """Train ``script`` once while the search tunes its loader; returns the run's exit code."""
    # Several ranks: torchrun's, each rank's training loader switchable; the job is one run
    # whose segments are the job's (``LiveRun``), each rank keeping its own shard and order.
    ranks = max(1, nproc_per_node or 1)
    target = Target(str(script), tuple(args), nproc_per_node=ranks)
    settings = ProbeSettings(
        warmup_s=warmup_s,
        window_s=window_s,
        min_windows=2,  # a segment ends once two windows agree, as a probe does
        max_host_mem_bytes=host_budget(max_host_mem) // ranks,  # each rank watches its tree
    )
    # The training starts first: Optuna, the store and the study are imported and opened
    # while it imports and warms up, not before it. Should they fail, the run is stopped
    # with the error. Ctrl-C is the training's, as without autotune: the search stops with
    # the segments measured so far, and the command ends when the training does, with its
    # exit status.
    with LiveRun(target, settings) as live:
        from autotune.store import safe_url, sync_study
        from autotune.tuner import (
            LiveOthers,
            StudyError,
            StudyKey,
            TunerOptions,
            adapt,
            open_study_for_rerun,
            stay_tuned,
            summarize,
        )

        store, url = storage(storage_opt)
        key = StudyKey.for_target(target, fingerprint())
        seed = _stored_answer(store, key, name)
        try:
            opened = open_study_for_rerun(
                store, name or f"{key.default_name()}-adapt", key, rerun="fresh"
            )
        except StudyError as exc:
            fail(str(exc))
        study = opened.study
        where = f"seeded from study {seed[0]!r}" if seed else "seeded from the run's own figures"
        err.print(
            say(
                "autotune: training ",
                literal(script),
                f" once, tuning its loader as it runs ({where}); segments recorded in study ",
                (study.study_name, "bold"),
                " in ",
                literal(safe_url(url)),
            ),
            soft_wrap=True,
            highlight=False,
        )
        cores = max(1, job_cores().usable // ranks)  # a rank's share, as in probes
        options = TunerOptions(trials=segments, max_workers=max_workers, settings=settings)
        # The evaluation passes are tuned on their own, beside the training loader's search
        # and after it, until the training ends.
        others = LiveOthers(
            adapt_rank_dir(live.dir, 0, live.world), live.dir, top=max_workers, note=_note
        ).start()
        with _others_stopped(others):
            with ProgressReporter(segments) as reporter, _search_failure_spares(live):
                adapted = adapt(
                    study,
                    target,
                    live,
                    options,
                    cpu_count=cores,
                    reporter=reporter,
                    after_trial=lambda s: sync_study(url, s, summarize(s, safe_url(url))),
                    seed=seed[1] if seed else None,
                    gpu=cuda_available(),
                )
                if not live.ended:
                    if adapted.outcome.interrupted:
                        # Ctrl-C stopped the search, and the training, which had it too, goes on
                        # (it caught KeyboardInterrupt): with the best settings so far.
                        live.settle(adapted.settled)
                    reporter.note(
                        f"autotune: {adapted.outcome.stop_reason}; settled on "
                        f"{describe_config(adapted.settled)} for the rest of the run"
                    )
                if not live.ended and not adapted.outcome.interrupted:
                    # Settled: the run watches its own data wait and says when it rose for good.
                    try:
                        stay_tuned(
                            study,
                            adapted.runner,
                            adapted.settled,
                            options,
                            cpu_count=cores,
                            note=reporter.note,
                            after_trial=lambda s: sync_study(url, s, summarize(s, safe_url(url))),
                        )
                    except KeyboardInterrupt:
                        # As in the first search: the search stops, the training had the Ctrl-C
                        # too and ends (or trains on, settled) as it would without autotune.
                        reporter.note("autotune: interrupted; the reopened search stopped")
            code = live.wait()
        loader, interrupted = live.loader(), live.interrupted
        found = loader is not None
        # A stream is never switched mid-run: a stored answer is applied from the start.
        stream = loader is not None and loader.switchable and not loader.mid_epoch
        _save_others(study, others, url)
    if not found:
        # After Ctrl-C the training may have ended before its loader was reported: that says
        # nothing of whether the script uses one.
        why = (
            ": Ctrl-C ended it before autotune had its training loader; nothing was tuned"
            if interrupted
            else " never iterated a torch DataLoader, so there was nothing to tune; if it "
            "loads data another way, autotune cannot tune it"
        )
        err.print(say("autotune: ", literal(script, limit=None), why), soft_wrap=True)
        return code
    measured = f"{adapted.segments} setting{'s' if adapted.segments != 1 else ''}"
    command = ["autotune", "run", str(script), "--study", study.study_name]
    command += ["--", *args] if args else []
    if stream and seed is not None and adapted.segments <= 1:
        # The run could only measure the script as written; the stored answer still holds.
        command[4] = seed[0]
        err.print(
            say(
                f"autotune: {measured} measured; the stored answer of study ",
                (seed[0], "bold"),
                f" ({describe_config(seed[1])}) applies from the start: ",
                literal(shlex.join(command), limit=None),
            ),
            soft_wrap=True,
        )
        return code
    err.print(
        say(
            f"autotune: {measured} measured; apply without tuning next time: ",
            literal(shlex.join(command), limit=None),
        ),
        soft_wrap=True,
    )
    return code


def _note(message: str) -> None:
    err.print(literal(message), soft_wrap=True, highlight=False)


@contextmanager
def _others_stopped(others: LiveOthers) -> Iterator[None]:
    """The other loaders' thread ends with the training (or the command), whatever ends it."""
    try:
        yield
    finally:
        others.stop()


def _save_others(study: optuna.Study, others: LiveOthers, url: str) -> None:
    """What the run's other loaders got, kept as the study's: ``autotune run --study`` applies
    it, and ``autotune show`` lists their passes."""
    from autotune import state
    from autotune.store import safe_url, sync_study
    from autotune.tuner import summarize

    found = others.outcome()
    if found is None:
        return
    state.save_others(study, found)
    sync_study(url, study, summarize(study, safe_url(url)))
    names = ", ".join(found.loaders)
    if found.config is None:
        _note(f"autotune: other loaders ({names}): as written; {found.reason}")
        return
    _note(
        f"autotune: other loaders ({names}): {found.config.num_workers} workers, "
        f"persistent; a pass {found.as_written_s:.2f} s as written, {found.tuned_s:.2f} s tuned"
    )


@contextmanager
def _search_failure_spares(live: LiveRun) -> Iterator[None]:
    """Should the search fail, the training still runs to its end, with its own settings;
    the error is raised once it has."""
    try:
        yield
    except Exception:
        live.keep_own_settings()
        err.print("autotune: the search failed; training goes on with the script's settings")
        live.wait()
        raise


def _stored_answer(
    store: optuna.storages.BaseStorage, key: StudyKey, name: str | None
) -> tuple[str, LoaderConfig] | None:
    """The newest recommendation for this script, arguments and hardware, if any."""
    import optuna

    from autotune.state import baseline_of, role, usable
    from autotune.tuner import as_given, recommended_trial

    prefix = key.default_name()
    summaries = optuna.get_all_study_summaries(store)
    mine = [s for s in summaries if s.study_name.startswith(prefix) or s.study_name == name]
    for summary in sorted(mine, key=lambda s: s.datetime_start or datetime.min, reverse=True):
        study = optuna.load_study(study_name=summary.study_name, storage=store)
        trials = study.get_trials(deepcopy=False)
        best = recommended_trial(study)
        # A study that measured only the script as written compared nothing: no answer (a
        # run that could not switch its stream must not hide the probe's answer before it).
        if best is not None and any(usable(t) and role(t) != "baseline" for t in trials):
            config, _ = as_given(best, baseline_of(trials))  # as the answer gives them
            return summary.study_name, config
    return None
