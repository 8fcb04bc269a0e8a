"""The load runs were measured under, and the answer's account of it.

A speedup is a ratio of two runs, so it is only stated between runs measured under the same
load (``alike``): a script as written slowed 16x by one spinning core, against a config
measured once the core was free, is no speedup. ``Load`` names the condition a run or a whole
study was measured under (``load_of``, ``condition``), so the answer can say it and keep it;
``steady_load`` and ``load_noise`` let the search treat another process's steady load as a
condition to optimise for rather than noise; ``account`` is the answer's ``interference``
entry and its interval.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from optuna.trial import FrozenTrial

from autotune.contract import ProbeSettings
from autotune.state import Confirmation, StudyState, baseline_of, usable, windows_of
from autotune.tuner.evidence._noise import NOISE_FLOOR, median, window_range
from autotune.tuner.evidence._pick import NEAR
from autotune.tuner.evidence._trials import best_usable
from autotune.tuner.evidence._windows import (
    Windows,
    describe,
    evidence,
    of_record,
    of_trial,
    study_windows,
    unread,
    widen,
)

# A run is measured quiet when fewer than half its windows were disturbed (its median is
# then a quiet window's: one blip in three windows moves nothing), and under load when at
# least LOADED_SHARE were; in between the load came or went while it ran.
QUIET_SHARE = 0.5
LOADED_SHARE = 0.75


LoadKind = Literal["quiet", "loaded", "changing", "unread"]


@dataclass(frozen=True)
class Load:
    """The condition windows were measured under: ``kind``, and the mean cores other
    processes used over them (``cores``) on a machine of ``cpu_count`` cores."""

    kind: LoadKind
    cores: float | None = None
    cpu_count: int | None = None

    def text(self) -> str:
        """The condition in words, as the answer names it."""
        if self.kind == "unread":
            return "with no reading of other processes' load"
        of = f" of {self.cpu_count}" if self.cpu_count else ""
        if self.kind == "quiet":
            return f"on a quiet machine (other processes used {self.cores or 0.0:.1f}{of} cores)"
        if self.kind == "loaded":
            return f"with another process on {self.cores or 0.0:.1f}{of} cores"
        return f"under a changing load (other processes used {self.cores or 0.0:.1f}{of} cores)"

    def to_dict(self) -> dict[str, Any]:
        cores = None if self.cores is None else round(self.cores, 3)
        return {"kind": self.kind, "cores": cores, "cpu_count": self.cpu_count, "text": self.text()}


def load_of(windows: Windows) -> Load:
    """The condition of a run (or of several pooled): quiet, loaded or changing."""
    read = [(c, d) for c, d in zip(windows.cores, windows.disturbed, strict=True) if c is not None]
    if not read:
        return Load("unread", None, windows.cpu_count)
    share = sum(d for _, d in read) / len(read)
    cores = sum(c for c, _ in read) / len(read)
    if share < QUIET_SHARE:
        return Load("quiet", cores, windows.cpu_count)
    return Load("loaded" if share >= LOADED_SHARE else "changing", cores, windows.cpu_count)


def measured_quiet(trial: FrozenTrial) -> bool:
    """Whether a trial was measured with no other process's load (or with no reading of it)."""
    return load_of(of_trial(trial)).kind in ("quiet", "unread")


def alike(a: Windows, b: Windows) -> bool:
    """Two runs measured under the same load, so that their ratio means something: both
    quiet, or both loaded. How many cores the other process got is not compared: it follows
    how many the probe itself asked for (one spinner beside 2 cores read 1.8 cores outside a
    0-worker run and 1.3 outside an 8-worker one). Runs with no reading are taken as they
    come: nothing says otherwise."""
    la, lb = load_of(a), load_of(b)
    if "unread" in (la.kind, lb.kind):
        return True
    return la.kind == lb.kind != "changing"


_WEIGHT = {"quiet": 0, "changing": 1, "loaded": 2}


def no_lighter(a: Windows, b: Windows) -> bool:
    """Whether run ``a`` was measured under at least as heavy a load as run ``b`` (quiet,
    then changing, then loaded; the same kind by the cores other processes used). Another
    process's load only takes from a run, so ``a`` reading faster than ``b`` from there shows
    ``a`` faster, by at least that ratio, whatever the two loads were."""
    la, lb = load_of(a), load_of(b)
    if "unread" in (la.kind, lb.kind):
        return alike(a, b)
    wa, wb = _WEIGHT[la.kind], _WEIGHT[lb.kind]
    return wa > wb or (wa == wb and (la.cores or 0.0) >= (lb.cores or 0.0))


def _confirmed(trial: FrozenTrial, confirmation: Confirmation | None) -> Windows:
    """A trial's windows as the answer counts them: pooled with its re-measures when
    confirmed, its fresh re-measures alone when the search's were set aside."""
    if confirmation is None:
        return of_trial(trial)
    for entry in confirmation.candidates:
        if entry.trial == trial.number and (entry.interference_cores or confirmation.fresh):
            return of_record(entry)
    return of_trial(trial)


