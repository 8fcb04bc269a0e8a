"""Which trial is recommended, and the study's answer as one JSON object.

The answer is the contract of ``--json``, of the API (through the store's mirror) and of the
dashboard. Keys are never removed; a key with no value yet is null.
"""

from __future__ import annotations

from typing import Any

import optuna
from optuna.trial import TrialState

from autotune.contract import CEILING_GAP, DATALOADER_KEYS, LoaderConfig
from autotune.tuner._ceiling import bound_for, ceiling_rate, missing, transport_rate
from autotune.tuner._interference import account
from autotune.tuner._records import baseline_of, counted, trial_config, usable


def recommended_trial(study: optuna.Study) -> optuna.trial.FrozenTrial | None:
    """The confirmed winner if confirmation ran, else the fastest fully measured trial."""
    trials = study.get_trials(deepcopy=False)
    confirmed = study.user_attrs.get("confirmation", {}).get("winner")
    if confirmed is not None:
        for t in trials:
            if t.number == confirmed:
                return t
    candidates = [t for t in trials if usable(t)]
    if candidates:
        return max(candidates, key=lambda t: t.value or 0.0)
    if study.user_attrs.get("verdict"):
        return baseline_of(trials)  # too short to tune: the script's own settings stand
    return None


def _measured_loader(trial: optuna.trial.FrozenTrial | None) -> dict[str, Any] | None:
    if trial is None:
        return None
    loader = (trial.user_attrs.get("result") or {}).get("measured_loader")
    return dict(loader) if loader else None


