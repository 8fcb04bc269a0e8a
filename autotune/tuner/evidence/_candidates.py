"""The configs confirmation compares: their windows, re-measures and cost, and what a
plan says to do with them."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from autotune.contract import LoaderConfig, ProbeResult
from autotune.state import Contender
from autotune.tuner.evidence._noise import NOISE_FLOOR, ci95_median, median, window_range
from autotune.tuner.evidence._windows import Windows, of_result, to_record, unread


@dataclass
class Candidate:
    trial: int
    config: LoaderConfig
    windows: list[float]
    peak_rss: int = 0
    runs: int = 1
    probe_seconds: float = 0.0
    extra: list[list[float]] = field(default_factory=list)
    # The outside cores of each window (probe/machine/_outside_cpu.py), when read.
    interference: Windows | None = None
    # Each re-measure's own windows and readings, in the order they ran.
    remeasures: list[Windows] = field(default_factory=list)
    # The share of its probe's wall time the script waited in the loader (None: not read):
    # of the script as written, the most that loader settings alone can give back.
    data_wait: float | None = None
    # Its main process kept more than one core busy with torch's intra-op threads: one probe
    # of it is one draw of a rate that moves from process to process (``_draws.py``).
    threads_busy: bool = False
    # Measured again in a fresh process for that reason: each probe is one draw of its rate,
    # whose windows are that probe's noise; the spread between its probes is not noise.
    drawn: bool = False

    def readings(self) -> Windows:
        """``windows`` with their interference readings (unread where they do not match)."""
        found = self.interference
        return found if found is not None and found.rates == self.windows else unread(self.windows)

    def probes(self) -> list[list[float]]:
        """``windows`` probe by probe: the search's (where kept), then each re-measure's."""
        again = sum(len(e) for e in self.extra)
        first = self.windows[: len(self.windows) - again]
        return [p for p in [first, *self.extra] if p]

    def cost(self) -> tuple[int, int, int, int, int]:
        """Cheaper first: ``loader_cost``, then less memory at the peak."""
        return (*loader_cost(self.config), self.peak_rss)


def loader_cost(c: LoaderConfig) -> tuple[int, int, int, int]:
    """Cheaper first: fewer workers, fewer batches held in memory, fewer streams, fewer torch
    threads (torch's own count, None, uses every core it sees)."""
    workers = c.num_workers or 0
    threads = c.threads if c.threads is not None else ALL_THREADS
    return workers, workers * (c.prefetch_factor or 0), c.num_streams or 0, threads


# Stands for torch's own thread count in ``Candidate.cost``: more than any count set.
ALL_THREADS = 1 << 16


def separated(fast: Candidate, slow: Candidate, margin: float = NOISE_FLOOR) -> bool:
    """Every window of ``fast`` beats every window of ``slow`` by more than ``margin``, each
    probe's windows spread as five would (``window_range``)."""
    return window_range(fast.windows)[0] > window_range(slow.windows)[1] * (1 + margin)


def medians_text(cands: Sequence[Candidate]) -> str:
    """ "medians 8,838 and 8,267 samples/s": the figures a sentence about closeness is of."""
    said = [f"{median(c.windows):,.0f}" for c in cands if c.windows]
    if len(said) == 1:
        return f"median {said[0]} samples/s"
    return f"medians {', '.join(said[:-1])} and {said[-1]} samples/s"


@dataclass(frozen=True)
class Plan:
    """What confirmation should do; built by ``confirmation_plan``.

    ``candidates`` are the configs that could still win, best first (the leader alone when
    it wins by far). ``remeasure`` says to re-run them interleaved; ``remeasure_baseline``
    adds the baseline to that round (only when it is not a candidate itself). ``baseline``
    is the speedup's denominator either way.
    """

    candidates: list[Candidate]
    baseline: Candidate | None
    remeasure: bool
    remeasure_baseline: bool
    why: str
    margin: float = NOISE_FLOOR
    # The runs compared were measured under different loads: re-measure each afresh (the
    # search's windows set aside), interleaved, twice.
    fresh: bool = False
    # Interleaved rounds of a fresh re-measure, where not the default two.
    rounds: int | None = None
    # Measure the baseline alone once more, afresh: one probe of it is one draw
    # (``_draws.with_second_draw``).
    baseline_again: bool = False

    @property
    def skipped(self) -> bool:
        return not self.remeasure


def interval_coverage(n: int) -> float:
    """True coverage of ``ci95_median``'s interval over ``n`` distinct values.

    ``[x(j+1), x(n-j)]`` (1-based ranks) holds the median when between j+1 and n-j-1 values
    fall below it: P(j+1 <= K <= n-j-1), K ~ Binomial(n, 1/2). The rank j is read off
    ``ci95_median`` itself (run on the ranks 0..n-1), so this stays true if that changes.
    Four windows give the full range: 87.5 %, not 95 %.
    """
    if n < 1:
        return 0.0
    lo = int(ci95_median(range(n))[0])
    return sum(math.comb(n, i) for i in range(lo + 1, n - lo)) / (1 << n)


def describe_interval(cand: Candidate) -> str:
    """How the winner's interval was computed, in words the report can show."""
    n = len(cand.windows)
    cover = f"covers the median with {interval_coverage(n):.1%} probability"
    if cand.runs <= 1:
        return (
            f"order statistics of the {n} windows of one probe ({cover}); "
            "within-probe noise only: drift between probes is not in it"
        )
    return f"order statistics of the {n} windows over {cand.runs} interleaved probes ({cover})"


def measure(runs: list[Candidate], probe: Callable[[Candidate], ProbeResult]) -> None:
    for cand in runs:
        result = probe(cand)
        cand.probe_seconds += result.wall_s or 0.0
        if result.measured:
            cand.remeasures.append(of_result(result))
            cand.interference = cand.readings().plus(of_result(result))
            cand.windows.extend(result.windows)
            cand.extra.append(result.windows)
            cand.runs += 1
            if result.peak_rss_bytes:
                cand.peak_rss = max(cand.peak_rss, result.peak_rss_bytes)


def contenders(candidates: list[Candidate]) -> list[Contender]:
    return [
        Contender(
            trial=c.trial,
            config=c.config.to_dict(),
            median=median(c.windows) if c.windows else None,
            ci95=list(ci95_median(c.windows)) if c.windows else None,
            runs=c.runs,
            **to_record(c.readings()),
        )
        for c in candidates
    ]
