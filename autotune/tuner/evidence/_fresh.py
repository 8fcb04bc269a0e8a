"""Like with like: a fresh, interleaved re-measure of runs taken under different loads.

When the leader and the script as written (or a rival that could still beat the leader)
were measured under different loads (``_load.alike``: one while another process took a core,
the other on a quiet machine), their ratio is no evidence of anything, however far apart
they are. They are re-measured afresh, interleaved A B A B, the search's windows set aside.
If the fresh runs still disagree on the load, only a reading taken under the heavier load
counts (``_load.no_lighter``: a load only takes from a run): a config that beats the script
as written from there is faster, its speedup stated as a lower bound; one that only beats it
from the lighter load is shown faster only where it beat the script in each interleaved
round in which it met the same load as the script or a heavier one (``telling_rounds``; the
speedup is then those rounds'),
else no speedup is stated and the script as written stays the answer
(``Confirmation.incomparable``). A cheaper config's near-tie with the
fastest holds the same way, else the fastest is kept. A leader that changes torch's threads
alone is re-measured so whatever the loads (``threads_plan``), and so is one that changes the
workers alone and gains more than the script's own wait for data could give (``wait_plan``).
"""

from __future__ import annotations

from collections.abc import Callable

from autotune.contract import ProbeResult
from autotune.state import Confirmation
from autotune.tuner.evidence._candidates import (
    Candidate,
    Plan,
    contenders,
    describe_interval,
    measure,
)
from autotune.tuner.evidence._ceiling import changes_step
from autotune.tuner.evidence._diagnosis import INPUT_BOUND_WAIT
from autotune.tuner.evidence._load import alike, load_of, no_lighter
from autotune.tuner.evidence._noise import ci95_median, median
from autotune.tuner.evidence._pick import cheapest_near, choose, threads_alone
from autotune.tuner.evidence._windows import Windows


