"""Two ceilings, measured once per study in one probe, and kept honest.

- The compute ceiling: the step replaying cached batches, with no data cost.
- The transport ceiling: what the loader's own machinery (workers, collate, batch size,
  pinning) delivers with zero-cost samples and no step, with 0 workers and with several.

No loader setting can pass the lower of the two; efficiency is stated against it. The compute
ceiling is the script's own step, so it bounds only the settings that leave that step as it is
(``changes_step``). A measured run of such a setting that passes the compute ceiling proves
that probe unlucky (a noisy machine): it is measured once more, and dropped if it is still
disproved, so that no stop rule or efficiency rests on a wrong bound. Windows measured while
another process used the cores are never that evidence (``_windows.evidence``): they say
more about the other process than the bound.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import optuna
from optuna.trial import FrozenTrial, TrialState

from autotune import state
from autotune.contract import CEILING_GAP, LoaderConfig, Mode, ProbeResult
from autotune.state import Ceiling, role, usable
from autotune.tuner.evidence._noise import median, relative_spread
from autotune.tuner.evidence._trials import trial_config
from autotune.tuner.evidence._windows import (
    evidence,
    of_ceiling,
    of_record,
    of_result,
    of_trial,
    to_record,
    unread,
)

MAX_CEILING_GAP = CEILING_GAP

Probe = Callable[[LoaderConfig, Mode], ProbeResult]
Note = Callable[[str], None]


def ceiling_windows(ceiling: Ceiling | None) -> list[float]:
    """The compute ceiling's windows, as a bound: none when most were measured while another
    process used the cores (a figure that low says more about that process than the step)."""
    return list(ceiling.windows) if ceiling is not None and _trusted(ceiling) else []


def _trusted(ceiling: Ceiling | None) -> bool:
    windows = of_record(ceiling)
    return not windows.rates or bool(evidence(windows))


def ceiling_rate(ceiling: Ceiling | None) -> float | None:
    value = ceiling.samples_per_s if ceiling is not None else None
    return float(value) if value else None


def transport_rate(ceiling: Ceiling | None, workers: int, cpu_count: int) -> float | None:
    """What the loader's own machinery delivers with zero-cost samples for a config with
    ``workers``, when that was measured: the in-process figure for 0 workers; for more, the
    figure measured through N workers, which bounds any count up to N, and any count at all
    once N covers the cores (zero-cost samples make the transport CPU work, which more
    processes than cores cannot speed up). None where no figure bounds the config."""
    by_workers = (ceiling.transport_by_workers if ceiling is not None else None) or {}
    if workers == 0:
        value = by_workers.get(0)
    else:
        top = max((n for n in by_workers if n), default=0)
        value = by_workers.get(top) if top and (workers <= top or top >= cpu_count) else None
    return float(value) if value else None


def missing(ceiling: Ceiling | None) -> dict[str, str]:
    """Why each ceiling the study tried to measure has no figure ("compute", "transport")."""
    out: dict[str, str] = {}
    if ceiling is not None and not ceiling.samples_per_s:
        out["compute"] = str(ceiling.status or "not measured")
    if ceiling is not None and not ceiling.transport_by_workers:
        out["transport"] = str(ceiling.transport_reason or "not measured")
    return out


def bound_for(
    ceiling: Ceiling | None, workers: int, cpu_count: int
) -> tuple[float | None, str | None]:
    """The lower of the two ceilings for a config with ``workers``, and which one it is;
    (None, None) while the compute ceiling is unknown (never measured, or dropped): the
    transport ceiling cannot be said to bind when the unknown one could be lower. A compute
    ceiling measured mostly under interference is as good as unknown."""
    compute = ceiling_rate(ceiling) if _trusted(ceiling) else None
    transport = transport_rate(ceiling, workers, cpu_count)
    if compute is None:
        return None, None
    if transport is not None and transport < compute:
        return transport, "transport"
    return compute, "compute"


def bound_windows(ceiling: Ceiling | None, workers: int, cpu_count: int) -> tuple[list[float], str]:
    """The windows the stop rule compares a run with, and which ceiling they are: the compute
    ceiling's, scaled down to the transport ceiling when that binds (spread kept).

    Only configs with workers are bound by transport here: a run without workers at the
    in-process transport rate could still gain from workers."""
    windows = ceiling_windows(ceiling)
    transport = transport_rate(ceiling, workers, cpu_count) if workers else None
    if transport is None or (windows and transport >= median(windows)):
        return windows, "compute"
    if not windows:
        return [transport], "transport"
    return [w * transport / median(windows) for w in windows], "transport"


def near_ceiling(best: Sequence[float], ceiling: Sequence[float]) -> bool:
    """The best run is within noise of the compute ceiling: no loader setting can do better."""
    if not best or not ceiling:
        return False
    # Noisy windows widen "within noise", but never past 10%: a wide spread means we know
    # little, not that 60% of the ceiling is good enough.
    noise = min(MAX_CEILING_GAP, max(relative_spread(best), relative_spread(ceiling)))
    ratio = median(best) / median(ceiling)
    # Far above the ceiling means the ceiling probe was unlucky, not that we are done.
    return 1 - noise <= ratio <= 1 + MAX_CEILING_GAP


def wait_fraction(trial: FrozenTrial) -> float | None:
    return state.record_of(trial).data_wait_fraction


def changes_step(config: LoaderConfig, script: LoaderConfig) -> bool:
    """Whether ``config`` changes the step the compute ceiling measured: the script's own,
    with its batch size, on its device, with its torch threads, copying its batches to the GPU
    in line from the memory it gave them. Such a config is not bounded by that ceiling, nor
    evidence against it: copy streams take the copy out of the step, pinned memory makes the
    script's own copy several times faster (55 against 9 GB/s on an H200), and the CPU runs
    another step altogether."""
    return (
        (config.batch_size is not None and config.batch_size != script.batch_size)
        or bool(config.num_streams)
        or (bool(config.pin_memory) and not script.pin_memory)
        or (config.device == "cpu" and script.device != "cpu")
        or (config.threads is not None and config.threads != script.threads)
    )


def step_changed(trial: FrozenTrial) -> bool:
    """``changes_step`` for a trial: a measured one by the config it applied, against the
    script's; one still queued by the settings it asks for, against none changed."""
    if trial.state == TrialState.WAITING:
        asked = state.queued_params(trial) or trial.params
        return changes_step(LoaderConfig.from_dict(asked), LoaderConfig())
    record = state.record_of(trial)
    return changes_step(record.config, record.script_config)