def summarize(study: optuna.Study, storage: str) -> dict[str, Any]:
    trials = study.get_trials(deepcopy=False)
    attrs = study.user_attrs
    base = baseline_of(trials)
    best = recommended_trial(study)
    confirmation = attrs.get("confirmation") or {}
    finished = counted(trials)
    walls = [(t.user_attrs.get("result") or {}).get("wall_s") or 0.0 for t in trials]
    probe_s = sum(walls) + float(attrs.get("extra_probe_seconds", 0.0))
    base_rate = base.value if base is not None and base.state == TrialState.COMPLETE else None
    best_rate = confirmation.get("median") if confirmation else None
    if best_rate is None and best is not None:
        best_rate = best.value
    base_confirmed = confirmation.get("baseline_median") if confirmation else None
    base_script = LoaderConfig.from_dict(base.user_attrs.get("script_config")) if base else None
    speedup = None
    if best is not None and base_script is not None and trial_config(best) == base_script:
        speedup = 1.0  # the script's own settings won: any other ratio would be noise
    elif best_rate and (base_confirmed or base_rate):
        speedup = best_rate / (base_confirmed or base_rate)
    ceiling = ceiling_rate(study)
    best_workers = int(trial_config(best).num_workers or 0) if best is not None else 0
    ranks = int(attrs.get("nproc_per_node") or 1)
    cpu_per_rank = max(1, int((attrs.get("hardware") or {}).get("cpu_count") or 1) // ranks)
    bound, binding = bound_for(study, best_workers, cpu_per_rank)
    if bound and best_rate and best_rate > bound * (1 + CEILING_GAP):
        bound, binding = None, None  # the answer itself ran past it: it binds nothing
    measured_loader = _measured_loader(best or base)
    # Windows taken while another process used the cores: said, and the interval widened.
    interval, interference = account(study, finished, best, base)
    return {
        "study": study.study_name,
        "storage": storage,
        "script": attrs.get("script"),
        "args": attrs.get("args"),
        "hardware": attrs.get("hardware"),
        # Ranks on the node: settings are per rank, samples/s are the job's (all ranks).
        "nproc_per_node": int(attrs.get("nproc_per_node") or 1),
        # Which loader the figures are of (dataset type, batch size), so a user can check.
        "measured_loader": measured_loader,
        "framework": (measured_loader or {}).get("framework"),
        "recommended": None
        if best is None
        else {
            "trial": best.number,
            "config": trial_config(best).to_dict(),
            "samples_per_s": best_rate,
            "ci95": interval,
        },
        "baseline": None
        if base is None
        else {
            "trial": base.number,
            "config": base_script.to_dict() if base_script else None,
            "samples_per_s": base_confirmed or base_rate,
        },
        "speedup": speedup,
        "ceiling_samples_per_s": ceiling,
        # What the loader's machinery delivers with free samples, at the recommended workers.
        "transport_ceiling_samples_per_s": transport_rate(study, best_workers, cpu_per_rank),
        "binding_ceiling": binding,
        # Why a ceiling has no figure (its probe failed, the script ended, it was disproved).
        "ceiling_missing": missing(study),
        # Against the lower of the two ceilings: what any loader setting could reach.
        "efficiency": (best_rate / bound) if best_rate and bound else None,
        "diagnosis": attrs.get("diagnosis"),
        # How much other processes used the cores while measuring, and what it did to the
        # answer; null where no window was read (results from before it was measured).
        "interference": interference,
        # Set when the answer is a judgement rather than a search (a script too short to tune).
        "verdict": attrs.get("verdict"),
        "stop_reason": attrs.get("stop_reason"),
        "trials": {
            "complete": sum(1 for t in finished if t.state == TrialState.COMPLETE),
            "failed": sum(1 for t in finished if t.state == TrialState.FAIL),
            "pruned": sum(1 for t in finished if t.state == TrialState.PRUNED),
        },
        "probe_seconds": round(probe_s, 3),
        "failures": [
            {
                "trial": t.number,
                "status": t.user_attrs.get("status"),
                "reason": t.user_attrs.get("reason"),
                "config": t.user_attrs.get("config"),
            }
            for t in finished
            if t.state == TrialState.FAIL
        ],
    }


def python_snippet(summary: dict[str, Any]) -> str:
    """The settings to paste, in the terms of the framework the script uses, and the
    stream/device notes they need."""
    rec = summary.get("recommended")
    if not rec:
        return "# no recommendation yet: no trial was measured in full"
    loader = LoaderConfig.from_dict(rec["config"]).under_torch_rules()
    values = {k: getattr(loader, k) for k in DATALOADER_KEYS if getattr(loader, k) is not None}
    ranks = int(summary.get("nproc_per_node") or 1)
    head = f"# autotune study {summary['study']}: {rec['samples_per_s'] or 0:.0f} samples/s"
    if ranks > 1:
        head += f" (the job's, {ranks} ranks)"
    if summary.get("speedup"):
        head += f", {summary['speedup']:.2f}x the script as written"
    lines = [head]
    if ranks > 1:
        lines.append(f"# per rank: each of the {ranks} ranks builds its loader with these")
    lines += _framework_lines(summary.get("framework"), values)
    config = rec["config"]
    if config.get("num_streams"):
        lines.append(
            f"# copy batches to the GPU on {config['num_streams']} CUDA streams: "
            "`autotune run` applies this for you"
        )
    base = (summary.get("baseline") or {}).get("config") or {}
    if config.get("device") == "cpu" and base.get("device") == "cuda":
        lines.append("# measured faster on the CPU: run with CUDA_VISIBLE_DEVICES=''")
    return "\n".join(lines)


# The Trainer's names for the DataLoader arguments it builds its loaders with.
_TRAINER_ARGS = {
    "num_workers": "dataloader_num_workers",
    "prefetch_factor": "dataloader_prefetch_factor",
    "persistent_workers": "dataloader_persistent_workers",
    "pin_memory": "dataloader_pin_memory",
}


def _framework_lines(framework: str | None, values: dict[str, Any]) -> list[str]:
    if framework == "transformers":
        args = ", ".join(
            f"{_TRAINER_ARGS[k]}={v!r}" for k, v in values.items() if k in _TRAINER_ARGS
        )
        lines = [f"args = TrainingArguments(..., {args})"]
        lines.append("# the Trainer builds its eval loader with these too")
        if "batch_size" in values:
            lines.append(f"# batch size: per_device_train_batch_size={values['batch_size']!r}")
        return lines
    call = f"DataLoader(dataset, {', '.join(f'{k}={v!r}' for k, v in values.items())})"
    if framework == "lightning":
        return [
            "# in your LightningDataModule's (or LightningModule's) train_dataloader():",
            f"return {call}",
        ]
    if framework == "accelerate":
        return ["# the DataLoader you pass to accelerator.prepare():", f"loader = {call}"]
    return [f"loader = {call}"]
