"""Which trial is recommended, and the study's answer (``autotune.answer.Answer``)."""

from __future__ import annotations

from dataclasses import replace

import optuna
from optuna.trial import TrialState

from autotune import state
from autotune.answer import Answer, Baseline, Counts, Failure, Recommended
from autotune.contract import CEILING_GAP, EpochFigures, LoaderConfig, MeasuredLoader
from autotune.hardware import cores_text
from autotune.state import (
    Confirmation,
    StudyState,
    baseline_of,
    compared_windows,
    counted,
    record_of,
    usable,
)
from autotune.tuner.evidence._ceiling import (
    bound_for,
    ceiling_rate,
    missing,
    step_changed,
    transport_rate,
)
from autotune.tuner.evidence._epoch import epoch_answer, with_others, with_payback
from autotune.tuner.evidence._load import account
from autotune.tuner.evidence._noise import NOISE_FLOOR, sustained
from autotune.tuner.evidence._pick import clearly_faster, knee_sentence
from autotune.tuner.evidence._trials import best_usable, trial_config


def _epoch_seen(trial: optuna.trial.FrozenTrial | None) -> EpochFigures | None:
    result = record_of(trial).result if trial is not None else None
    return result.epoch if result is not None else None


def recommended_trial(
    study: optuna.Study, known: StudyState | None = None
) -> optuna.trial.FrozenTrial | None:
    """The confirmed winner if confirmation ran, else the fastest fully measured trial."""
    known = known or state.load(study)
    trials = study.get_trials(deepcopy=False)
    if known.confirmation is not None:
        for t in trials:
            if t.number == known.confirmation.winner:
                return t
    if (best := best_usable(trials)) is not None:
        base = baseline_of(trials)
        if base is None or best.number == base.number or not usable(base):
            return best
        # Unconfirmed (a live run's segments, a search cut short): the script's own settings
        # stay unless the fastest is clearly faster than them.
        fast, slow = compared_windows(best), compared_windows(base)
        return best if clearly_faster(fast, slow, NOISE_FLOOR) else base
    if known.verdict:
        return baseline_of(trials)  # too short to tune: the script's own settings stand
    return None


def _knee(
    trials: list[optuna.trial.FrozenTrial],
    best: optuna.trial.FrozenTrial | None,
    rate: float | None,
    confirmation: Confirmation | None,
) -> str | None:
    """The knee sentence for the recommendation, from the counts measured on its line, each
    against the recommendation measured alike: by their re-measures where confirmation ran
    them beside it, else by their search figures against its own search figure (36 workers
    said "115%" of 6 workers' re-measure, where the two searches' probes read 96%)."""
    if best is None or not rate or state.role(best) == "baseline":
        return None
    config = trial_config(best)
    workers = config.num_workers or 0
    again = {c.trial: c.median for c in (confirmation.candidates if confirmation else [])}
    own = _search_figure(best)
    line: dict[int, float] = {}
    for t in trials:
        if not usable(t) or t.number == best.number:
            continue
        other = trial_config(t)
        count = other.num_workers or 0
        value = again.get(t.number)
        if value is None and (value := _search_figure(t)) and own:
            value *= rate / own  # the two search figures' ratio, said against ``rate``
        if count and value and replace(other, num_workers=workers) == config:
            line[count] = max(line.get(count, 0.0), value)
    return knee_sentence(workers, rate, line)


def _search_figure(trial: optuna.trial.FrozenTrial) -> float | None:
    """What a long run of the trial sustains by its search probe (a bursty loader's median
    reads above it)."""
    windows = compared_windows(trial)
    return sustained(windows) if windows else trial.value


def _overturned(
    trials: list[optuna.trial.FrozenTrial],
    best: optuna.trial.FrozenTrial | None,
    confirmation: Confirmation | None,
) -> str | None:
    """Why the recommendation is not the trial the search ranked first, where confirmation's
    re-measures put it ahead (the search's stop line names the search's best)."""
    if best is None or confirmation is None or not confirmation.candidates:
        return None
    ranked = best_usable(trials)
    again = {c.trial: c.median for c in confirmation.candidates}
    if ranked is None or ranked.number == best.number:
        return None
    mine, theirs = again.get(best.number), again.get(ranked.number)
    if not mine or not theirs:
        return None
    return (
        f"#{best.number} and #{ranked.number} re-measured afresh, interleaved: #{best.number} "
        f"ran {mine:,.0f} samples/s, #{ranked.number} {theirs:,.0f}; the search's own probes "
        f"had ranked #{ranked.number} first"
    )


def as_given(
    best: optuna.trial.FrozenTrial, base: optuna.trial.FrozenTrial | None
) -> tuple[LoaderConfig, str]:
    """The pick's settings as the answer gives them, and what it says of them. A loader the
    script builds anew every epoch starts its workers at every build, persistent or not:
    persistent_workers=True there keeps nothing alive, so the answer says False, and why."""
    config = trial_config(best)
    if not config.persistent_workers:
        return config, ""
    for trial in (best, base):
        result = record_of(trial).result if trial is not None else None
        if result is not None and result.epoch is not None and result.epoch.rebuilt:
            said = (
                "persistent_workers=False: the script builds its DataLoader anew every epoch, "
                "so no worker outlives its loader, persistent or not"
            )
            return replace(config, persistent_workers=False), said
    return config, ""


def _choice(
    trials: list[optuna.trial.FrozenTrial],
    best: optuna.trial.FrozenTrial | None,
    best_rate: float | None,
    confirmation: Confirmation | None,
) -> str:
    """Why the pick is the trial it is, where that needs saying."""
    if confirmation is not None and confirmation.choice:
        return confirmation.choice
    said = (_overturned(trials, best, confirmation), _knee(trials, best, best_rate, confirmation))
    return "; ".join(s for s in said if s)


