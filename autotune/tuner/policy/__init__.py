"""What to try next and when to stop, beside the worker count (``tuner/workers``): the search
space, the machine a rank has and the study's diagnosis, the pruner, the probe's length and the
stop rules."""

from autotune.tuner.policy import _length as length
from autotune.tuner.policy._diagnosis import diagnose_study
from autotune.tuner.policy._machine import Machine
from autotune.tuner.policy._pruner import WindowPruner
from autotune.tuner.policy._space import PREFETCH_MAX, SearchSpace
from autotune.tuner.policy._stop import EXHAUSTED, DuplicateStreak, stop_reason

__all__ = [
    "EXHAUSTED",
    "PREFETCH_MAX",
    "DuplicateStreak",
    "Machine",
    "SearchSpace",
    "WindowPruner",
    "diagnose_study",
    "length",
    "stop_reason",
]
