"""Confirmation: re-measure the top configs interleaved and recommend by median.

One lucky probe never decides. Candidates are re-run A B C (base) A B C ..., so drift on a
shared machine hits them alike; their windows are pooled; the winner is the cheapest config
whose median is within noise of the fastest.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from autotune.contract import LoaderConfig, ProbeResult
from autotune.tuner._noise import NOISE_FLOOR, ci95_median, median, relative_spread


@dataclass
class Candidate:
    trial: int
    config: LoaderConfig
    windows: list[float]
    peak_rss: int = 0
    runs: int = 1
    probe_seconds: float = 0.0
    extra: list[list[float]] = field(default_factory=list)

    def cost(self) -> tuple[int, int, int, int]:
        """Cheaper first: fewer workers, fewer batches held in memory, fewer streams."""
        c = self.config
        workers = c.num_workers or 0
        return (workers, workers * (c.prefetch_factor or 0), c.num_streams or 0, self.peak_rss)


def pick(candidates: list[Candidate], limit: int) -> list[Candidate]:
    """The best ``limit`` distinct configs that could still be the fastest."""
    ranked = sorted(candidates, key=lambda c: median(c.windows), reverse=True)
    chosen: list[Candidate] = []
    for cand in ranked:
        if any(cand.config == c.config for c in chosen):
            continue
        if chosen and max(cand.windows) < min(chosen[0].windows) * (1 - NOISE_FLOOR):
            break  # clearly slower than the leader: re-measuring it cannot change the pick
        chosen.append(cand)
        if len(chosen) == limit:
            break
    return chosen


def confirm(
    candidates: list[Candidate],
    baseline: Candidate | None,
    probe: Callable[[Candidate], ProbeResult],
    *,
    rounds: int = 1,
) -> dict[str, Any]:
    runs = [*candidates]
    if baseline is not None:
        runs.insert(len(candidates) // 2 + 1, baseline)
    for _ in range(rounds):
        for cand in runs:
            result = probe(cand)
            cand.probe_seconds += result.wall_s or 0.0
            if result.ok and result.windows:
                cand.windows.extend(result.windows)
                cand.extra.append(result.windows)
                cand.runs += 1
                if result.peak_rss_bytes:
                    cand.peak_rss = max(cand.peak_rss, result.peak_rss_bytes)
        if baseline is not None and baseline in runs:
            runs.remove(baseline)  # once is enough for the speedup's denominator
    top = max(candidates, key=lambda c: median(c.windows))
    tolerance = min(relative_spread(top.windows), NOISE_FLOOR)
    eligible = [c for c in candidates if median(c.windows) >= median(top.windows) * (1 - tolerance)]
    winner = min(eligible, key=Candidate.cost)
    lo, hi = ci95_median(winner.windows)
    return {
        "winner": winner.trial,
        "median": median(winner.windows),
        "ci95": [lo, hi],
        "fastest": top.trial,
        "baseline_median": median(baseline.windows) if baseline is not None else None,
        "probe_seconds": sum(
            c.probe_seconds for c in [*candidates, *([baseline] if baseline else [])]
        ),
        "candidates": [
            {
                "trial": c.trial,
                "config": c.config.to_dict(),
                "median": median(c.windows),
                "ci95": list(ci95_median(c.windows)),
                "runs": c.runs,
                "windows": c.windows,
            }
            for c in candidates
        ],
    }
