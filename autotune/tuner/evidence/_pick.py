"""The pick: the cheapest config that reaches the fastest, and the script as written unless
something is clearly faster than it.

Two rules, one reason. Workers are not free (each is a process with memory, start-up and
file handles, and on real storage another concurrent request), and the user's own settings
are not free to leave (a change with no gain is a cost). So:

- **Never slower than as written.** A config other than the script's own is recommended only
  when its median beats the script's by more than the noise of both (``clearly_faster``),
  measured like with like; else the script's own settings stay, and the answer says why.
- **The knee, not the peak.** Among the configs that beat the script, the cheapest whose
  median reaches the fastest's within noise, and never further below it than ``KNEE_LOSS``
  (``reaches``), is recommended: the fastest by a margin no probe can resolve is the
  luckiest probe, not the better loader.

The climb (``policy/_climb.py``) asks ``reaches`` too, when it steps back down from the peak to
find the knee, so the search measures the configs this rule can then choose.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from autotune.tuner.evidence._candidates import Candidate
from autotune.tuner.evidence._noise import NOISE_FLOOR, median, relative_spread, sustained

# The most of the fastest rate the pick gives up for a cheaper config, however noisy the
# windows: beyond it a slower config is slower, whatever the noise says.
KNEE_LOSS = 0.05
# Within this share of the fastest, a cheaper config measured in another probe may be as fast:
# on a shared machine one config's probes drift apart by as much (the windows of one probe
# share its conditions and show none of it). Only an interleaved re-measure tells.
NEAR = 0.10


def noise_of(*windows: Sequence[float], margin: float = NOISE_FLOOR) -> float:
    """The relative noise of comparing these runs: the widest of their medians' intervals,
    at least ``margin``."""
    return max([margin, *(relative_spread(w) for w in windows if w)])


def reaches(windows: Sequence[float], best: Sequence[float]) -> bool:
    """``windows`` reach ``best`` within the noise of both, and within ``KNEE_LOSS``: of what
    a long run of ``best`` sustains (``sustained``), not of a bursty loader's median."""
    if not windows or not best:
        return False
    loss = min(noise_of(windows, best), KNEE_LOSS)
    return median(windows) >= sustained(best) * (1 - loss)


def near(windows: Sequence[float], best: Sequence[float]) -> bool:
    """``windows`` of another probe within ``NEAR`` of what ``best`` sustains: may be as
    fast."""
    return bool(windows and best) and median(windows) >= sustained(best) * (1 - NEAR)


def cheapest_near(
    measured: Sequence[Candidate], dearer: Candidate, top: Candidate, base: Candidate | None
) -> Candidate | None:
    """The cheapest config, not the script as written, cheaper than ``dearer`` and ``near``
    ``top``: the knee a re-measure beside the leader must hold, since the pick would take it."""
    return min(
        (
            c
            for c in measured
            if (base is None or c.config != base.config)
            and c.config != dearer.config
            and c.cost() < dearer.cost()
            and near(c.windows, top.windows)
        ),
        key=Candidate.cost,
        default=None,
    )


def clearly_faster(fast: Sequence[float], slow: Sequence[float], margin: float) -> bool:
    """``fast`` beats ``slow`` by more than ``margin`` and the noise of both."""
    if not fast or not slow:
        return bool(fast)
    return median(fast) > median(slow) * (1 + noise_of(fast, slow, margin=margin))


@dataclass(frozen=True)
class Choice:
    winner: Candidate
    fastest: Candidate
    # Why the winner is not the fastest (a knee, or the script as written kept); None when
    # it is.
    why: str | None = None


def _name(c: Candidate) -> str:
    """ "#7 (8 workers, 702 samples/s re-measured)": a figure from a re-measure says so, or it
    reads as a misprint of the search's line for the same trial."""
    again = " re-measured" if c.remeasures else ""
    mid, kept = median(c.windows), sustained(c.windows)
    rate = f"{mid:,.0f} samples/s{again}"
    if kept < mid * (1 - NOISE_FLOOR):
        # Bursty windows: what the pick compared with is what they sustain, not their median.
        rate = f"{kept:,.0f} samples/s sustained{again}, its windows' median {mid:,.0f}"
    return f"#{c.trial} ({c.config.num_workers or 0} workers, {rate})"


def _medians(c: Candidate) -> list[float]:
    return [median(p) for p in c.probes()] or [median(c.windows)]


def probe_drift(cands: Sequence[Candidate]) -> float:
    """The largest gap between two probes' medians of one config: how far the machine moved
    between probes, which no probe's own windows show."""
    gaps = [max(m) / min(m) - 1 for c in cands if len(m := _medians(c)) > 1 and min(m) > 0]
    return max(gaps, default=0.0)


def threads_alone(c: Candidate, base: Candidate) -> bool:
    """``c`` differs from the script as written in torch's threads and nothing else."""
    return c.config != base.config and replace(c.config, threads=base.config.threads) == (
        base.config
    )


def as_written_margin(c: Candidate, base: Candidate, margin: float) -> float:
    """The least gain over the script as written that lets ``c`` replace it: ``margin``, and
    ``NEAR`` where ``c`` changes torch's threads alone. Rounds taken turn about cancel a load
    that slows both configs alike; intra-op threads that span every core lose most to a load
    no probe sees (the host's other guests) and fewer threads least, so under such a load
    every interleaved round favours fewer threads and a quiet minute reverses it (a pick at
    1.08x in two rounds ran 0.77x in long runs: docs/benchmarks.md, "Fewer threads, won by
    8 % in a slow minute"). What one config's probes drift apart by is the noise there."""
    return max(margin, NEAR) if threads_alone(c, base) else margin


