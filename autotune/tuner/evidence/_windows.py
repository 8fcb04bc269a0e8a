"""Windows measured while other processes used the cores: which ones, and what the answer says.

The probe reads, for each window, the cores the machine spent outside the probe's process
tree (``probe/machine/_outside_cpu.py``). A window is *disturbed* when that is at least
``MIN_CORES`` (half a core: more than a stray daemon or the tuner's own polling) and at
least ``FREE_SHARE`` of the cores the probe's tree left free (``cpu_count`` less the tree's
mean cores over its measurement). The second part keeps a big machine's steady background
(a few cores of 64) from marking every window, while on a small one half a core always
counts: on 2 cores the tree rarely leaves more than one free.

A disturbed window's rate is lower than a quiet machine would give, by an amount nobody
knows. So:

- the answer says how much and how often (``describe``), and its interval is widened:
  its upper end reaches each disturbed window's rate as if the other process's CPU time had
  been the probe's (rate x cpu_count / (cpu_count - outside cores)), an upper bound for a
  loop whose rate follows the CPU it gets, never past a compute ceiling measured in quiet
  windows;
- disturbed windows are never the evidence that disproves a ceiling (``evidence``), and a
  compute ceiling measured mostly in them binds nothing (``_ceiling.bound_for``);
- a speedup is a ratio of two runs, so it is only stated between runs measured under the
  same load (``_load.alike``): a script as written slowed 16x by one spinning core, against a
  config measured once the core was free, is no speedup. ``Load`` names the condition a run
  or a whole study was measured under, so the answer can say it and keep it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from optuna.trial import FrozenTrial

from autotune.contract import ProbeResult
from autotune.state import Ceiling, Readings, windows_of
from autotune.tuner.evidence._noise import ci95_median
from autotune.tuner.evidence._trials import trial_result

MIN_CORES = 0.5
FREE_SHARE = 0.25
# The widened upper end assumes at least this many cores were left to the probe: a reading
# near cpu_count would make the factor unbounded.
_MIN_LEFT = 0.25


def tree_cores(result: ProbeResult, *, main_only: bool = False) -> float:
    """Mean cores the probe's own tree used while measuring; 1 when unknown."""
    wall = result.measured_wall_s
    cpu = (result.main_cpu_s or 0.0) + (0.0 if main_only else result.worker_cpu_s or 0.0)
    ranks = len(result.ranks or []) or 1  # a job's CPU seconds are per rank (a mean)
    return cpu * ranks / wall if wall and cpu else 1.0


def threshold(cpu_count: int | None, tree: float) -> float:
    """Outside cores from which a window is disturbed."""
    return max(MIN_CORES, FREE_SHARE * max(0.0, (cpu_count or 1) - tree))


@dataclass(frozen=True)
class Windows:
    """A run's windows with the outside cores of each (None: not read) and the cores from
    which each counts as disturbed (its probe's ``threshold``)."""

    rates: list[float]
    cores: list[float | None]
    limits: list[float]
    cpu_count: int | None = None

    @property
    def disturbed(self) -> list[bool]:
        return [c is not None and c >= lim for c, lim in zip(self.cores, self.limits, strict=True)]

    @property
    def read(self) -> bool:
        return any(c is not None for c in self.cores)

    def quiet(self) -> list[float]:
        return [r for r, d in zip(self.rates, self.disturbed, strict=True) if not d]

    def hits(self) -> list[tuple[float, float]]:
        """(rate, outside cores) of each disturbed window."""
        return [
            (r, c)
            for r, c, d in zip(self.rates, self.cores, self.disturbed, strict=True)
            if d and c is not None
        ]

    def plus(self, other: Windows) -> Windows:
        """Both runs' windows pooled (one config probed twice)."""
        return Windows(
            self.rates + other.rates,
            self.cores + other.cores,
            self.limits + other.limits,
            self.cpu_count or other.cpu_count,
        )


def unread(rates: Sequence[float]) -> Windows:
    return Windows(list(rates), [None] * len(rates), [MIN_CORES] * len(rates))


def _windows(
    rates: Sequence[float], cores: Sequence[float], limit: float, cpu_count: int | None
) -> Windows:
    if len(cores) != len(rates):
        return replace(unread(rates), cpu_count=cpu_count)
    return Windows(list(rates), list(cores), [limit] * len(rates), cpu_count)


def of_result(result: ProbeResult) -> Windows:
    """A probe's own windows (a ceiling probe's: the compute ceiling's)."""
    limit = threshold(result.cpu_count, tree_cores(result))
    return _windows(result.windows, result.interference_cores, limit, result.cpu_count)


def of_ceiling(result: ProbeResult) -> Windows:
    """The compute ceiling a baseline probe measured after its own windows: the replay runs
    in the main process, so the tree's share is the main process's."""
    limit = threshold(result.cpu_count, tree_cores(result, main_only=True))
    cores = result.ceiling_interference_cores
    return _windows(result.ceiling_windows, cores, limit, result.cpu_count)


def of_trial(trial: FrozenTrial) -> Windows:
    """A trial's windows as the search saw them, with the probe's readings where they are
    the same windows (the result lists them in the order they closed)."""
    seen = windows_of(trial)
    result = trial_result(trial)
    if result is None:
        return unread(seen)
    # The search saw the windows as they closed; the result charges them with the start-up
    # each epoch pays (probe/measure/_epoch.py): the same windows, the charged rates.
    epoch = result.epoch
    streamed = epoch.uncharged_windows if epoch and epoch.uncharged_windows else result.windows
    if sorted(streamed) != sorted(seen) and sorted(result.windows) != sorted(seen):
        return unread(seen)
    return of_result(result)


