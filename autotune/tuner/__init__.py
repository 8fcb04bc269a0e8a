"""The search: what to try next, when to stop, what to recommend."""

from autotune.answer import Bottleneck, Diagnosis
from autotune.state import counted, usable
from autotune.tuner._adapt import Adapted, adapt
from autotune.tuner._diagnosis import diagnose
from autotune.tuner._options import Outcome, TunerOptions
from autotune.tuner._recommendation import recommended_trial, summarize
from autotune.tuner._records import trial_config, trial_result
from autotune.tuner._report import NullReporter, Reporter
from autotune.tuner._seed import Seed, seed_workers
from autotune.tuner._space import SearchSpace
from autotune.tuner._study import (
    Opened,
    StudyError,
    StudyKey,
    check_hardware,
    load_study,
    open_study,
    open_study_for_rerun,
)
from autotune.tuner._tuner import Tuner
from autotune.tuner._worker import load_options, save_options, work

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
