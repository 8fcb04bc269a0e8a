"""The worker count, chosen in one place: the range a search may try (``_range.py``), the
first guesses (``_first.py``: the seed, ``_seed.py``, or a stored answer, ``_warm.py``), the
climb from the best measured and its knee (``_climb.py``), the cap after a failure
(``back_off``, ``capped``), and the doubling climbs of the other loaders and of a reopened
live run (``_doubling.py``)."""

from autotune.tuner.workers._climb import back_off, climb, knee_open, searched_around_best
from autotune.tuner.workers._doubling import (
    MAX_PASS_WORKERS,
    PASS_GAIN,
    REOPEN_GAIN,
    PassClimb,
    more_workers,
)
from autotune.tuner.workers._first import seeds
from autotune.tuner.workers._range import capped, search_space, thread_choices, worker_range
from autotune.tuner.workers._seed import Seed, seed_workers
from autotune.tuner.workers._warm import Warm, answer_shape, warm_start

__all__ = [
    "MAX_PASS_WORKERS",
    "PASS_GAIN",
    "REOPEN_GAIN",
    "PassClimb",
    "Seed",
    "Warm",
    "answer_shape",
    "back_off",
    "capped",
    "climb",
    "knee_open",
    "more_workers",
    "search_space",
    "searched_around_best",
    "seed_workers",
    "seeds",
    "thread_choices",
    "warm_start",
    "worker_range",
]
