"""What to try next and when to stop: the space, the seed, the worker climb, the pruner and
the stop rules."""

from autotune.tuner.policy import _length as length
from autotune.tuner.policy._climb import back_off, climb, knee_open, searched_around_best
from autotune.tuner.policy._plan import (
    Machine,
    diagnose_study,
    search_space,
    seeds,
)
from autotune.tuner.policy._pruner import WindowPruner
from autotune.tuner.policy._seed import Seed, seed_workers
from autotune.tuner.policy._space import SearchSpace
from autotune.tuner.policy._stop import EXHAUSTED, DuplicateStreak, stop_reason
from autotune.tuner.policy._warm import Warm, answer_shape, warm_start

__all__ = [
    "EXHAUSTED",
    "DuplicateStreak",
    "Machine",
    "SearchSpace",
    "Seed",
    "Warm",
    "WindowPruner",
    "answer_shape",
    "back_off",
    "climb",
    "diagnose_study",
    "knee_open",
    "length",
    "search_space",
    "searched_around_best",
    "seed_workers",
    "seeds",
    "stop_reason",
    "warm_start",
]