def against_written(c: Candidate, base: Candidate, margin: float) -> float:
    """The noise of comparing ``c`` with the script as written. A baseline drawn in several
    processes (``Candidate.drawn``) brings each process's windows as their own: the spread
    between its processes is its rate moving, which ``beats_as_written`` meets by beating
    the fastest of them, not noise to be beaten again on top."""
    own = base.probes() if base.drawn else [base.windows]
    return noise_of(c.windows, *own, margin=as_written_margin(c, base, margin))


def beats_as_written(c: Candidate, base: Candidate, margin: float) -> bool:
    """Every probe of ``c`` beats every probe of the script as written by more than the
    margin and the noise: a change is a cost, and the evidence for it must hold whichever of
    their probes is believed."""
    return min(_medians(c)) > max(_medians(base)) * (1 + against_written(c, base, margin))


def choose(
    candidates: Sequence[Candidate], baseline: Candidate | None, margin: float = NOISE_FLOOR
) -> Choice:
    """The recommendation among ``candidates`` (each with windows), against ``baseline`` (the
    script as written, which may be one of them). ``margin``: the least gain over the script
    that counts (the noise floor, or the drift between probes when larger: the drift between
    the probes of one config seen here counts too)."""
    live = [c for c in candidates if c.windows]
    if not live:
        raise ValueError("nothing to choose from")
    base = baseline if baseline is not None and baseline.windows else None
    if base is not None:
        base = next((c for c in live if c.config == base.config), base)
    # A baseline drawn in several processes drifts by its rate moving (``against_written``).
    drifting = [c for c in [*live, *([base] if base is not None else [])] if not c.drawn]
    margin = max(margin, probe_drift(drifting))
    fastest = max(live, key=lambda c: median(c.windows))
    if base is not None and fastest is not base and not beats_as_written(fastest, base, margin):
        gap = median(fastest.windows) / median(base.windows) - 1
        noise = against_written(fastest, base, margin)
        bar = (
            f"the {noise:.0%} that one config's probes drift apart by, since it changes "
            "torch's threads alone (a load no probe sees slows the script's threads more)"
            if threads_alone(fastest, base)
            else f"the {noise:.0%} its probes and windows vary by"
        )
        return Choice(
            base,
            fastest,
            f"nothing measured is clearly faster than the script as written: the fastest, "
            f"{_name(fastest)}, ran {gap:+.0%} against its {median(base.windows):,.0f} "
            f"samples/s, not beyond {bar} in every probe of the two; its own settings stay",
        )
    beaten = [
        c
        for c in live
        if base is None or c is base or c is fastest or beats_as_written(c, base, margin)
    ]
    if base is not None and fastest is not base:
        beaten = [c for c in beaten if c is not base]
    eligible = [c for c in beaten if c is fastest or reaches(c.windows, fastest.windows)]
    winner = min(eligible, key=Candidate.cost)
    if winner is fastest:
        return Choice(winner, fastest)
    share = median(winner.windows) / sustained(fastest.windows)
    fewer = (fastest.config.num_workers or 0) - (winner.config.num_workers or 0)
    saved = f"{fewer} fewer worker processes" if fewer > 0 else "a cheaper config"
    named = f"#{winner.trial} ({winner.config.num_workers or 0} workers)"
    if share >= 1:
        # The fastest by its windows' median sustains less than the winner runs: a bursty
        # median, not a rate to give anything up for.
        return Choice(
            winner,
            fastest,
            f"{named} reaches the fastest, {_name(fastest)}: its windows' median, "
            f"{median(winner.windows):,.0f} samples/s, is {share:.0%} of the "
            f"{sustained(fastest.windows):,.0f} the fastest's windows sustain together (their "
            f"harmonic mean, what a long run of them delivers); so {saved} and nothing lost",
        )
    return Choice(
        winner,
        fastest,
        f"{named} reaches {share:.0%} of the fastest measured, {_name(fastest)}: within the "
        f"noise, so {saved} for nothing measurable",
    )


def knee_sentence(workers: int, rate: float, line: dict[int, float]) -> str | None:
    """The knee in words: the recommended ``workers`` at ``rate`` beside the counts measured
    on its line (its other settings, another worker count: samples/s), the next fewer and the
    most; None where neither was measured."""
    below = max((n for n in line if n < workers), default=None)
    above = [n for n in line if n > workers]
    if not workers or rate <= 0 or (below is None and not above):
        return None
    said = []
    if below is not None:
        said.append(f"{below} ran {line[below] / rate:.0%} of its rate")
    if above:
        # The next count above and the most measured: the knee's two sides.
        shown = sorted({min(above), max(above)})
        gain = max(line[n] for n in shown) / rate
        if gain <= 1:
            more = "more added nothing"
        elif gain < 1 + NEAR:
            more = f"within the {NEAR:.0%} that two probes of one config drift apart: more added "
            more += "nothing measurable"
        else:
            more = "more ran faster"
        ran = " and ".join(f"{n} ran {line[n] / rate:.0%}" for n in shown)
        said.append(f"{ran} ({more})")
    return f"the knee: {workers} workers; of the worker counts measured beside it, " + (
        " and ".join(said)
    )
