"""The range a search may try: lowered by a failure's cap, never past what can load."""

from __future__ import annotations

import optuna

from autotune import state
from autotune.tuner.policy import SearchSpace
from autotune.tuner.workers import capped


def test_a_failure_s_cap_lowers_the_range_and_never_raises_it() -> None:
    study = optuna.create_study(direction="maximize")
    space = SearchSpace(max_workers=32)
    assert capped(study, space) == space  # nothing failed, nothing bounds it
    state.cap_workers(study, 11)
    assert capped(study, space).max_workers == 11
    assert capped(study, SearchSpace(max_workers=8)).max_workers == 8
