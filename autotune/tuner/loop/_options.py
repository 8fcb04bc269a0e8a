"""What a search is asked to do, and how it ended."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from autotune.contract import LoaderConfig, ProbeSettings
from autotune.state import SharedOptions

# A probe stops measuring at this share of the trial timeout with the windows it has (two at
# least), so one slowed by a loaded machine reports what it measured instead of being killed
# with nothing, which the search would read as a worker count that fails.
DEADLINE_SHARE = 0.75


@dataclass
class TunerOptions:
    trials: int = 20
    timeout_s: float = 1800.0
    trial_timeout_s: float = 120.0
    settings: ProbeSettings = field(default_factory=ProbeSettings)
    tune_batch_size: bool = False
    # torch's intra-op threads (read when a process starts): tried only where each trial is
    # a fresh process, never inside a live run.
    tune_threads: bool = True
    max_workers: int | None = None
    # Two trials in a row without a gain beyond noise end the search: the seed is predicted
    # from the baseline's own timings, so most of the gain comes first (docs/benchmarks.md,
    # tuning quality).
    patience: int = 2
    # Probes end once this many windows agree (ProbeSettings.min_windows) unless the settings
    # already say; 0 measures every window. Multi-rank probes always measure every window:
    # one rank stopping early would leave the others blocked in a collective.
    min_windows: int = 2
    confirm_top: int = 2
    # The epoch's other map-style loaders (evaluation, validation) get their own worker count,
    # beside the search's first trial with workers, else the pick (``_others.py``).
    other_loaders: bool = True
    ceiling: bool = True
    max_gpu_mem_bytes: int | None = None
    # False: baseline, ceiling and seeds only; `autotune join` processes do the search.
    search: bool = True
    # A stored answer to try first, instead of the guess from the baseline's figures.
    seed: LoaderConfig | None = None

    @property
    def deadline_s(self) -> float:
        return DEADLINE_SHARE * self.trial_timeout_s

    def probe_settings(self, ranks: int) -> ProbeSettings:
        """The probes' settings: a deadline, and an end once windows agree, for a single
        process only (ranks that stopped apart would block in a collective)."""
        settings = self.settings
        if ranks == 1:
            settings = replace(settings, deadline_s=settings.deadline_s or self.deadline_s)
            if not settings.min_windows and self.min_windows:
                settings = replace(settings, min_windows=min(self.min_windows, settings.windows))
        return settings

    def shared(self) -> SharedOptions:
        """What every `autotune join` process takes from the study's creator: the budget,
        the space and how to measure."""
        return SharedOptions(
            trials=self.trials,
            trial_timeout_s=self.trial_timeout_s,
            settings=self.settings,
            tune_batch_size=self.tune_batch_size,
            max_workers=self.max_workers,
            max_gpu_mem_bytes=self.max_gpu_mem_bytes,
            patience=self.patience,
            min_windows=self.min_windows,
        )


@dataclass
class Outcome:
    stop_reason: str
    interrupted: bool = False
    # The study is ready for `autotune join` processes to search (--seed-only).
    for_workers: bool = False
