"""The search: what to try next, when to stop, what to recommend."""

from autotune.answer import Bottleneck, Diagnosis
from autotune.state import counted, usable
from autotune.tuner.evidence import (
    diagnose,
    recommended_trial,
    summarize,
    trial_config,
    trial_result,
)
from autotune.tuner.loop import (
    Adapted,
    NullReporter,
    Opened,
    Outcome,
    Reporter,
    StudyError,
    StudyKey,
    Tuner,
    TunerOptions,
    adapt,
    check_hardware,
    load_options,
    load_study,
    open_study,
    open_study_for_rerun,
    save_options,
    work,
)
from autotune.tuner.policy import SearchSpace, Seed, seed_workers

__all__ = [
    "Adapted",
    "Bottleneck",
    "Diagnosis",
    "NullReporter",
    "Opened",
    "Outcome",
    "Reporter",
    "SearchSpace",
    "Seed",
    "StudyError",
    "StudyKey",
    "Tuner",
    "TunerOptions",
    "adapt",
    "check_hardware",
    "counted",
    "diagnose",
    "load_options",
    "load_study",
    "open_study",
    "open_study_for_rerun",
    "recommended_trial",
    "save_options",
    "seed_workers",
    "summarize",
    "trial_config",
    "trial_result",
    "usable",
    "work",
]