def ceiling_suspect(trials: Sequence[FrozenTrial], ceiling: Sequence[float]) -> str | None:
    """Why the measured ceiling cannot be right, or None.

    A trial of the script's own step that runs clearly faster disproves it; so does the
    baseline's own compute-only rate (its throughput over the share of time not spent
    waiting), which a step without data cost can only match or beat. Only windows free of
    interference are evidence.
    """
    if not ceiling:
        return None
    limit = median(ceiling) * (1 + MAX_CEILING_GAP)
    for t in trials:
        if not usable(t) or step_changed(t):
            continue
        windows = evidence(of_trial(t))
        if windows and median(windows) > limit:
            return f"trial #{t.number} ran faster than it"
        wait = wait_fraction(t)
        if role(t) != "baseline" or not windows or wait is None or wait >= 0.95:
            continue
        if median(windows) / (1 - wait) > limit:
            return "the script as written computes faster than it between waits"
    return None


def _record(result: ProbeResult) -> Ceiling:
    """The compute ceiling a mode "ceiling" probe measured (none where it failed)."""
    if result.ok and result.samples_per_s:
        return Ceiling(samples_per_s=result.samples_per_s, **to_record(of_result(result)))
    return _none()


def _none() -> Ceiling:
    """A compute ceiling that is not there (not measured, or dropped)."""
    return Ceiling(samples_per_s=None, **to_record(unread([])))


def _with_transport(ceiling: Ceiling, result: ProbeResult) -> Ceiling:
    return replace(
        ceiling,
        transport_samples_per_s=result.transport_samples_per_s,
        transport_by_workers=result.transport_by_workers,
        transport_reason=result.transport_reason,
    )


def record_from_baseline(study: optuna.Study, result: ProbeResult, note: Note) -> None:
    """Keep the ceilings a mode "baseline" probe measured after the script as written: one
    process start-up for the three figures."""
    if state.load(study).ceiling is not None or result.ceiling_status != "ok":
        return  # not measured there: measure_ceiling() runs a probe of its own
    ceiling = _with_transport(_none(), result)
    ceiling = replace(ceiling, status=result.ceiling_status)
    if result.ceiling_samples_per_s:
        ceiling = replace(
            ceiling, samples_per_s=result.ceiling_samples_per_s, **to_record(of_ceiling(result))
        )
    state.save_ceiling(study, ceiling)
    _say(ceiling, result, note)


def _status(result: ProbeResult) -> str:
    """ "ok", or how the ceiling probe failed and why, never a bare status: the user reads it."""
    if result.ok:
        return "ok"
    why = result.reason or next(
        (line.strip() for line in reversed(result.stderr_tail.splitlines()) if line.strip()), ""
    )
    if not why and result.exit_code is not None:
        why = f"exit code {result.exit_code}, no output"
    return f"{result.status}: {why}" if why else result.status