def _measured_loader(trial: optuna.trial.FrozenTrial | None) -> MeasuredLoader | None:
    if trial is None:
        return None
    return record_of(trial).measured_loader


_GENERATORS = {"numpy": "numpy.random", "random": "Python's random", "torch": "torch's generator"}


def randomness(base: MeasuredLoader | None, workers_as_written: int, workers: int) -> str | None:
    """What moving the loading into workers changes besides speed, where the script's
    loading draws from the global generators (``MeasuredLoader.global_draws``); None where it
    does not, or where the recommendation loads in the main process as written does."""
    draws = base.global_draws if base is not None else None
    if not draws or workers_as_written or not workers:
        return None
    named = " and ".join(_GENERATORS.get(d, d) for d in draws)
    said = (
        f"loading a batch draws from {named} (a random transform in the dataset or its "
        f"collate_fn): with {workers} workers those draws come from each worker's own "
        "generator, seeded from the loader's, so the random augmentations differ from a run "
        "as written"
    )
    if "torch" in draws:
        # torch's generator is also the step's (dropout) and the sampler's seed each epoch.
        return (
            f"{said}, and so do torch's later draws in the training process (dropout, each "
            "epoch's shuffle after the first); the samples do not, nor the first epoch's order"
        )
    return f"{said}; the samples and their order do not"


def summarize(study: optuna.Study, storage: str) -> Answer:
    trials = study.get_trials(deepcopy=False)
    known = state.load(study)
    identity = known.identity
    base = baseline_of(trials)
    best = recommended_trial(study, known)
    confirmation = known.confirmation
    finished = counted(trials)
    walls = [record_of(t).wall_s for t in trials]
    probe_s = sum(walls) + known.extra_probe_seconds
    base_rate = base.value if base is not None and base.state == TrialState.COMPLETE else None
    best_rate = confirmation.median if confirmation else None
    if best_rate is None and best is not None:
        best_rate = best.value
    base_confirmed = confirmation.baseline_median if confirmation else None
    base_script = record_of(base).script_config if base else None
    # Windows taken while another process used the cores: said, and the interval widened.
    interval, interference = account(known, finished, best, base)
    if interval and interval[0] == interval[-1]:
        interval = None  # one window: no interval to state, not a certain rate
    speedup = None
    if interference is not None and interference.get("comparison"):
        pass  # measured under different loads: a ratio of them is no speedup
    elif best is not None and base_script is not None and trial_config(best) == base_script:
        speedup = 1.0  # the script's own settings won: any other ratio would be noise
    elif best_rate and (denominator := base_confirmed or base_rate):
        speedup = best_rate / denominator
    ceiling = known.ceiling
    best_workers = int(trial_config(best).num_workers or 0) if best is not None else 0
    ranks = identity.nproc_per_node
    cpu_per_rank = max(1, int(identity.hardware.get("cpu_count") or 1) // ranks)
    bound, binding = bound_for(ceiling, best_workers, cpu_per_rank)
    if bound and best_rate and best_rate > bound * (1 + CEILING_GAP):
        bound, binding = None, None  # the answer itself ran past it: it binds nothing
    if best is not None and step_changed(best):
        bound, binding = None, None  # the ceilings are of the script's own step, not its
    measured_loader = _measured_loader(best or base)
    recommended, given_note = None, ""
    if best is not None:
        given, given_note = as_given(best, base)
        recommended = Recommended(best.number, given, best_rate, interval)
    epoch = epoch_answer(
        record_of(base).result if base is not None else None,
        record_of(best).result if best is not None else None,
        base_rate=base_confirmed or base_rate,
        best_rate=best_rate,
        same=speedup == 1.0
        or (best is not None and base is not None and best.number == base.number),
    )
    return Answer(
        study=study.study_name,
        storage=storage,
        script=identity.script,
        args=identity.args,
        hardware=identity.hardware,
        nproc_per_node=ranks,
        measured_loader=measured_loader,
        framework=measured_loader.framework if measured_loader else None,
        recommended=recommended,
        baseline=None
        if base is None
        else Baseline(
            base.number,
            base_script,
            base_confirmed or base_rate,
        ),
        speedup=speedup,
        ceiling_samples_per_s=ceiling_rate(ceiling),
        transport_ceiling_samples_per_s=transport_rate(ceiling, best_workers, cpu_per_rank),
        binding_ceiling=binding,  # type: ignore[arg-type]
        ceiling_missing=missing(ceiling),
        efficiency=(best_rate / bound) if best_rate and bound else None,
        diagnosis=known.diagnosis,
        interference=interference,
        verdict=known.verdict,
        stop_reason=known.stop_reason,
        choice="; ".join(
            s
            for s in (
                _choice(trials, best, best_rate, confirmation),
                given_note,
                confirmation.draws if confirmation is not None and speedup != 1.0 else None,
            )
            if s
        )
        or None,
        cores=cores_text(identity.hardware),
        started_from=known.seed.from_study if known.seed is not None else None,
        trials=Counts(
            complete=sum(1 for t in finished if t.state == TrialState.COMPLETE),
            failed=sum(1 for t in finished if t.state == TrialState.FAIL),
            pruned=sum(1 for t in finished if t.state == TrialState.PRUNED),
        ),
        probe_seconds=round(probe_s, 3),
        failures=[
            Failure(t.number, r.status, r.reason, r.config)
            for t in finished
            if t.state == TrialState.FAIL
            for r in [record_of(t)]
        ],
        epoch=with_payback(with_others(epoch, known.others, _epoch_seen(best))),
        others=known.others,
        randomness=randomness(
            _measured_loader(base),
            int(base_script.num_workers or 0) if base_script is not None else 0,
            best_workers,
        ),
    )
