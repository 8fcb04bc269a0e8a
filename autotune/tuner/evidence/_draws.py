"""The script as written, drawn twice: a baseline whose rate is one draw of its process.

Intra-op threads that keep every core busy wait at each op's barrier for whichever thread the
machine delays, and on a shared box one process of such a script keeps one rate for most of its
life and the next process another: ``examples/cpu_bound.py`` as written (0 workers, torch's 2
threads on a 2-vCPU VM) ran 311-657 samples/s from one run to the next, most runs steady within
10 % over their epochs, a few moving from one rate to the other; with 1 thread 469-599
(docs/benchmarks.md, "The script as written, one draw of two"). A baseline probe is one such
process, and its windows agree with each other however far its process is from the next: a
speedup over it was stated at 2.74x where long runs gave 1.92x. So where the script as written
ran more than one core's worth of intra-op work in its main process (``threads_busy``) and
confirmation would not measure it again, it is measured once more in a fresh process: the
speedup's denominator is then the median of the processes' figures (``draws_rate``), and each
figure is said.
"""

from __future__ import annotations

from dataclasses import replace

from autotune.contract import ProbeResult
from autotune.tuner.evidence._candidates import Candidate, Plan
from autotune.tuner.evidence._noise import median
from autotune.tuner.evidence._windows import tree_cores


def threads_busy(result: ProbeResult) -> bool:
    """The probe's main process ran torch with more than one intra-op thread and used more
    than one core on average while measuring: more than a single thread could use, so its
    intra-op threads ran side by side (and waited for each other)."""
    threads = result.torch_threads or 0
    return threads > 1 and bool(result.measured_wall_s) and tree_cores(result, main_only=True) > 1


def with_second_draw(plan: Plan, base: Candidate | None) -> Plan:
    """``plan``, with the script as written measured once more afresh where its baseline is
    one draw (``threads_busy``), a config other than it leads, and the plan would not
    measure it again."""
    if base is None or not base.threads_busy or plan.fresh or plan.remeasure_baseline:
        return plan
    if not plan.candidates or any(c.config == base.config for c in plan.candidates):
        return plan
    why = (
        f"{plan.why}; the script as written kept more than one core busy with torch's "
        "threads, so one process of it is one draw of its rate: measured once more, afresh"
    )
    return replace(plan, baseline_again=True, why=why)


def draws_rate(base: Candidate) -> float:
    """The script as written's rate over its processes: the median of each one's median,
    every process one draw whatever its count of windows."""
    return median([median(p) for p in base.probes()])


def draws_text(base: Candidate) -> str:
    """ "the script as written ran 383 then 611 samples/s in two processes (...)" """
    said = [f"{median(p):,.0f}" for p in base.probes()]
    return (
        f"the script as written ran {' then '.join(said)} samples/s in {len(said)} processes "
        "(torch's threads over every core: each process is one draw of its rate); the speedup "
        f"is over their median, {draws_rate(base):,.0f}"
    )
