"""The search space: torch's intra-op threads exist in it only where the plan put them."""

from __future__ import annotations

import optuna

from autotune.contract import LoaderConfig
from autotune.tuner.policy import SearchSpace
from autotune.tuner.workers import worker_range


def _asked(space: SearchSpace, config: LoaderConfig) -> LoaderConfig:
    """``config`` enqueued and suggested back, as the search runs a seed."""
    study = optuna.create_study()
    study.enqueue_trial(space.params(config))
    return space.suggest(study.ask())


def test_threads_in_the_space_are_enqueued_and_suggested_back() -> None:
    space = SearchSpace.for_machine(cuda=False, max_workers=worker_range(2), threads=(1, None))
    seeded = LoaderConfig(num_workers=4, prefetch_factor=2, persistent_workers=True, threads=1)
    assert _asked(space, seeded) == seeded
    as_written = LoaderConfig(num_workers=4, prefetch_factor=2, persistent_workers=True)
    assert _asked(space, as_written).threads is None
    assert set(space.distributions(space.params(seeded))) >= {"threads"}


def test_without_threads_in_the_space_no_trial_asks_for_them() -> None:
    space = SearchSpace.for_machine(cuda=False, max_workers=worker_range(2))
    seeded = LoaderConfig(num_workers=4, prefetch_factor=2, persistent_workers=True, threads=1)
    assert "threads" not in space.params(seeded)
    assert _asked(space, seeded).threads is None
