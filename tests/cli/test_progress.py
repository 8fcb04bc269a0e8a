"""The live bar of `autotune probe`: what it shows once the search is over."""

from __future__ import annotations

from autotune.cli._progress import ProgressReporter, time_left
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


def test_the_bar_says_about_how_long_is_left_by_trials_or_budget() -> None:
    assert time_left(5, [], None) == ""  # no trial's time known yet
    assert time_left(5, [10.0, 14.0, 12.0], None) == " | about 1:00 left"  # 5 x 12 s
    assert time_left(5, [10.0, 14.0, 12.0], 42.4) == " | about 0:42 left"  # the budget's end
    assert time_left(5, [12.0], -3.0) == " | about 0:00 left"  # spent: the last trial runs on


def test_the_bar_counts_the_trials_after_the_first_one_took_its_time() -> None:
    reporter = ProgressReporter(4, budget_s=3600)
    reporter.trial_started(0, 0, 4, "baseline", LoaderConfig())
    reporter.trial_finished(0, ProbeResult(samples_per_s=173.0), 173.0, 173.0)
    reporter.trial_started(1, 1, 4, "seeded", LoaderConfig(num_workers=4))
    (task,) = reporter.progress.tasks
    assert task.description.startswith("seeded: workers=4 | best 173 samples/s (1.00x) | about ")
    assert task.description.endswith(" left")


def test_the_clock_counts_the_re_measures_after_the_last_trial() -> None:
    """The bar is full once the last trial ends; the leaders' re-measures that follow are the
    user's time too, so the clock goes on and the bar says what runs."""
    reporter = ProgressReporter(1)
    reporter.clock.started -= 100.0  # a search that began 100 s ago
    reporter.trial_started(0, 0, 1, "baseline", LoaderConfig())
    reporter.trial_finished(0, ProbeResult(samples_per_s=173.0), 173.0, 173.0)
    (task,) = reporter.progress.tasks
    assert task.finished  # rich's own elapsed column stops here
    reporter.phase("checking the pick")
    assert task.description == "checking the pick | best 173 samples/s (1.00x)"
    assert reporter.clock.seconds() >= 100.0
    minutes, secs = str(reporter.clock.render(task)).split(":")
    assert int(minutes) * 60 + int(secs) >= 100  # shown, and not frozen at the full bar
    with reporter:
        pass
    stopped = reporter.clock.seconds()
    assert stopped >= 100.0 and reporter.clock.seconds() == stopped  # frozen at the answer
