"""The epoch's other loaders (evaluation, validation), tuned once the training loader's
settings are chosen.

Their passes are in the epoch the user waits for, and a fast training loader makes them a
larger share of it. Only map-style loaders are tuned: their order is their sampler's whatever
their workers, so the script sees the same batches in the same order; an IterableDataset's is
not. Each probe runs the recommendation with the other loaders at one worker count and times
their passes in the epoch it sees (``probe/measure/_epoch.py``); the first is the script's own
settings beside the recommendation, then the count doubles while a pass gets faster by more
than ``GAIN``. A probe that sees no epoch whole ends the stage: a pass it cannot see cannot be
compared, and the script's settings stand.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import optuna

from autotune import state
from autotune.answer import UNTUNED_SHARE, OtherLoaders
from autotune.contract import EpochFigures, LoaderConfig, LoaderPass, ProbeResult
from autotune.state import baseline_of, record_of
from autotune.tuner.evidence import recommended_trial, trial_config

# A doubling must make the passes this much faster to be kept: one probe a count, on a
# machine whose times swing, so less would follow noise.
GAIN = 0.10
# Worker counts tried for the other loaders, at most (each a probe).
MAX_WORKERS = 64


class Probe(Protocol):
    """Measure the training loader at ``config``, the other loaders at ``others``."""

    def __call__(self, config: LoaderConfig, *, others: LoaderConfig | None) -> ProbeResult: ...


Note = Callable[[str], None]


def _key(p: LoaderPass) -> tuple[str, str | None]:
    return (p.dataset, p.site)


def heavy_passes(figures: EpochFigures | None) -> list[LoaderPass]:
    """The map-style passes that take a real share of the epoch as written."""
    if figures is None or not figures.epoch_s:
        return []
    share = UNTUNED_SHARE * figures.epoch_s
    return [p for p in figures.passes if not p.iterable and p.seconds >= share]


def _pass_seconds(result: ProbeResult, keys: set[tuple[str, str | None]]) -> float | None:
    """The passes of ``keys``' loaders in the epoch ``result`` saw; None: none seen."""
    epoch = result.epoch
    if not result.ok or epoch is None or epoch.epoch_s is None:
        return None
    passes = [p for p in epoch.passes if _key(p) in keys]
    return sum(p.seconds for p in passes) if passes else None


def tune_others(
    study: optuna.Study,
    probe: Probe,
    note: Note,
    time_left: Callable[[], bool] = lambda: True,
) -> OtherLoaders | None:
    """Tune the other loaders beside the recommendation; None when there is none to tune.
    ``time_left``: False once the search's time is spent (no further probe starts)."""
    trials = study.get_trials(deepcopy=False)
    base, best = baseline_of(trials), recommended_trial(study)
    if base is None or best is None:
        return None
    written_result = record_of(base).probe_result()
    heavy = heavy_passes(written_result.epoch if written_result is not None else None)
    if not heavy:
        return None
    keys = {_key(p) for p in heavy}
    names = sorted({f"{p.dataset} at {p.site}" if p.site else p.dataset for p in heavy})
    config = trial_config(best)
    if not time_left():
        return OtherLoaders(loaders=names, reason="the search's time ran out before them")
    note(f"  the other loaders ({', '.join(names)}): their own settings, beside the pick")
    reference = _pass_seconds(probe(config, others=None), keys)
    written = min((p.num_workers for p in heavy), default=0)
    tried: list[dict[str, float | int | None]] = [{"num_workers": written, "seconds": reference}]
    if reference is None:
        return OtherLoaders(
            loaders=names,
            tried=tried,
            reason="no probe beside the recommendation saw an epoch whole, so their passes "
            "could not be timed",
        )
    best_s, chosen = reference, None
    stopped = "no worker count made their passes faster"
    workers = max(2, 2 * written)
    while workers <= MAX_WORKERS and time_left():
        candidate = LoaderConfig(num_workers=workers, persistent_workers=True)
        result = probe(config, others=candidate)
        seconds = _pass_seconds(result, keys)
        tried.append({"num_workers": workers, "seconds": seconds})
        if not result.ok:
            # Not the script's failure: these settings of autotune's, in a probe of its own.
            stopped = f"{workers} workers for them failed a probe ({result.status})"
            note(f"    {workers} workers: {result.status}; their settings stay below it")
            break
        shown = "no epoch seen" if seconds is None else f"{seconds:.2f} s"
        note(f"    {workers} workers: {shown} an epoch (as written {reference:.2f} s)")
        if seconds is None or seconds > best_s * (1 - GAIN):
            break
        best_s, chosen = seconds, candidate
        workers *= 2
    return OtherLoaders(
        config=None if chosen is None else chosen.to_dict(),
        loaders=names,
        as_written_s=reference,
        tuned_s=best_s,
        tried=tried,
        reason=None if chosen is not None else stopped,
    )


def run_others_stage(
    study: optuna.Study, probe: Probe, note: Note, time_left: Callable[[], bool]
) -> None:
    """The stage, once per study: its outcome is kept on the study, and its probes' time
    counted in the study's probe seconds (as confirmation's is)."""
    if state.load(study).others is not None:
        return
    spent = 0.0

    def timed(config: LoaderConfig, *, others: LoaderConfig | None) -> ProbeResult:
        nonlocal spent
        result = probe(config, others=others)
        spent += result.wall_s or 0.0
        return result

    try:
        found = tune_others(study, timed, note, time_left)
    finally:
        state.add_probe_seconds(study, spent)
    if found is not None:
        state.save_others(study, found)
