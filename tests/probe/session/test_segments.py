"""Mode "adapt" inside a real training run: switches keep every sample in order, failing
settings are abandoned without losing a batch, iterable datasets wait for the epoch's end.

The orders come from the test through the real exchange (``LiveRun``), so the switches are
the test's choice; ``tests/tuner/loop/test_live_search.py`` lets the search choose them.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from autotune.contract import AdaptOrder, LoaderConfig, LoaderFound, ProbeResult, ProbeSettings
from autotune.runner import LiveRun, Target
from tests.conftest import MARK_ENV, SCRIPTS, assert_no_orphans

SCRIPT = SCRIPTS / "ordered.py"
QUICK = ProbeSettings(
    warmup_batches=3,
    warmup_s=0.2,
    window_s=0.25,
    windows=3,
    min_windows=2,
    sample_interval_s=0.05,
    max_warmup_s=3.0,
)


def workers(n: int, prefetch: int = 2, persistent: bool = False) -> LoaderConfig:
    return LoaderConfig(num_workers=n, prefetch_factor=prefetch, persistent_workers=persistent)


def plain_digest(args: list[str]) -> str:
    """The digest the script prints when run without autotune."""
    done = subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split()[1]


def drive(
    args: list[str],
    orders: list[LoaderConfig],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    settings: ProbeSettings = QUICK,
) -> tuple[list[ProbeResult], str, dict[str, object] | None]:
    """Run the script in mode "adapt": segment 0 as written, one segment per order, the
    last order settled; returns the segments, the run's digest and what it said of its loader."""
    mark = uuid.uuid4().hex
    monkeypatch.setenv(MARK_ENV, mark)
    out_path = tmp_path / "stdout.txt"
    with (
        out_path.open("w") as out,
        LiveRun(Target(str(SCRIPT), tuple(args)), settings, stdout=out) as live,
    ):
        segments = [live.segment(0, 120)]
        for k, config in enumerate(orders, 1):
            settle = k == len(orders)
            live.order(k, AdaptOrder(config, settle=settle))
            if not settle:
                segments.append(live.segment(k, 120))
        loader = live.loader()
        code = live.wait()
    assert code == 0, out_path.read_text()
    assert_no_orphans(mark)
    words = out_path.read_text().split()
    return segments, words[words.index("digest") + 1], loader


@pytest.mark.slow
def test_switches_mid_epoch_keep_every_sample_in_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    args = ["--epochs", "10", "--samples", "512", "--latency-ms", "2"]
    orders = [workers(2), workers(3, prefetch=4), workers(0), workers(2, persistent=True)]
    segments, digest, loader = drive(args, orders, tmp_path, monkeypatch)
    assert digest == plain_digest(args)
    assert loader == LoaderFound(switchable=True, mid_epoch=True)
    for segment, config in zip(segments, [LoaderConfig(num_workers=0), *orders[:-1]], strict=True):
        assert segment.status == "ok", segment.reason
        assert len(segment.windows) >= 2 and segment.samples_per_s, segment
        assert segment.applied_config.num_workers == config.num_workers
    # Each switch took over inside an epoch: nothing waited for an epoch's end.
    starts = [s.measured_loader.switched_at for s in segments[1:] if s.measured_loader]
    assert len(starts) == 3 and all(batch > 0 for _epoch, batch in starts), starts
    # Loading sleeps, so workers are faster: the figures are the settings' own.
    assert segments[1].samples_per_s > 1.3 * segments[0].samples_per_s  # type: ignore[operator]


@pytest.mark.slow
@pytest.mark.parametrize("failure", ["--crash-at-workers", "--hang-at-workers"])
def test_a_failing_config_is_abandoned_without_losing_a_batch(
    failure: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    args = ["--epochs", "8", "--samples", "512", "--latency-ms", "2", failure, "3"]
    orders = [workers(2), workers(4), workers(2, prefetch=4)]
    segments, digest, _ = drive(args, orders, tmp_path, monkeypatch)
    assert digest == plain_digest(args)
    assert [s.status for s in segments] == ["ok", "ok", "crashed"], [s.reason for s in segments]
    assert "abandoned" in segments[2].reason
    if failure == "--crash-at-workers":
        assert "breaks with 4 workers" in segments[2].reason, segments[2].reason


@pytest.mark.slow
def test_an_iterable_dataset_switches_at_the_next_epoch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each worker yields its own shard: the order within an epoch is the worker count's, as
    # with any change of num_workers; what is guaranteed is that switches wait for an epoch.
    args = ["--epochs", "12", "--samples", "256", "--latency-ms", "2", "--iterable"]
    segments, _, loader = drive(args, [workers(2), workers(2)], tmp_path, monkeypatch)
    assert loader == LoaderFound(switchable=True, mid_epoch=False)
    assert [s.status for s in segments] == ["ok", "ok"], [s.reason for s in segments]
    switched = segments[1].measured_loader
    assert (
        switched is not None and switched.switched_at is not None and switched.switched_at[1] == 0
    ), switched


@pytest.mark.alone  # its workers must allocate within the loader's 3 s timeout
@pytest.mark.slow
def test_a_config_over_the_memory_budget_is_switched_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # With 4 workers each holds 400 MiB: 1.6 GiB over a budget of 1.2 GiB, which the run as
    # written (no workers) and with 2 workers stays well within.
    args = ["--epochs", "10", "--samples", "512", "--latency-ms", "2", "--hog-at-workers", "4"]
    budget = dataclasses.replace(QUICK, max_host_mem_bytes=int(1.2 * 2**30))
    orders = [workers(2), workers(4), workers(2, prefetch=4)]
    segments, digest, _ = drive(args, orders, tmp_path, monkeypatch, budget)
    assert digest == plain_digest(args)
    assert [s.status for s in segments] == ["ok", "ok", "over_memory"], [s.reason for s in segments]
    assert "switched back" in segments[2].reason
    assert (segments[2].peak_rss_bytes or 0) > int(1.2 * 2**30)
