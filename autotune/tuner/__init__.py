"""The search: what to try next, when to stop, what to recommend."""

from autotune.tuner._diagnosis import Diagnosis, diagnose
from autotune.tuner._records import trial_config, trial_result, usable
from autotune.tuner._seed import predict_workers
from autotune.tuner._space import SearchSpace
from autotune.tuner._study import StudyError, StudyKey, load_study, open_study
from autotune.tuner._tuner import NullReporter, Outcome, Reporter, Tuner, TunerOptions

__all__ = [
    "Diagnosis",
    "NullReporter",
    "Outcome",
    "Reporter",
    "SearchSpace",
    "StudyError",
    "StudyKey",
    "Tuner",
    "TunerOptions",
    "diagnose",
    "load_study",
    "open_study",
    "predict_workers",
    "trial_config",
    "trial_result",
    "usable",
]