def unlike_plan(
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
    # The knee joins them: the cheapest config that may be as fast as the leader is the one
    # the pick would take, and a round without it can only pick among dearer ones.
    knee = cheapest_near(measured, leader, leader, base)
    if knee is not None and all(c.config != knee.config for c in chosen):
        chosen.append(knee)
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


def threads_plan(leader: Candidate, base: Candidate | None, margin: float) -> Plan | None:
    """A fresh, interleaved re-measure of the leader and the script as written when the
    leader differs from it in torch's threads alone, however far apart their probes read.
    Intra-op threads that span every core wait on whichever is busy, so the script as
    written moves with whatever else runs between probes: a model-bound script's own 2
    threads ran 10,011-18,487 samples/s in four long runs on a 2-core box, 1 thread
    11,837-14,162, and a baseline probed at 9,589 made 1 thread look 1.4x faster
    (docs/benchmarks.md, "Torch's threads against a baseline of one moment")."""
    if base is None or not threads_alone(leader, base):
        return None
    why = (
        f"#{leader.trial} differs from the script as written only in torch's threads, whose "
        "rate moves with what else uses the cores between probes: both re-measured afresh, "
        "interleaved, twice each"
    )
    return Plan([leader, base], base, True, False, why, margin, fresh=True)


def wait_plan(
    leader: Candidate, measured: list[Candidate], base: Candidate | None, margin: float
) -> Plan | None:
    """A fresh, interleaved re-measure of the leader and the script as written when the
    script is model-bound (it waited for data less than ``INPUT_BOUND_WAIT`` of its time),
    the leader leaves its step as it is (``changes_step``: its workers' count, queue depth
    and persistence alone) and beats it by more than its wait could give back: a script that
    waited in the loader a share w of its time runs about 1 / (1 - w) times faster once
    loading costs nothing, the rest being its step. A gain beyond that and the noise is the
    machine moving between the two probes, or a step that ran slower with loading in its
    own thread: 2 workers of a model-bound script that waited 2 % of its time read 1.31x in
    one search of five, and 1.16x in another, re-measured 0.97x (docs/benchmarks.md, "A gain
    the wait cannot give"). Rounds taken turn about tell which; a gain that holds in them
    stands. Not for loading-bound scripts: there the step itself ran 3x faster once loading
    left its thread (a tutorial CNN whose samples slept 2 ms: 14.7 ms a step with none, 4.5
    with 47 workers), so the bound says nothing, and a re-measure costs a search's worth of
    probes to confirm a gain of 10x."""
    if base is None or base.data_wait is None or not base.windows or not leader.windows:
        return None
    config = leader.config.merged_over(base.config)  # what it left unsaid is the script's own
    if config == base.config or changes_step(config, base.config):
        return None
    if base.config.num_workers and not base.config.persistent_workers:
        # Its rate carries each epoch's restart of its workers (``charge_per_epoch``), which
        # its wait inside the windows leaves out: persistent workers win that back too.
        return None
    wait = max(base.data_wait, 0.0)
    if wait >= INPUT_BOUND_WAIT:
        return None
    most = 1 / (1 - wait)
    gain = median(leader.windows) / median(base.windows)
    if gain <= most * (1 + margin):
        return None
    # The knee joins them: where the gain holds, the pick takes the cheapest that reaches it.
    knee = cheapest_near(measured, leader, leader, base)
    chosen = [leader, *([knee] if knee is not None else []), base]
    names = ", ".join(f"#{c.trial}" for c in chosen)
    why = (
        f"#{leader.trial} ran {gain:.2f}x the script as written, which waited for data "
        f"{wait:.0%} of its time: settings of its workers alone can give back at most "
        f"{most:.2f}x, so the machine moved between the probes or the step ran slower beside "
        f"its loading. {names} re-measured afresh, interleaved, twice each"
    )
    return Plan(chosen, base, True, False, why, margin, fresh=True)


def steady_plan(
    measured: list[Candidate], base: Candidate | None, limit: int, margin: float, load: str
) -> Plan:
    """Under another process's steady load: the ``limit`` fastest configs (at least two) and
    the baseline, re-measured afresh, interleaved, twice each; only those windows are stated.

    There one probe's figure swings far from the next probe's of the same config, and the
    leader is the config whose probe was luckiest: its search windows would state its luck
    and could hide a runner-up that is faster in truth (measured: docs/benchmarks.md,
    "Agreement under load"). Their windows separating within one probe says nothing of the
    next probe, so a leader that won by far is re-measured too."""
    chosen: list[Candidate] = []
    for cand in sorted(measured, key=lambda c: median(c.windows), reverse=True):
        if any(cand.config == c.config for c in chosen):
            continue
        chosen.append(cand)
        if len(chosen) == max(2, limit):
            break
    if base is not None and not any(c.config == base.config for c in chosen):
        chosen.insert(len(chosen) // 2 + 1, base)
    names = ", ".join(f"#{c.trial}" for c in chosen)
    why = (
        f"measured {load}, where one probe's figure moves by far more than its windows show: "
        f"{names} re-measured afresh, interleaved, twice each, and only those windows stated"
    )
    return Plan(chosen, base, True, False, why, margin, fresh=True)


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


def telling_rounds(a: Candidate, b: Candidate, rounds: int) -> list[tuple[Windows, Windows]]:
    """The interleaved rounds that can show ``a`` faster than ``b``: those in which ``a`` ran
    under the same load as ``b`` or a heavier one, each pair measured back to back (none
    unless both were measured in every round, so that the i-th re-measures of the two are
    the same round's)."""
    if len(a.remeasures) != rounds or len(b.remeasures) != rounds:
        return []
    return [
        (x, y)
        for x, y in zip(a.remeasures, b.remeasures, strict=True)
        if alike(x, y) or no_lighter(x, y)
    ]


def confirm_fresh(
    plan: Plan, probe: Callable[[Candidate], ProbeResult], *, rounds: int
) -> Confirmation:
    """Carry out a like-with-like plan: every candidate (the baseline among them) measured
    afresh, interleaved, ``rounds`` times; only these windows count. The cheapest config
    within noise of the fastest wins, and it is only said to beat the script as written
    when the two fresh runs were measured under the same load."""
    candidates, baseline = plan.candidates, plan.baseline
    searched = [(c.windows, c.extra, c.interference, c.runs, c.remeasures) for c in candidates]
    for cand in candidates:
        cand.windows, cand.extra, cand.interference, cand.runs = [], [], None, 0
        cand.remeasures = []
    for _ in range(rounds):
        measure(candidates, probe)
    live = [c for c in candidates if c.windows]
    unmeasured: str | None = None
    if not live:
        # Nothing new to go on (a script whose whole run is over before a re-measure's first
        # window at these settings): the search's own windows decide, under the same rules,
        # rather than the script as written by default, which the search may have measured
        # far below the leader (measured: docs/benchmarks.md, "Figures the code's rules cite").
        for cand, kept in zip(candidates, searched, strict=True):
            cand.windows, cand.extra, cand.interference, cand.runs, cand.remeasures = kept
        live = [c for c in candidates if c.windows]
        unmeasured = "no re-measure produced a window, so the search's own windows decide"
    spent = sum(c.probe_seconds for c in candidates)
    if baseline is not None and all(c is not baseline for c in candidates):
        # The leader runs the script's own settings: its fresh windows are the baseline's.
        baseline = next((c for c in candidates if c.config == baseline.config), baseline)
    base = baseline if baseline is not None and baseline.windows else None
    incomparable: str | None = None
    paired: tuple[float, float] | None = None
    if not live:
        incomparable = "no run of these configs produced a window"
    elif baseline is not None and base is None:
        incomparable = "the script as written produced no window when re-measured"
    winner = fastest = None
    why: str | None = None
    if live:
        choice = choose(live, base, plan.margin)
        winner, fastest, why = choice.winner, choice.fastest, choice.why
        if not comparable(winner, fastest) and not no_lighter(
            winner.readings(), fastest.readings()
        ):
            # The cheaper config's near-tie was read under the lighter load: not shown. The
            # fastest read higher from the heavier one, so it is at least as fast.
            why = (
                f"#{winner.trial} came within noise of #{fastest.trial} only "
                f"{load_of(winner.readings()).text()}, #{fastest.trial} ran "
                f"{load_of(fastest.readings()).text()}: the fastest is kept"
            )
            winner = fastest
        if base is not None and winner is not base and not comparable(winner, base):
            same = telling_rounds(winner, base, rounds)
            if no_lighter(winner.readings(), base.readings()):
                # Choose() has it beating every probe of the script as written; from a load
                # at least as heavy, it is faster, and the ratio understates it.
                lower = (
                    f"#{winner.trial} ran {load_of(winner.readings()).text()}, the script as "
                    f"written {load_of(base.readings()).text()}: faster from the heavier load, "
                    "so the speedup stated is a lower bound"
                )
                why = f"{why}; {lower}" if why else lower
            elif same and all(
                median(w.rates) > median(b.rates) * (1 + plan.margin) for w, b in same
            ):
                # Round by round: where it met the same load as the script or a heavier one.
                paired = (
                    median([r for w, _ in same for r in w.rates]),
                    median([r for _, b in same for r in b.rates]),
                )
                alike_said = (
                    f"#{winner.trial} beat the script as written in every interleaved round "
                    f"in which it ran under the same load or a heavier one ({len(same)} of "
                    f"{rounds}): the speedup stated is from those"
                )
                why = f"{why}; {alike_said}" if why else alike_said
            else:
                incomparable = (
                    f"re-measured, the script as written ran "
                    f"{load_of(base.readings()).text()} and #{winner.trial} "
                    f"{load_of(winner.readings()).text()}"
                )
    if unmeasured is not None:
        why = f"{unmeasured}; {why}" if why else unmeasured
    if incomparable is not None and base is not None:
        # Nothing was shown to beat the script as written: it stays the answer.
        winner, paired = base, None
    if winner is None:
        winner = baseline or candidates[0]
    own = median(winner.windows) if winner.windows else None
    as_written = median(base.windows) if base is not None else None
    return Confirmation(
        winner=winner.trial,
        median=paired[0] if paired else own,
        ci95=list(ci95_median(winner.windows)) if winner.windows else None,
        fastest=fastest.trial if fastest is not None else None,
        baseline_median=paired[1] if paired else as_written,
        probe_seconds=spent,
        candidates=contenders(candidates),
        skipped=False,
        why=plan.why,
        interval=describe_interval(winner) if winner.windows else None,
        fresh=True,
        incomparable=(
            None
            if incomparable is None
            else f"the load would not hold still: {incomparable}; no speedup is stated"
        ),
        choice=why if incomparable is None else None,
    )
