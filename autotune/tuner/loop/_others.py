"""The epoch's other loaders (evaluation, validation), tuned beside the search's first trial
with workers (``others_early``), so that the search's later probes run them fast, or beside
the pick where no such trial was measured.

Their passes are in the epoch the user waits for, and a fast training loader makes them a
larger share of it. A map-style loader's order is its sampler's whatever its workers, so the
script sees the same batches in the same order. An IterableDataset's loader is tuned in the
probes' own processes only, and kept only where its passes give the batches they gave as
written (its workers split the stream: the same batches, in another order). Each probe runs
that trial's training settings with the other loaders at one worker count and times their
passes in the epoch it sees (``probe/measure/_epoch.py``); the first is the script's own
settings beside it (the trial's own probe, where it saw them whole), then the count doubles
while a
pass gets faster by more than ``workers.PASS_GAIN`` (``workers.PassClimb``). A probe that sees
no epoch whole ends the stage: a pass it cannot see cannot be compared, and the script's
settings stand.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, Protocol

import optuna

from autotune import state
from autotune.answer import UNTUNED_SHARE, OtherLoaders, PassTry
from autotune.contract import EpochFigures, LoaderConfig, LoaderPass, ProbeResult
from autotune.state import baseline_of, record_of
from autotune.tuner.evidence import best_usable, pass_name, recommended_trial, trial_config
from autotune.tuner.workers import MAX_PASS_WORKERS, PassClimb


class Probe(Protocol):
    """Measure the training loader at ``config``, the other loaders at ``others``
    (IterableDataset ones too with ``others_iterable``)."""

    def __call__(
        self, config: LoaderConfig, *, others: LoaderConfig | None, others_iterable: bool = False
    ) -> ProbeResult: ...


Note = Callable[[str], None]


def _key(p: LoaderPass) -> tuple[str, str | None]:
    return (p.dataset, p.site)


def heavy_passes(figures: EpochFigures | None) -> list[LoaderPass]:
    """The passes that take a real share of the epoch as written."""
    if figures is None or not figures.epoch_s:
        return []
    share = UNTUNED_SHARE * figures.epoch_s
    return [p for p in figures.passes if p.seconds >= share]


def _stream_batches(result: ProbeResult, keys: set[tuple[str, str | None]]) -> dict[Any, int]:
    """Batches a pass of each IterableDataset loader of ``keys`` in the epoch seen."""
    epoch = result.epoch
    passes = epoch.passes if epoch is not None else []
    return {_key(p): p.batches for p in passes if p.iterable and _key(p) in keys}


def _ran(result: ProbeResult) -> bool:
    """The script ran as asked: through the probe's windows, or to its own end before them
    (a short script, fast at these settings: its epochs are still timed whole)."""
    return result.status in ("ok", "ended_early")


def _pass_seconds(result: ProbeResult, keys: set[tuple[str, str | None]]) -> float | None:
    """The passes of ``keys``' loaders in the epoch ``result`` saw; None: none seen."""
    epoch = result.epoch
    if not _ran(result) or epoch is None or epoch.epoch_s is None:
        return None
    passes = [p for p in epoch.passes if _key(p) in keys]
    return sum(p.seconds for p in passes) if passes else None


