"""The doubling climbs: the other loaders' (by their passes' seconds) and a reopened live
run's next count."""

from __future__ import annotations

from autotune.contract import LoaderConfig
from autotune.tuner.workers import PASS_GAIN, PassClimb, more_workers


def test_the_passes_climb_doubles_while_each_count_gains_and_keeps_the_last_that_did() -> None:
    climb = PassClimb(written=0, reference=10.0, top=64)
    assert climb.candidate() == LoaderConfig(num_workers=2, persistent_workers=True)
    climb.measured(6.0)  # 40% faster: kept, and the count doubles
    assert climb.candidate() == LoaderConfig(num_workers=4, persistent_workers=True)
    climb.measured(6.0 * (1 - PASS_GAIN / 2))  # within the gain: not a step worth its workers
    assert climb.candidate() is None
    found = climb.outcome(["Val"])
    assert found.config == LoaderConfig(num_workers=2, persistent_workers=True)
    assert (found.as_written_s, found.tuned_s, found.reason) == (10.0, 6.0, None)
    assert [t.num_workers for t in found.tried] == [0, 2, 4]


def test_the_passes_climb_stops_at_its_top_and_below_a_failure() -> None:
    capped = PassClimb(written=4, reference=10.0, top=8)
    capped.measured(5.0)  # 8 workers
    assert capped.candidate() is None  # 16 is past the top
    assert capped.outcome([]).reason is None
    failing = PassClimb(written=1, reference=10.0, top=64)
    failing.failed("2 workers for them failed a probe (crashed)")
    assert failing.candidate() is None
    found = failing.outcome(["Val"])
    assert found.config is None and found.reason == "2 workers for them failed a probe (crashed)"


def test_a_reopened_run_doubles_its_workers_within_the_top() -> None:
    settled = LoaderConfig(num_workers=3, prefetch_factor=4, persistent_workers=True)
    assert more_workers(settled, 64) == LoaderConfig(
        num_workers=6, prefetch_factor=4, persistent_workers=True
    )
    assert more_workers(settled, 5) == LoaderConfig(
        num_workers=5, prefetch_factor=4, persistent_workers=True
    )
    assert more_workers(settled, 3) is None
    assert more_workers(LoaderConfig(num_workers=0), 8) == LoaderConfig(num_workers=1)
