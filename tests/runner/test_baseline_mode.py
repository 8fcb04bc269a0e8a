"""Mode "baseline": the script as written, then both ceilings, in one probe process."""

from __future__ import annotations

import uuid
from dataclasses import replace

from autotune.contract import LoaderConfig, ProbeResult, ProbeSettings, TrialConfig
from autotune.runner import SubprocessRunner, Target
from tests.conftest import FAST, MARK_ENV, SCRIPTS, assert_no_orphans, every_window, probe


def _baseline(
    script: str, *args: str, settings: ProbeSettings = FAST
) -> tuple[ProbeResult, list[float]]:
    """A real "baseline" probe; also the windows the runner's progress callback saw."""
    mark = uuid.uuid4().hex
    seen: list[float] = []

    def on_window(index: int, value: float) -> bool:
        seen.append(value)
        return False

    target = Target(str(SCRIPTS / script), args, env={MARK_ENV: mark})
    config = TrialConfig(loader=LoaderConfig(), settings=settings, mode="baseline")
    res = SubprocessRunner().run(target, config, timeout_s=60, on_window=on_window)
    assert_no_orphans(mark)
    return res, seen


def test_baseline_mode_measures_the_script_then_both_ceilings() -> None:
    res, seen = _baseline("basic.py", "--latency", "0.004")
    assert res.status == "ok", res.reason + res.stderr_tail
    # The main figures are the baseline's: the script as written, loading at 4 ms a sample.
    assert every_window(res) and res.samples_per_s
    assert res.data_wait_fraction is not None and res.data_wait_fraction > 0.2
    assert res.script_config.num_workers == 0 and res.peak_rss_bytes
    # The progress file carries the baseline's windows only: pruning reads them.
    assert seen == res.windows
    # The compute ceiling: replayed batches, no data cost, far faster than loading them.
    assert res.ceiling_status == "ok"
    assert len(res.ceiling_windows) == FAST.windows
    assert res.ceiling_samples_per_s and res.ceiling_samples_per_s > 2 * res.samples_per_s
    # The transport ceiling, as mode "ceiling" measures it.
    assert res.transport_reason == "" and res.transport_by_workers
    assert res.transport_samples_per_s == max(res.transport_by_workers.values())


def test_a_script_that_ends_during_the_ceiling_keeps_its_baseline() -> None:
    # Deterministic lengths: measuring starts as the loader is chosen (its first 9 batches
    # were the warm-up) and a window closes every 3 batches, so the baseline takes 9 + 9
    # batches of 24; the ceiling (2, then 9) cannot finish before the script's last step.
    quick = replace(FAST, warmup_s=0.0, max_warmup_s=0.0, window_s=1e-4, transport=False)
    res, seen = _baseline("steps.py", "--steps", "24", settings=quick)
    assert res.status == "ok", res.reason + res.stderr_tail
    assert len(res.windows) == quick.windows and res.samples_per_s
    assert seen == res.windows
    # The ceiling uses what there was: the windows the script's last 6 steps left time for.
    assert res.ceiling_status == "ok", res.ceiling_status
    assert 0 < len(res.ceiling_windows) < quick.windows and res.ceiling_samples_per_s
    assert res.script_batches == 24
    # Two replayed steps are no window at all: no ceiling, and the status says why.
    res, _ = _baseline("steps.py", "--steps", "20", settings=quick)
    assert res.status == "ok", res.reason + res.stderr_tail
    assert res.ceiling_samples_per_s is None
    assert res.ceiling_status.startswith("the script ended"), res.ceiling_status


def test_a_script_shorter_than_the_baseline_ends_early_as_in_measure_mode() -> None:
    res = probe("ends_early.py", mode="baseline")
    assert res.status == "ended_early", res.reason
    assert res.ceiling_samples_per_s is None and res.ceiling_windows == []
    assert res.ceiling_status.startswith("not measured"), res.ceiling_status


def test_ceiling_mode_reports_no_baseline_ceiling_fields() -> None:
    res = probe("basic.py", mode="ceiling", settings=replace(FAST, transport=False))
    assert res.status == "ok", res.reason + res.stderr_tail
    assert res.ceiling_status == "" and res.ceiling_windows == []