def tune_others(
    study: optuna.Study,
    probe: Probe,
    note: Note,
    time_left: Callable[[], bool] = lambda: True,
    top: int = MAX_PASS_WORKERS,
    beside: optuna.trial.FrozenTrial | None = None,
) -> OtherLoaders | None:
    """Tune the other loaders beside ``beside`` (the recommendation, by default); None when
    there is none to tune. ``time_left``: False once the search's time is spent (no further
    probe starts); ``top``: the most workers tried (the user's ``--max-workers``)."""
    trials = study.get_trials(deepcopy=False)
    base, best = baseline_of(trials), beside or recommended_trial(study)
    if base is None or best is None:
        return None
    written_result = record_of(base).result
    heavy = heavy_passes(written_result.epoch if written_result is not None else None)
    if not heavy:
        return None
    keys = {_key(p) for p in heavy}
    names = sorted({pass_name(p) for p in heavy})
    config = trial_config(best)
    if not time_left():
        return OtherLoaders(loaders=names, reason="the search's time ran out before them")
    which = "the pick" if beside is None else f"#{best.number}, the best so far"
    note(
        f"  the loaders of the epoch's other passes (evaluation, validation: {', '.join(names)})"
        f": worker counts for them measured beside {which}"
    )
    # That trial's own probe timed these passes beside it, with them as written, as a first
    # probe of this stage would: where it saw them, they are not measured twice.
    first = record_of(best).result
    if first is None or _pass_seconds(first, keys) is None:
        first = probe(config, others=None)
    reference = _pass_seconds(first, keys)
    # A stream is tuned only in a probe's own process, and kept only where its workers split
    # it: a pass must give the batches it gave as written (each worker running the whole
    # stream would give them once per worker).
    streams = any(p.iterable for p in heavy)
    written_batches = _stream_batches(first, keys)
    written = min((p.num_workers for p in heavy), default=0)
    tried = [PassTry(written, reference)]
    if reference is None:
        return OtherLoaders(
            loaders=names,
            tried=tried,
            reason="no probe beside the recommendation saw an epoch whole, so their passes "
            "could not be timed",
        )
    climb = PassClimb(written, reference, min(top, MAX_PASS_WORKERS))
    while (candidate := climb.candidate()) is not None and time_left():
        result = probe(config, others=candidate, others_iterable=streams)
        seconds = _pass_seconds(result, keys)
        workers = candidate.num_workers
        if not _ran(result):
            # Not the script's failure: these settings of autotune's, in a probe of its own.
            climb.failed(f"{workers} workers for them failed a probe ({result.status})")
            note(f"    {workers} workers: {result.status}; their settings stay below it")
            break
        batches = _stream_batches(result, keys)
        if any(batches.get(k, n) != n for k, n in written_batches.items()):
            climb.failed(
                f"with {workers} workers a stream's pass gave {sorted(batches.values())} "
                f"batches, as written {sorted(written_batches.values())}: its workers do not "
                "split it, so its settings stay below that count"
            )
            note(f"    {workers} workers: a stream's batches changed; their settings stay below")
            break
        shown = "no epoch seen" if seconds is None else f"{seconds:.2f} s"
        note(f"    {workers} workers: {shown} an epoch (as written {reference:.2f} s)")
        climb.measured(seconds)
    found = climb.outcome(names)
    return replace(found, iterable=streams and found.config is not None)


def run_others_stage(
    study: optuna.Study,
    probe: Probe,
    note: Note,
    time_left: Callable[[], bool],
    top: int | None = None,
    beside: optuna.trial.FrozenTrial | None = None,
) -> None:
    """The stage, once per study: its outcome is kept on the study, and its probes' time
    counted in the study's probe seconds (as confirmation's is). ``beside``: the trial it
    measures beside, where not the recommendation (the search's first trial with workers,
    so that the search's later probes run the other loaders at the settings found)."""
    if state.load(study).others is not None:
        return
    spent = 0.0

    def timed(
        config: LoaderConfig, *, others: LoaderConfig | None, others_iterable: bool = False
    ) -> ProbeResult:
        nonlocal spent
        result = probe(config, others=others, others_iterable=others_iterable)
        spent += result.wall_s or 0.0
        return result

    try:
        found = tune_others(study, timed, note, time_left, top or MAX_PASS_WORKERS, beside)
    finally:
        state.add_probe_seconds(study, spent)
    if found is not None:
        state.save_others(study, found)


def searched_others(study: optuna.Study) -> tuple[LoaderConfig | None, bool]:
    """The other loaders' settings the search's probes run, once the stage found faster
    ones (``others_early``), and whether they apply to IterableDataset loaders too; (None,
    False) before: the script's own. A trial's figure is its training loader's, with windows
    that hold no other pass, so only the wall time of its probe changes."""
    found = state.load(study).others
    if found is None or found.config is None:
        return None, False
    return found.config, found.iterable


def others_early(
    study: optuna.Study,
    probe: Probe,
    note: Note,
    time_left: Callable[[], bool],
    top: int | None = None,
) -> None:
    """The stage beside the search's first trial with workers measured in full, not after
    the pick: from then on every probe runs the other loaders at the settings found. Until
    they are tuned their passes run between training epochs at the script's settings, outside
    every window but inside every probe's wall time: a validation pass of 0.89 s after each
    training epoch of 0.26 s made each probe of three 1.5 s windows take 24 s
    (docs/benchmarks.md, "Validation passes tuned before the search goes on"). Nothing
    happens once the stage has run, before such a trial is measured, where its probe saw no
    epoch whole, or where a pass runs inside the training pass (mid-epoch validation)."""
    if state.load(study).others is not None:
        return
    trials = study.get_trials(deepcopy=False)
    best, base = best_usable(trials), baseline_of(trials)
    if best is None or base is None or best.number == base.number:
        return
    if not trial_config(best).num_workers:
        return
    # Only where that trial's own probe timed their passes whole: the stage's reference,
    # free; where it saw no epoch, the pick's probes may, and the stage waits for it.
    written = record_of(base).result
    heavy = heavy_passes(written.epoch if written is not None else None)
    # A pass inside the training pass is inside its windows too: tuned for later trials only,
    # it would make them faster than the trials before by what it saved, not by their loader.
    if not heavy or any(p.in_training for p in heavy):
        return
    keys = {_key(p) for p in heavy}
    seen = record_of(best).result
    if seen is None or _pass_seconds(seen, keys) is None:
        return
    run_others_stage(study, probe, note, time_left, top, beside=best)
