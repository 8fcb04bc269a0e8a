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
the pick, and its three probes are skipped (not where it changes torch's threads alone,
``_fresh.threads_plan``, nor where it gains more than the script's own wait for data could
give, ``_fresh.wait_plan``): the recommendation then carries its own windows' interval.

Like with like first: when the leader and the script as written (or a rival that could still
beat the leader) were measured under different loads (``_load.alike``: one while
another process took a core, the other on a quiet machine), their ratio is no evidence of
anything, however far apart they are. They are re-measured afresh, interleaved A B A B, the
search's windows set aside; if the fresh runs still disagree on the load, only a reading
from the heavier load counts: what beats the script as written from there is faster (the
speedup a lower bound), else no speedup is stated and the script as written stays the
answer (``Confirmation.incomparable``, ``_fresh.py``).

Under another process's steady load (``_load.steady_load``) the leader and the runner-up
are always re-measured afresh with the baseline, twice each, and only those windows are
stated (``_fresh.steady_plan``): one probe's figure there moves by far more than its own
windows show, and the leader is the luckiest probe.

``confirmation_plan`` decides (pure); ``confirm_plan`` carries the plan out (probes only when
the plan says so); ``confirm_study`` does both for a study's measured trials; ``confirm`` is the
unconditional re-measure.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import optuna

from autotune.contract import LoaderConfig, ProbeResult
from autotune.state import Confirmation, baseline_of, usable
from autotune.tuner.evidence._candidates import (
    Candidate,
    Plan,
    contenders,
    describe_interval,
    measure,
    medians_text,
    separated,
)
from autotune.tuner.evidence._draws import draws_rate, draws_text, threads_busy, with_second_draw
from autotune.tuner.evidence._fresh import (
    confirm_fresh,
    steady_plan,
    threads_plan,
    unlike_plan,
    wait_plan,
)
from autotune.tuner.evidence._knee import knee_plan
from autotune.tuner.evidence._load import Load, steady_load
from autotune.tuner.evidence._noise import NOISE_FLOOR, ci95_median, median
from autotune.tuner.evidence._pick import KNEE_LOSS, choose, reaches
from autotune.tuner.evidence._trials import trial_config, trial_result
from autotune.tuner.evidence._windows import of_trial


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


def with_knee(
    chosen: list[Candidate], close: list[Candidate], base: Candidate | None
) -> list[Candidate]:
    """``chosen`` with the knee in the race: the cheapest config (other than the script as
    written, which has its own place) that reaches the leader is the one the pick would take,
    so a limit never leaves it out for a pricier, luckier one."""
    knee = min(
        (
            c
            for c in close
            if (base is None or c.config != base.config) and reaches(c.windows, close[0].windows)
        ),
        key=Candidate.cost,
        default=None,
    )
    if knee is None or knee in chosen or len(chosen) < 2:
        return chosen
    return [*chosen[:-1], knee]


