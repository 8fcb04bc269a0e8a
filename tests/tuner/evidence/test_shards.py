"""How the shard bound is said: in the library's terms, and true to what the search tried."""

from __future__ import annotations

from autotune.tuner.evidence import ShardBound


def test_a_library_s_count_is_said_in_its_terms() -> None:
    hf = ShardBound(4, "datasets").sentence(most_tried=4)
    assert hf.startswith("This dataset has 4 shards (datasets' `num_shards`): a worker past 4")
    assert "The search tried no more than 4." in hf
    assert "`Dataset.to_iterable_dataset(num_shards=N)`" in hf
    wds = ShardBound(8, "webdataset").sentence(most_tried=2)
    assert "8 shards in its shard list" in wds and "empty check, fails the run" in wds
    assert "The search tried no more than 8." in wds


def test_a_bound_seen_in_a_trial_says_the_trial_and_what_came_after() -> None:
    said = ShardBound(5, seen=1, tried=61).sentence(most_tried=61)
    assert said.startswith("#1 showed it: 56 of its 61 workers got nothing to load")
    assert "After #1 the search tried no more than 5." in said
    assert "The search tried no more than" not in said