def of_record(record: Readings | None) -> Windows:
    """Windows kept on the study (the ceiling, a confirmation candidate)."""
    if record is None:
        return unread([])
    rates = [float(w) for w in record.windows]
    cores, limits = record.interference_cores, record.interference_limits
    if len(cores) != len(rates) or len(limits) != len(rates):
        return unread(rates)
    return Windows(rates, list(cores), [float(x) for x in limits], record.cpu_count)


def to_record(windows: Windows) -> dict[str, Any]:
    """The fields of a ``state.Readings`` kept on the study (``disturbed`` for people)."""
    return {
        "windows": list(windows.rates),
        "interference_cores": list(windows.cores),
        "interference_limits": list(windows.limits),
        "disturbed": windows.disturbed,
        "cpu_count": windows.cpu_count,
    }


def evidence(windows: Windows) -> list[float]:
    """The windows a ceiling may be disproved with: all of them when none was disturbed;
    else the quiet ones when they are at least two and at least half; else none (a run
    measured mostly under interference proves nothing about the machine's ceiling)."""
    quiet = windows.quiet()
    if len(quiet) == len(windows.rates):
        return quiet
    return quiet if len(quiet) >= max(2, math.ceil(len(windows.rates) / 2)) else []


def widen(
    interval: Sequence[float] | None, windows: Windows, cap: float | None = None
) -> list[float] | None:
    """The answer's interval, its upper end raised to what the disturbed windows could have
    given on a quiet machine, but not past ``cap`` (the compute ceiling: no loader setting
    passes it); ``interval`` unchanged when none was disturbed."""
    hits = windows.hits()
    if not hits:
        return list(interval) if interval is not None else None
    lo, hi = interval if interval is not None else ci95_median(windows.rates)
    n = windows.cpu_count or 1
    top = max(r * n / max(_MIN_LEFT, n - c) for r, c in hits)
    if cap is not None:
        top = min(top, cap)
    return [float(lo), float(max(hi, top))]


def _where(hit: list[tuple[str, int, int]]) -> str:
    """ "3 of 5 windows of A, 2 of 5 of B and 1 of 4 of C"."""
    said = [
        f"{k} of {n}{' windows' if i == 0 else ''} of {name}" for i, (name, k, n) in enumerate(hit)
    ]
    return said[0] if len(said) == 1 else f"{', '.join(said[:-1])} and {said[-1]}"


def describe(
    parts: dict[str, Windows | None], study_wide: Sequence[Windows], widened: bool
) -> dict[str, Any] | None:
    """The answer's account of interference; None where no window was read.

    ``parts`` are the windows the answer's figures come from, keyed as in the answer
    (``recommended``, ``baseline``, ``ceiling``); ``study_wide`` every run's windows (the
    search's included)."""
    named = {k: w for k, w in parts.items() if w is not None and w.read}
    runs = [w for w in study_wide if w.read]
    if not named and not runs:
        return None
    read = [c for w in runs for c in w.cores if c is not None]
    search_hits = [c for w in runs for _, c in w.hits()]
    hit = [(_NAMES[k], sum(w.disturbed), len(w.rates)) for k, w in named.items() if w.hits()]
    if hit:
        cores = [c for w in named.values() for _, c in w.hits()]
        text = f"another process used {sum(cores) / len(cores):.1f} cores during {_where(hit)}"
        text += _consequence({k for k, w in named.items() if w.hits()}, widened)
    elif search_hits:
        text = (
            f"another process used {sum(search_hits) / len(search_hits):.1f} cores during "
            f"{len(search_hits)} of {len(read)} windows of the search, none of the answer's own"
        )
    else:
        top = max(c for w in [*runs, *named.values()] for c in w.cores if c is not None)
        text = f"no interference: other processes used at most {top:.1f} cores in any window"
    counts = {
        k: {"disturbed": sum(w.disturbed), "windows": len(w.rates)} if (w := named.get(k)) else None
        for k in parts
    }
    return {
        "summary": text,
        "windows": len(read),
        "disturbed_windows": len(search_hits),
        "max_cores": round(max(read), 3) if read else None,
        **counts,
        "widened": widened,
    }


def _consequence(hit: set[str], widened: bool) -> str:
    """What the disturbed windows did to the answer, as the end of its sentence."""
    if "baseline" in hit and "recommended" not in hit:
        # Only the denominator was slowed: the gain looks bigger than it is.
        return (
            "; the script as written ran slower than on a quiet machine: "
            "the speedup is likely overstated"
        )
    text = "; they ran slower than on a quiet machine"
    return text + (": the interval is widened to allow for it" if widened else "")


# What a person calls the windows of each part of the answer.
_NAMES = {
    "recommended": "the recommended settings",
    "baseline": "the script as written",
    "ceiling": "the compute ceiling",
}


def study_windows(ceiling: Ceiling | None, trials: Sequence[FrozenTrial]) -> list[Windows]:
    """Every run's windows the study kept: its trials' and its compute ceiling's."""
    found = [of_trial(t) for t in trials if windows_of(t)]
    if ceiling is not None and ceiling.windows:
        found.append(of_record(ceiling))
    return found
