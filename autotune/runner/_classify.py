"""How a probe ended, read from what it left: its result file, windows, exit code and log."""

from __future__ import annotations

import dataclasses
import signal
import statistics
from collections.abc import Sequence
from typing import Any

from autotune._words import storable
from autotune.contract import ProbeResult, Status
from autotune.runner._group import Ending, Member
from autotune.runner._process import last_error_line, tail_of


def classify(member: Member, ending: Ending, timeout_s: float) -> ProbeResult:
    """The result of the probe ``member`` ran, once its process group is gone.

    A pruned probe's result file is not read: its windows so far are the trial's figures.
    Every string in it is storable (``autotune._words.storable``): reasons, the output's
    tail and class names come from the script, and a lone surrogate or a NUL in them would
    fail the store's write after the probe.
    """
    return _storable(_classify(member, ending, timeout_s))


def _storable(result: ProbeResult) -> ProbeResult:
    for field in dataclasses.fields(result):
        value = getattr(result, field.name)
        if isinstance(value, (str, dict, list)):
            setattr(result, field.name, _clean(value))
    return result


def _clean(value: Any) -> Any:
    if isinstance(value, str):
        return storable(value)
    if isinstance(value, dict):
        return {_clean(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


def clearly_slower(windows: Sequence[float]) -> str:
    n = len(windows)
    return f"stopped after {n} window{'' if n == 1 else 's'}: clearly slower than best"


def cut_short(windows: Sequence[float], status: Status, reason: str) -> ProbeResult:
    """The result of a run stopped before it reported: the windows it closed, their median.
    One builder for a probe (``_classify``) and a live run's segment (``LiveRun.segment``)."""
    res = ProbeResult(status=status, reason=reason, windows=list(windows))
    if windows:
        res.samples_per_s = statistics.median(windows)
    return res


def _classify(member: Member, ending: Ending, timeout_s: float) -> ProbeResult:
    rc = member.exit_code
    progress = member.progress
    tail = tail_of(member.log_path)
    wall = ending.wall_s
    if member.result_path.exists() and not ending.pruned:
        res = ProbeResult.read(member.result_path)
        res.exit_code, res.stderr_tail, res.wall_s = rc, tail, wall
        if res.status == "crashed" and not res.reason:
            res.reason = last_error_line(tail)
        return res
    res = cut_short(progress.windows, "crashed", "")
    res.exit_code, res.stderr_tail, res.wall_s = rc, tail, wall
    if ending.pruned:
        res.status = "pruned"
        res.reason = clearly_slower(progress.windows)
    elif ending.timed_out:
        res.status = "hung"
        res.reason = (
            f"no result within the trial timeout of {timeout_s:.0f}s "
            f"({len(progress.windows)} windows measured); the process tree was killed. "
            "If the script is only slow to start, raise --trial-timeout"
        )
    elif rc == -signal.SIGKILL:
        res.status = "oom"
        res.reason = (
            "killed by SIGKILL with no result: most likely the kernel's out-of-memory "
            "killer; fewer workers or a smaller prefetch_factor use less memory"
        )
    elif rc != 0:
        res.status = "crashed"
        err = last_error_line(tail)
        res.reason = f"exit code {rc}" + (f": {err}" if err else "")
    else:
        res.status = "ended_early"
        res.reason = "the script exited without the probe's report (os._exit?)"
    return res
