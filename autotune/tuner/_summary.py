"""A study's answer as one JSON object: the contract of ``--json``, the API and the dashboard.

Keys are never removed; a key with no value yet is null.
"""

from __future__ import annotations

from typing import Any

import optuna
from optuna.trial import TrialState

from autotune.contract import LOADER_KEYS, LoaderConfig
from autotune.tuner._records import role, trial_config, usable


def _config_dict(config: LoaderConfig | None) -> dict[str, Any]:
    data = config.to_dict() if config is not None else {}
    return {k: data.get(k) for k in LOADER_KEYS}


def baseline_of(trials: list[optuna.trial.FrozenTrial]) -> optuna.trial.FrozenTrial | None:
    return next((t for t in trials if role(t) == "baseline"), None)


def recommended_trial(study: optuna.Study) -> optuna.trial.FrozenTrial | None:
    """The confirmed winner if confirmation ran, else the fastest fully measured trial."""
    trials = study.get_trials(deepcopy=False)
    confirmed = study.user_attrs.get("confirmation", {}).get("winner")
    if confirmed is not None:
        for t in trials:
            if t.number == confirmed:
                return t
    candidates = [t for t in trials if usable(t)]
    return max(candidates, key=lambda t: t.value or 0.0) if candidates else None


def summarize(study: optuna.Study, storage: str) -> dict[str, Any]:
    trials = study.get_trials(deepcopy=False)
    attrs = study.user_attrs
    base = baseline_of(trials)
    best = recommended_trial(study)
    confirmation = attrs.get("confirmation") or {}
    counted = [t for t in trials if t.user_attrs.get("duplicate_of") is None]
    walls = [(t.user_attrs.get("result") or {}).get("wall_s") or 0.0 for t in counted]
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
    ceiling = attrs.get("ceiling", {}).get("samples_per_s")
    return {
        "study": study.study_name,
        "storage": storage,
        "script": attrs.get("script"),
        "args": attrs.get("args"),
        "hardware": attrs.get("hardware"),
        "recommended": None
        if best is None
        else {
            "trial": best.number,
            "config": _config_dict(trial_config(best)),
            "samples_per_s": best_rate,
            "ci95": confirmation.get("ci95"),
        },
        "baseline": None
        if base is None
        else {
            "trial": base.number,
            "config": _config_dict(base_script),
            "samples_per_s": base_confirmed or base_rate,
        },
        "speedup": speedup,
        "ceiling_samples_per_s": ceiling,
        "efficiency": (best_rate / ceiling) if best_rate and ceiling else None,
        "diagnosis": attrs.get("diagnosis"),
        "stop_reason": attrs.get("stop_reason"),
        "trials": {
            "complete": sum(1 for t in counted if t.state == TrialState.COMPLETE),
            "failed": sum(1 for t in counted if t.state == TrialState.FAIL),
            "pruned": sum(1 for t in counted if t.state == TrialState.PRUNED),
        },
        "probe_seconds": round(probe_s, 3),
        "failures": [
            {
                "trial": t.number,
                "status": t.user_attrs.get("status"),
                "reason": t.user_attrs.get("reason"),
                "config": t.user_attrs.get("config"),
            }
            for t in counted
            if t.state == TrialState.FAIL
        ],
    }


_SNIPPET_KEYS = ("batch_size", "num_workers", "prefetch_factor", "persistent_workers", "pin_memory")


def python_snippet(summary: dict[str, Any]) -> str:
    """The DataLoader arguments to paste, and the stream/device notes they need."""
    rec = summary.get("recommended")
    if not rec:
        return "# no recommendation yet: no trial was measured in full"
    config = rec["config"]
    parts = [
        f"{k}={config[k]!r}"
        for k in _SNIPPET_KEYS
        if config.get(k) is not None
        and not (k == "prefetch_factor" and not config.get("num_workers"))
    ]
    lines = [
        f"# autotune study {summary['study']}: {rec['samples_per_s'] or 0:.0f} samples/s"
        + (f", {summary['speedup']:.2f}x the script as written" if summary.get("speedup") else ""),
        f"loader = DataLoader(dataset, {', '.join(parts)})",
    ]
    if config.get("num_streams"):
        lines.append(
            f"# copy batches to the GPU on {config['num_streams']} CUDA streams: "
            "`autotune run` applies this for you"
        )
    base = (summary.get("baseline") or {}).get("config") or {}
    if config.get("device") == "cpu" and base.get("device") == "cuda":
        lines.append("# measured faster on the CPU: run with CUDA_VISIBLE_DEVICES=''")
    return "\n".join(lines)
