"""Confirmation: re-measure the top configs interleaved, only when that can change the pick.

One lucky probe never decides whether there is a gain at all. When the leader is within noise
of the script as written, the leaders and the baseline are re-run A B C (base) ..., so drift on
a shared machine hits them alike; their windows are pooled; the winner is the cheapest config
whose median is within noise of the fastest. Leaders within noise of each other but clearly
above the baseline are a tie on a plateau: the cheapest of them is recommended without probes,
since a re-measure could only split a tie that noise already calls even. When the fastest
leader is also the cheapest, only it and the baseline are re-measured: the tie among the
leaders is already its on both counts.

When one config wins by far more than the noise (its slowest window beats every other
config's fastest window by the margin, the baseline's included), a re-measure cannot change
the pick, and its three probes are skipped: the recommendation then carries the interval of
its own windows, and says so.

Like with like first: when the leader and the script as written (or a rival that could still
beat the leader) were measured under different loads (``_interference.alike``: one while
another process took a core, the other on a quiet machine), their ratio is no evidence of
anything, however far apart they are. They are re-measured afresh, interleaved A B A B, the
search's windows set aside; if the fresh runs still disagree on the load, no speedup is
stated and the script as written stays the answer (``Confirmation.incomparable``).

``confirmation_plan`` decides (pure); ``confirm_plan`` carries the plan out (probes only when
the plan says so); ``confirm_study`` does both for a study's measured trials; ``confirm`` is the
unconditional re-measure.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import optuna

from autotune.contract import LoaderConfig, ProbeResult
from autotune.state import Confirmation, Contender, baseline_of, usable
from autotune.tuner._interference import (
    Windows,
    alike,
    load_of,
    of_result,
    of_trial,
    steady_load,
    to_record,
    unread,
)
from autotune.tuner._noise import NOISE_FLOOR, ci95_median, median, relative_spread
from autotune.tuner._records import trial_config, trial_result


@dataclass
class Candidate:
    trial: int
    config: LoaderConfig
    windows: list[float]
    peak_rss: int = 0
    runs: int = 1
    probe_seconds: float = 0.0
    extra: list[list[float]] = field(default_factory=list)
    # The outside cores of each window (probe/_interference.py), when read.
    interference: Windows | None = None
    # Each re-measure's own windows and readings, in the order they ran.
    remeasures: list[Windows] = field(default_factory=list)

    def readings(self) -> Windows:
        """``windows`` with their interference readings (unread where they do not match)."""
        found = self.interference
        return found if found is not None and found.rates == self.windows else unread(self.windows)

    def cost(self) -> tuple[int, int, int, int]:
        """Cheaper first: fewer workers, fewer batches held in memory, fewer streams."""
        c = self.config
        workers = c.num_workers or 0
        return (workers, workers * (c.prefetch_factor or 0), c.num_streams or 0, self.peak_rss)


def separated(fast: Candidate, slow: Candidate, margin: float = NOISE_FLOOR) -> bool:
    """Every window of ``fast`` beats every window of ``slow`` by more than ``margin``."""
    return min(fast.windows) > max(slow.windows) * (1 + margin)


def drift_between_probes(pool: Sequence[Candidate]) -> float | None:
    """Largest relative gap between the medians of two probes of one config, if any repeat.

    Windows of one probe share its conditions; two probes of the same config minutes apart
    show how far the machine itself moves (10-47 % on a busy 2-core box). None when no
    config was probed twice.
    """
    worst: float | None = None
    for i, a in enumerate(pool):
        for b in pool[i + 1 :]:
            if a.config != b.config or not a.windows or not b.windows:
                continue
            lo, hi = sorted((median(a.windows), median(b.windows)))
            if lo > 0:
                gap = hi / lo - 1
                worst = gap if worst is None else max(worst, gap)
    return worst


def _medians(cands: Sequence[Candidate]) -> str:
    """ "medians 8,838 and 8,267 samples/s": the figures a sentence about closeness is of."""
    said = [f"{median(c.windows):,.0f}" for c in cands if c.windows]
    if len(said) == 1:
        return f"median {said[0]} samples/s"
    return f"medians {', '.join(said[:-1])} and {said[-1]} samples/s"


def pick(candidates: list[Candidate], limit: int, margin: float = NOISE_FLOOR) -> list[Candidate]:
    """The best ``limit`` distinct configs that could still be the fastest."""
    ranked = sorted(
        (c for c in candidates if c.windows), key=lambda c: median(c.windows), reverse=True
    )
    chosen: list[Candidate] = []
    for cand in ranked:
        if any(cand.config == c.config for c in chosen):
            continue
        if chosen and separated(chosen[0], cand, margin):
            break  # clearly slower than the leader: re-measuring it cannot change the pick
        chosen.append(cand)
        if len(chosen) == limit:
            break
    return chosen


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

    @property
    def skipped(self) -> bool:
        return not self.remeasure


def confirmation_plan(
    pool: list[Candidate],
    baseline: Candidate | None,
    limit: int,
    *,
    drift: float | None = None,
    steady_load: bool = False,
) -> Plan:
    """Re-measure only when it could change the recommendation or the speedup.

    The margin is the noise floor, or the drift between probes when larger (``drift``
    given, or read off configs the study probed twice). Re-measure when the leader is not
    ``separated`` from the baseline: with the top ``limit`` configs when others are close to
    it, else the leader alone (with the baseline). Configs close to each other but clearly
    above the baseline are a tie, decided by cost without probes. Skip otherwise.
    """
    measured = [c for c in pool if c.windows]
    base = baseline if baseline is not None and baseline.windows else None
    margin = max(NOISE_FLOOR, drift or 0.0, drift_between_probes(measured) or 0.0)
    if not measured:
        return Plan([], base, False, False, "nothing was measured", margin)
    close = pick(measured, len(measured), margin)
    leader = close[0]
    unlike = _unlike_plan(leader, measured, base, limit, margin)
    if unlike is not None:
        return unlike
    pct = f"{margin:.0%}"
    if limit >= 2 and len(close) > 1:
        chosen = close[:limit]
        in_round = base is not None and any(c is base or c.config == base.config for c in chosen)
        again = base is not None and not in_round and not separated(leader, base, margin)
        names = ", ".join(f"#{c.trial}" for c in chosen)
        if again and min(chosen, key=Candidate.cost) is leader:
            # The tie among the leaders goes to the leader on cost as well as speed; only
            # its gain over the script as written is in question.
            return Plan(
                [leader],
                base,
                True,
                True,
                f"the windows of {names} overlap within {pct} ({_medians(chosen)}), and "
                f"#{leader.trial}, the fastest and the cheapest, overlaps the baseline's "
                f"({_medians([base] if base is not None else [])}): both re-measured "
                "interleaved",
                margin,
            )
        if in_round or again:
            # Whether there is any gain over the script as written is in question.
            return Plan(
                chosen,
                base,
                True,
                again,
                f"the windows of {names} overlap within {pct} ({_medians(chosen)}), "
                "and the baseline's with them: "
                "re-measured interleaved" + (", with the baseline" if again else ""),
                margin,
            )
        if steady_load:
            # Under another process's steady load one probe's windows swing by a quarter or
            # more: a "tie" is then as likely a trend the noise hid (6 workers at 857
            # samples/s, 48 at 1,454, beside one spinning core), so it is re-measured.
            return Plan(
                chosen,
                base,
                True,
                False,
                f"the windows of {names} overlap within {pct} ({_medians(chosen)}) under a "
                "steady load, whose noise can hide a trend: re-measured interleaved",
                margin,
            )
        # A tie well above the baseline: a re-measure would only split it, and the cheaper
        # config is preferred within noise anyway.
        return Plan(
            chosen,
            base,
            False,
            False,
            f"the windows of {names} overlap within {pct} ({_medians(chosen)}), all clearly "
            "above the baseline: a tie, "
            f"decided without a re-measure for the cheapest within {NOISE_FLOOR:.0%} of the "
            "fastest",
            margin,
        )
    leader_is_base = base is not None and (leader is base or leader.config == base.config)
    if base is not None and not leader_is_base and not separated(leader, base, margin):
        return Plan(
            [leader],
            base,
            True,
            True,
            f"#{leader.trial}'s windows overlap the baseline's within {pct} "
            f"({_medians([leader, base])}): both re-measured interleaved",
            margin,
        )
    if len(close) > 1:  # a close race, but limit < 2 re-measures no race
        why = (
            f"#{leader.trial}'s windows overlap #{close[1].trial}'s within {pct} "
            f"({_medians(close[:2])}), but a limit of "
            f"{limit} re-measures no race: decided from the search's windows"
        )
    elif all(c.config == leader.config for c in measured):
        why = f"only #{leader.trial}'s config was measured: nothing to re-measure against"
    else:
        vs = "every other config" + ("" if leader_is_base or base is None else " and the baseline")
        why = (
            f"#{leader.trial}'s slowest window beats {vs} by more than {pct}: "
            "a re-measure cannot change the pick"
        )
    return Plan([leader], base, False, False, why, margin)


def _unlike_plan(
    leader: Candidate,
    measured: list[Candidate],
    base: Candidate | None,
    limit: int,
    margin: float,
) -> Plan | None:
    """A fresh, interleaved re-measure when the leader and the baseline, or the leader and
    a rival, were measured under different loads; None when every comparison is like with
    like. A rival measured under another load could have been slowed, or helped, by it:
    the fastest such rivals (up to ``limit`` configs with the leader) go into the round.
    The baseline is a candidate too: the cheapest within noise of the fastest wins."""
    lead = leader.readings()
    is_base = base is not None and leader.config == base.config
    rivals: list[Candidate] = []
    for cand in sorted(measured, key=lambda c: median(c.windows), reverse=True):
        taken = [leader, *rivals, *([base] if base is not None else [])]
        if any(cand.config == c.config for c in taken):
            continue
        if not alike(cand.readings(), lead):
            rivals.append(cand)
    base_unlike = base is not None and not is_base and not alike(base.readings(), lead)
    if not base_unlike and not rivals:
        return None
    chosen = [leader, *rivals][: max(1, limit)]
    if base is not None and not is_base:
        chosen.insert(len(chosen) // 2 + 1, base)
    other = base if base_unlike and base is not None else rivals[0]
    name = f"#{other.trial}" + (" (the script as written)" if other is base else "")
    why = (
        f"{name} was measured {load_of(other.readings()).text()}, "
        f"#{leader.trial} {load_of(lead).text()}: not a comparison. "
        f"{', '.join(f'#{c.trial}' for c in chosen)} re-measured afresh, interleaved, twice each"
    )
    return Plan(chosen, base, True, False, why, margin, fresh=True)


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


def _measure(runs: list[Candidate], probe: Callable[[Candidate], ProbeResult]) -> None:
    for cand in runs:
        result = probe(cand)
        cand.probe_seconds += result.wall_s or 0.0
        if result.ok and result.windows:
            cand.remeasures.append(of_result(result))
            cand.interference = cand.readings().plus(of_result(result))
            cand.windows.extend(result.windows)
            cand.extra.append(result.windows)
            cand.runs += 1
            if result.peak_rss_bytes:
                cand.peak_rss = max(cand.peak_rss, result.peak_rss_bytes)


def confirm_plan(
    plan: Plan,
    probe: Callable[[Candidate], ProbeResult],
    *,
    rounds: int = 1,
) -> Confirmation:
    """Carry out ``plan``: probe (interleaved) only when it says so, then recommend.

    Keys: winner, median, ci95, fastest, baseline_median, probe_seconds, candidates (as
    before), and skipped, why, interval. ``baseline_median`` is the baseline's own median:
    re-measured windows included when it was re-run, its search-time windows otherwise.
    """
    candidates, baseline = plan.candidates, plan.baseline
    if not candidates:
        raise ValueError("nothing to confirm")
    if plan.fresh:
        return _confirm_fresh(plan, probe, rounds=max(2, rounds))
    if plan.remeasure:
        runs = [*candidates]
        extra = baseline if plan.remeasure_baseline else None
        if extra is not None:
            runs.insert(len(candidates) // 2 + 1, extra)
        for _ in range(rounds):
            _measure(runs, probe)
            if extra is not None and extra in runs:
                runs.remove(extra)  # once is enough for the speedup's denominator
    top = max(candidates, key=lambda c: median(c.windows))
    tolerance = min(relative_spread(top.windows), NOISE_FLOOR)
    eligible = [c for c in candidates if median(c.windows) >= median(top.windows) * (1 - tolerance)]
    winner = min(eligible, key=Candidate.cost)
    lo, hi = ci95_median(winner.windows)
    spent = [*candidates, *([baseline] if baseline is not None else [])]
    return Confirmation(
        winner=winner.trial,
        median=median(winner.windows),
        ci95=[lo, hi],
        fastest=top.trial,
        baseline_median=median(baseline.windows) if baseline is not None else None,
        probe_seconds=sum(c.probe_seconds for c in {id(c): c for c in spent}.values()),
        candidates=_contenders(candidates),
        skipped=plan.skipped,
        why=plan.why,
        interval=describe_interval(winner),
    )


def _contenders(candidates: list[Candidate]) -> list[Contender]:
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


def comparable(a: Candidate, b: Candidate) -> bool:
    """Two re-measured configs whose ratio means something: measured under the same load, or
    each under its own load in every interleaved round. A load that followed the settings
    through rounds taken turn about, and not the clock, comes with the settings (a loader's
    own kernel threads, its storage's daemons): it is part of what they cost."""
    if a is b or alike(a.readings(), b.readings()):
        return True
    kinds_a = {load_of(w).kind for w in a.remeasures}
    kinds_b = {load_of(w).kind for w in b.remeasures}
    steady = len(a.remeasures) >= 2 and len(b.remeasures) >= 2
    return (
        steady and len(kinds_a) == 1 and len(kinds_b) == 1 and "changing" not in kinds_a | kinds_b
    )


def _confirm_fresh(
    plan: Plan, probe: Callable[[Candidate], ProbeResult], *, rounds: int
) -> Confirmation:
    """Carry out a like-with-like plan: every candidate (the baseline among them) measured
    afresh, interleaved, ``rounds`` times; only these windows count. The cheapest config
    within noise of the fastest wins, and it is only said to beat the script as written
    when the two fresh runs were measured under the same load."""
    candidates, baseline = plan.candidates, plan.baseline
    for cand in candidates:
        cand.windows, cand.extra, cand.interference, cand.runs = [], [], None, 0
        cand.remeasures = []
    for _ in range(rounds):
        _measure(candidates, probe)
    live = [c for c in candidates if c.windows]
    spent = sum(c.probe_seconds for c in candidates)
    if baseline is not None and all(c is not baseline for c in candidates):
        # The leader runs the script's own settings: its fresh windows are the baseline's.
        baseline = next((c for c in candidates if c.config == baseline.config), baseline)
    base = baseline if baseline is not None and baseline.windows else None
    incomparable: str | None = None
    if not live:
        incomparable = "no re-measure produced a window"
    elif baseline is not None and base is None:
        incomparable = "the script as written produced no window when re-measured"
    winner = fastest = None
    if live:
        fastest = max(live, key=lambda c: median(c.windows))
        tolerance = min(relative_spread(fastest.windows), NOISE_FLOOR)
        floor = median(fastest.windows) * (1 - tolerance)
        eligible = [c for c in live if median(c.windows) >= floor]
        winner = min(eligible, key=Candidate.cost)
        if not comparable(winner, fastest):
            incomparable = (
                f"#{fastest.trial} was re-measured {load_of(fastest.readings()).text()}, "
                f"#{winner.trial} {load_of(winner.readings()).text()}"
            )
        elif base is not None and winner is not base and not comparable(winner, base):
            incomparable = (
                f"re-measured, the script as written ran {load_of(base.readings()).text()} "
                f"and #{winner.trial} {load_of(winner.readings()).text()}"
            )
    if incomparable is not None and base is not None:
        # Nothing was shown to beat the script as written: it stays the answer.
        winner = base
    if winner is None:
        winner = baseline or candidates[0]
    return Confirmation(
        winner=winner.trial,
        median=median(winner.windows) if winner.windows else None,
        ci95=list(ci95_median(winner.windows)) if winner.windows else None,
        fastest=fastest.trial if fastest is not None else None,
        baseline_median=median(base.windows) if base is not None else None,
        probe_seconds=spent,
        candidates=_contenders(candidates),
        skipped=False,
        why=plan.why,
        interval=describe_interval(winner) if winner.windows else None,
        fresh=True,
        incomparable=(
            None
            if incomparable is None
            else f"the load would not hold still: {incomparable}; no speedup is stated"
        ),
    )


def confirm(
    candidates: list[Candidate],
    baseline: Candidate | None,
    probe: Callable[[Candidate], ProbeResult],
    *,
    rounds: int = 1,
) -> Confirmation:
    """Re-measure ``candidates`` and the baseline interleaved, unconditionally."""
    plan = Plan(
        candidates,
        baseline,
        True,
        baseline is not None and not any(c is baseline for c in candidates),
        "re-measured interleaved" + (" with the baseline" if baseline is not None else ""),
    )
    return confirm_plan(plan, probe, rounds=rounds)


def _candidate(trial: optuna.trial.FrozenTrial) -> Candidate:
    seen = of_trial(trial)
    return Candidate(
        trial.number,
        trial_config(trial),
        list(seen.rates),
        peak_rss=(trial_result(trial) or ProbeResult()).peak_rss_bytes or 0,
        interference=seen,
    )


def confirm_study(
    study: optuna.Study,
    probe: Callable[[LoaderConfig | None], ProbeResult],
    top: int,
    note: Callable[[str], None],
) -> Confirmation | None:
    """Plan and carry out the confirmation of a study's measured trials; None when nothing was
    measured in windows. ``probe(None)`` runs the script as written."""
    trials = study.get_trials(deepcopy=False)
    pool = [_candidate(t) for t in trials if usable(t)]
    baseline = baseline_of(trials)
    base = next((c for c in pool if baseline is not None and c.trial == baseline.number), None)
    plan = confirmation_plan(pool, base, top, steady_load=steady_load(trials) is not None)
    if not plan.candidates:
        return None
    note(f"  confirmation: {plan.why}")
    return confirm_plan(plan, lambda cand: probe(None if cand is base else cand.config))