def condition(parts: Sequence[Windows | None]) -> Load:
    """The load the answer's own figures were measured under, their windows pooled: quiet,
    loaded (and by how much) or changing."""
    pooled = unread([])
    for w in parts:
        if w is not None:
            pooled = pooled.plus(w)
    return load_of(pooled)


def comparison(
    best: Windows | None, base: Windows | None, confirmation: Confirmation | None
) -> str | None:
    """Why no speedup is stated, or None when the answer and the script as written were
    measured like with like (or re-measured afresh and found so)."""
    if confirmation is not None and confirmation.incomparable:
        return confirmation.incomparable
    if confirmation is not None and confirmation.fresh:
        return None
    if best is None or base is None or alike(best, base):
        return None
    return (
        f"the script as written was measured {load_of(base).text()}, the recommended settings "
        f"{load_of(best).text()}, and they were not re-measured together: no speedup is stated"
    )


def account(
    known: StudyState,
    trials: Sequence[FrozenTrial],
    best: FrozenTrial | None,
    base: FrozenTrial | None,
) -> tuple[list[float] | None, dict[str, Any] | None]:
    """The recommended config's interval (widened where its windows were disturbed) and the
    answer's ``interference`` entry."""
    confirmation, ceiling = known.confirmation, known.ceiling
    interval = confirmation.ci95 if confirmation else None
    rec = _confirmed(best, confirmation) if best is not None else None
    base_windows = _confirmed(base, confirmation) if base is not None else None
    widened = interval
    if rec is not None and rec.rates:
        # Capped by the compute ceiling only where it was measured free of interference.
        cap = max(evidence(of_record(ceiling)), default=None)
        widened = widen(interval, rec, cap)
    parts = {
        "recommended": rec,
        "baseline": base_windows,
        "ceiling": of_record(ceiling) if ceiling is not None and ceiling.windows else None,
    }
    said = describe(parts, study_windows(ceiling, trials), widened != interval)
    if said is not None:
        said["condition"] = condition([rec, base_windows]).to_dict()
        said["comparison"] = comparison(rec, base_windows, confirmation)
    return widened, said


def steady_load(trials: Sequence[FrozenTrial]) -> Load | None:
    """The load the search runs under, when it is steady: another process on the cores in
    at least ``LOADED_SHARE`` of the measured runs (the script as written alone, before any
    other). None on a quiet machine, or a load that comes and goes."""
    loads = [load_of(w) for t in trials if usable(t) and windows_of(t) if (w := of_trial(t)).read]
    loaded = [x for x in loads if x.kind == "loaded"]
    if not loaded or len(loaded) < LOADED_SHARE * len(loads):
        return None
    cores = sum(x.cores or 0.0 for x in loaded) / len(loaded)
    return Load("loaded", cores, loaded[0].cpu_count)


def load_noise(trials: Sequence[FrozenTrial]) -> float:
    """How far one config's windows move under the load: the median, over runs measured
    under it, of their range relative to their median (at least twice the noise floor):
    under another process's load that range is many times the few percent a quiet machine
    moves (measured: docs/benchmarks.md, "Figures the code's rules cite")."""
    spreads = []
    for t in trials:
        if not usable(t) or len(windows_of(t)) < 2:
            continue
        w = of_trial(t)
        if load_of(w).kind == "loaded" and (mid := median(w.rates)) > 0:
            lo, hi = window_range(w.rates)  # as five windows would spread
            spreads.append((hi - lo) / mid)
    return max(2 * NOISE_FLOOR, median(spreads) if spreads else 0.0)


def under_load(trials: Sequence[FrozenTrial], settings: ProbeSettings) -> ProbeSettings:
    """The next probe's settings: under a steady load, every window measured. Two windows
    agree within 5 % by chance there (555 and 578 samples/s for a config whose long run was
    twice that). Not more windows: a bursty loader measured in whole epochs then took 7
    epochs, past the trial's timeout."""
    return replace(settings, min_windows=0) if steady_load(trials) is not None else settings


def may_lead(trials: Sequence[FrozenTrial], settings: ProbeSettings) -> ProbeSettings:
    """A search probe's settings: one that may lead measures every window
    (``ProbeSettings.settled_below``: within ``NEAR`` of the best so far, or above it), since
    two windows agree within 5 % by chance and a bursty loader's first ones read high."""
    best = best_usable(trials)
    if best is None or not best.value:
        return settings
    return replace(settings, settled_below=best.value * (1 - NEAR))


def comparable_baseline(trials: Sequence[FrozenTrial]) -> float | None:
    """The baseline's rate for the live "best so far (Nx)", or None while the best and the
    baseline were measured under different loads: that ratio is no speedup."""
    base = baseline_of(trials)
    best = best_usable(trials)
    if base is None or best is None or base.value is None:
        return None
    return base.value if alike(of_trial(best), of_trial(base)) else None
