"""The live bar of `autotune probe`: what it shows once the search is over."""

from __future__ import annotations

from autotune.cli._probe import ProgressReporter
from autotune.contract import LoaderConfig, ProbeResult


def test_the_bar_shows_the_best_after_the_last_trial_not_before_it() -> None:
    reporter = ProgressReporter(3)
    baseline = ProbeResult(samples_per_s=173.0)
    tuned = LoaderConfig(num_workers=4, persistent_workers=True)
    reporter.trial_started(0, 0, 3, "baseline", LoaderConfig())
    reporter.trial_finished(0, baseline, 173.0, 173.0)
    reporter.trial_started(1, 1, 3, "seeded", tuned)
    reporter.trial_finished(1, ProbeResult(samples_per_s=718.0, applied_config=tuned), 718.0, 173.0)
    (task,) = reporter.progress.tasks
    assert task.description == "seeded: workers=4 persistent=True | best 718 samples/s (4.15x)"
    assert task.completed == 2