def confirmation_plan(
    pool: list[Candidate],
    baseline: Candidate | None,
    limit: int,
    *,
    drift: float | None = None,
    steady_load: Load | None = None,
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
    unlike = unlike_plan(leader, measured, base, limit, margin)
    if unlike is not None:
        return unlike
    if steady_load is not None and limit >= 1:
        return steady_plan(measured, base, limit, margin, steady_load.text())
    fresh = (
        (threads_plan(leader, base, margin) or wait_plan(leader, measured, base, margin))
        if limit >= 1
        else None
    )
    plan = fresh or knee_plan(measured, leader, base, limit, margin)
    if plan is not None:
        return plan
    pct = f"{margin:.0%}"
    apart = f"no slowest window of one beats the other's fastest by {pct}"
    if limit >= 2 and len(close) > 1:
        chosen = with_knee(close[:limit], close, base)
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
                f"the windows of {names} overlap ({medians_text(chosen)}: {apart}), and "
                f"#{leader.trial}, the fastest and the cheapest, overlaps the baseline's "
                f"({medians_text([base] if base is not None else [])}): both re-measured "
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
                f"the windows of {names} overlap ({medians_text(chosen)}: {apart}), "
                "and the baseline's with them: "
                "re-measured interleaved" + (", with the baseline" if again else ""),
                margin,
            )
        # A tie well above the baseline: a re-measure would only split it, and the cheaper
        # config is preferred within noise anyway.
        return Plan(
            chosen,
            base,
            False,
            False,
            f"the windows of {names} overlap ({medians_text(chosen)}: {apart}), all clearly "
            "above the baseline: no re-measure (it would only split them); the pick is the "
            f"cheapest that reaches the fastest within noise (at most {KNEE_LOSS:.0%} below it), "
            "else the fastest",
            margin,
        )
    leader_is_base = base is not None and (leader is base or leader.config == base.config)
    if base is not None and not leader_is_base and not separated(leader, base, margin):
        return Plan(
            [leader],
            base,
            True,
            True,
            f"#{leader.trial}'s windows overlap the baseline's "
            f"({medians_text([leader, base])}: {apart}): both re-measured interleaved",
            margin,
        )
    if len(close) > 1:  # a close race, but limit < 2 re-measures no race
        why = (
            f"#{leader.trial}'s windows overlap #{close[1].trial}'s "
            f"({medians_text(close[:2])}), but a limit of "
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
        return confirm_fresh(plan, probe, rounds=plan.rounds or max(2, rounds))
    if plan.remeasure:
        runs = [*candidates]
        extra = baseline if plan.remeasure_baseline else None
        if extra is not None:
            runs.insert(len(candidates) // 2 + 1, extra)
        for _ in range(rounds):
            measure(runs, probe)
            if extra is not None and extra in runs:
                runs.remove(extra)  # once is enough for the speedup's denominator
    again = False
    if plan.baseline_again and baseline is not None:
        measure([baseline], probe)
        baseline.drawn = again = True
    choice = choose(candidates, baseline, plan.margin)
    winner = choice.winner
    lo, hi = ci95_median(winner.windows)
    spent = [*candidates, *([baseline] if baseline is not None else [])]
    return Confirmation(
        winner=winner.trial,
        median=median(winner.windows),
        ci95=[lo, hi],
        fastest=choice.fastest.trial,
        baseline_median=(draws_rate(baseline) if again else median(baseline.windows))
        if baseline and baseline.windows
        else None,
        probe_seconds=sum(c.probe_seconds for c in {id(c): c for c in spent}.values()),
        candidates=contenders(candidates),
        skipped=plan.skipped,
        why=plan.why,
        interval=describe_interval(winner),
        choice=choice.why,
        draws=draws_text(baseline) if again and baseline else None,
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
    result = trial_result(trial) or ProbeResult()
    return Candidate(
        trial.number,
        trial_config(trial),
        list(seen.rates),
        peak_rss=result.peak_rss_bytes or 0,
        interference=seen,
        data_wait=result.data_wait_fraction,
        threads_busy=threads_busy(result),
    )


# Why a confirmation that needed re-measures ran none.
UNCONFIRMED = "the budget is spent: no re-measure, the pick is from the search's own windows"


def confirm_study(
    study: optuna.Study,
    probe: Callable[[LoaderConfig | None], ProbeResult],
    top: int,
    note: Callable[[str], None],
    *,
    may_probe: bool = True,
) -> Confirmation | None:
    """Plan and carry out the confirmation of a study's measured trials; None when nothing was
    measured in windows. ``probe(None)`` runs the script as written. Not ``may_probe`` (the
    search's time is spent): the pick comes from the search's own windows, said so."""
    trials = study.get_trials(deepcopy=False)
    pool = [_candidate(t) for t in trials if usable(t)]
    baseline = baseline_of(trials)
    base = next((c for c in pool if baseline is not None and c.trial == baseline.number), None)
    plan = confirmation_plan(pool, base, top, steady_load=steady_load(trials))
    if not plan.candidates:
        return None
    plan = with_second_draw(plan, base)
    if not may_probe and (plan.remeasure or plan.fresh or plan.baseline_again):
        plan = replace(
            plan,
            remeasure=False,
            remeasure_baseline=False,
            fresh=False,
            baseline_again=False,
            why=UNCONFIRMED,
        )
    note(f"  confirmation: {plan.why}")
    result = confirm_plan(plan, lambda cand: probe(None if cand is base else cand.config))
    if result.probe_seconds and result.candidates:
        note(f"  re-measured: {remeasured_text(result)}")
    return result


def remeasured_text(result: Confirmation) -> str:
    """What a confirmation's re-measures read, each config's median over its fresh windows:
    the figures the answer's choice quotes, which no trial line shows."""
    parts = []
    for c in result.candidates:
        workers = c.config.get("num_workers") or 0
        rate = f"{c.median:,.0f} samples/s" if c.median is not None else "no figure"
        parts.append(f"#{c.trial} ({workers} workers) {rate}")
    counted = "each one's median over the windows that count"
    return f"{', '.join(parts)} ({counted}); the pick: #{result.winner}"
