"""The knee's re-measure: the fastest config and the cheapest one near it, afresh, back to
back, when the search's own windows cannot say whether the cheaper one reaches the fastest."""

from __future__ import annotations

from autotune.tuner.evidence._candidates import Candidate, Plan, medians_text, separated
from autotune.tuner.evidence._noise import median, sustained
from autotune.tuner.evidence._pick import NEAR, cheapest_near, reaches


def knee_plan(
    measured: list[Candidate],
    leader: Candidate,
    base: Candidate | None,
    limit: int,
    margin: float,
) -> Plan | None:
    """The fastest and the cheapest config ``near`` it, re-measured afresh back to back, when
    the search's windows cannot say whether the cheaper one reaches the fastest: each was
    measured in its own probe, and probes drift apart by more than their windows show (20
    workers read 217 samples/s, 10 read 198, where a storage limit bound both near 200).
    Back to back, both see the same machine; the pick (``_pick.choose``) then takes the
    cheaper where it reaches the fastest. The knee is held against the fastest itself, never
    against a config that only reached it across probes: each such step may give up ``NEAR``,
    and two of them took 38 workers at 0.80 of 128's long-run rate. The cheapest config that
    reached the fastest in the search (its stand-in) joins the round, so a knee that falls
    short leaves the cheaper of the two that hold, not the fastest by default. The baseline
    joins where the fastest's gain over it is in question. None where there is no such
    config, or it already reaches."""
    fastest = leader
    is_base = base is not None and fastest.config == base.config
    if limit < 2 or is_base or not fastest.config.num_workers:
        return None
    knee = cheapest_near(measured, fastest, fastest, base)
    if knee is None or reaches(knee.windows, fastest.windows):
        return None  # the pick takes it on the search's windows
    stand_in = min(
        (
            c
            for c in measured
            if (base is None or c.config != base.config)
            and c.config not in (fastest.config, knee.config)
            and c.cost() < fastest.cost()
            and reaches(c.windows, fastest.windows)
        ),
        key=Candidate.cost,
        default=None,
    )
    chosen = [fastest, *([stand_in] if stand_in is not None else []), knee]
    if base is not None and not separated(fastest, base, margin):
        chosen.append(base)
    # What ``near`` compared: the knee's median against what the fastest sustains.
    kept = sustained(fastest.windows)
    share = median(knee.windows) / kept
    also = (
        ""
        if stand_in is None
        else f" #{stand_in.trial} ({stand_in.config.num_workers or 0} workers) reached it "
        "only across probes, so it joins them."
    )
    why = (
        f"#{knee.trial} ({knee.config.num_workers or 0} workers) ran {share:.0%} of what the "
        f"fastest, #{fastest.trial} ({fastest.config.num_workers or 0} workers), sustains "
        f"({kept:,.0f} samples/s), in its own probe ({medians_text([fastest, knee])}): "
        f"within the {NEAR:.0%} that probes drift apart.{also} "
        f"{', '.join(f'#{c.trial}' for c in chosen)} re-measured afresh, back to back"
    )
    return Plan(chosen, base, True, False, why, margin, fresh=True, rounds=1)