def _say(ceiling: Ceiling, result: ProbeResult, note: Note) -> None:
    if ceiling.samples_per_s:
        hit = sum(ceiling.disturbed)
        busy = f" ({hit} of {len(ceiling.windows)} windows under interference)" if hit else ""
        note(
            f"  compute ceiling: {ceiling.samples_per_s:,.0f} samples/s{busy} (the step alone, "
            "on batches replayed from memory: no loader setting can pass it)"
        )
    else:
        note(f"  no compute ceiling: {ceiling.status or result.reason}")
    by_workers = result.transport_by_workers or {}
    if by_workers:
        rates = ", ".join(
            f"{v:,.0f} samples/s with {k} workers" for k, v in sorted(by_workers.items())
        )
        note(
            f"  transport ceiling: {rates} (the loader's own machinery, with samples that cost "
            "nothing and no step)"
        )
    elif result.transport_reason:
        note(f"  no transport ceiling: {result.transport_reason}")


def measure_ceiling(study: optuna.Study, probe: Probe, note: Note) -> float:
    """Measure the ceiling once per study; returns the probe seconds spent."""
    if state.load(study).ceiling is not None:
        return 0.0
    note("  measuring the ceilings (cached batches with no data cost; free samples, no step)")
    result = probe(LoaderConfig(), "ceiling")
    ceiling = replace(_with_transport(_record(result), result), status=_status(result))
    if not result.ok and not ceiling.transport_by_workers and not ceiling.transport_reason:
        why = f"the ceiling probe ended first ({ceiling.status})"
        ceiling = replace(ceiling, transport_reason=why)
    state.save_ceiling(study, ceiling)
    _say(ceiling, result, note)
    return result.wall_s or 0.0


def _compute_part(ceiling: Ceiling) -> dict[str, object]:
    """The compute ceiling's own fields, to put over another record's."""
    return {
        "samples_per_s": ceiling.samples_per_s,
        "windows": ceiling.windows,
        "interference_cores": ceiling.interference_cores,
        "interference_limits": ceiling.interference_limits,
        "disturbed": ceiling.disturbed,
        "cpu_count": ceiling.cpu_count,
    }


def _transport_suspect(trials: Sequence[FrozenTrial], by_workers: dict[int, float]) -> str | None:
    """A trial with workers clearly faster than the transport measured through at least as
    many workers disproves that figure."""
    measured = {n: v for n, v in by_workers.items() if n}
    for t in trials:
        workers = int(trial_config(t).num_workers or 0)
        limits = [v for n, v in measured.items() if n >= workers > 0]
        windows = evidence(of_trial(t)) if usable(t) else []
        if limits and windows and median(windows) > max(limits) * (1 + MAX_CEILING_GAP):
            return f"trial #{t.number} ran faster than it"
    return None


def check_ceiling(study: optuna.Study, probe: Probe, note: Note) -> float:
    """Re-measure a ceiling that a measured run disproves, once; drop it if still disproved.
    A disproved transport figure is dropped at once (it is a bound on few configs).

    Returns the probe seconds spent."""
    ceiling = state.load(study).ceiling
    if ceiling is None:
        return 0.0
    trials = study.get_trials(deepcopy=False)
    wrong = _transport_suspect(trials, ceiling.transport_by_workers or {})
    if wrong is not None:
        note(f"  the transport ceiling looks wrong ({wrong}): dropping it")
        ceiling = replace(
            ceiling,
            transport_by_workers=None,
            transport_samples_per_s=None,
            transport_reason=f"unreliable: {wrong}",
        )
        state.save_ceiling(study, ceiling)
    why = ceiling_suspect(trials, ceiling.windows)
    if why is None:
        return 0.0
    spent = 0.0
    if not ceiling.remeasured:
        note(f"  the compute ceiling looks wrong ({why}): measuring it again")
        result = probe(LoaderConfig(), "ceiling")
        spent = result.wall_s or 0.0
        ceiling = replace(ceiling, remeasured=True)
        again = _record(result)
        if again.windows and median(again.windows) > median(ceiling.windows or [0]):
            ceiling = replace(ceiling, **_compute_part(again))  # type: ignore[arg-type]
        why = ceiling_suspect(trials, ceiling.windows)
        if why is None and ceiling.windows:
            note(f"  compute ceiling, measured again: {median(ceiling.windows):,.0f} samples/s")
    if why is not None:
        note(f"  the compute ceiling is set aside: {why}")
        ceiling = replace(ceiling, **_compute_part(_none()), status=f"unreliable: {why}")  # type: ignore[arg-type]
    state.save_ceiling(study, ceiling)
    return spent
