"""What a meter measured, as the typed part of a result it fills (``Meter.figures``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from autotune.contract import ProbeResult


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    idx = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[idx]


@dataclass(frozen=True)
class MeterFigures:
    """A meter's figures; partial when the script ended before the last window. A figure the
    meter could not reach keeps the result's own default (``None``, 0, False)."""

    windows: list[float] = field(default_factory=list)
    # A figure for every window, or none at all (a reading failed).
    interference_cores: list[float] = field(default_factory=list)
    batches: int = 0
    samples: int = 0
    time_to_first_batch_s: float | None = None
    steady_state: bool | None = None
    warmup_s_used: float | None = None
    epoch_windows: bool = False
    samples_per_s: float | None = None
    step_p50_s: float | None = None
    step_p95_s: float | None = None
    measured_wall_s: float | None = None
    epoch_starts: int = 0
    startup_fraction: float | None = None
    data_wait_fraction: float | None = None
    wait_per_batch_s: float | None = None
    compute_per_batch_s: float | None = None

    def fill(self, res: ProbeResult) -> None:
        """Writes these figures onto ``res``: the main fields of a probe's or a segment's
        result (the ceilings' phases take only the ones they report)."""
        res.windows = list(self.windows)
        res.interference_cores = list(self.interference_cores)
        res.batches = self.batches
        res.samples = self.samples
        res.time_to_first_batch_s = self.time_to_first_batch_s
        res.steady_state = self.steady_state
        res.warmup_s_used = self.warmup_s_used
        res.epoch_windows = self.epoch_windows
        res.samples_per_s = self.samples_per_s
        res.step_p50_s = self.step_p50_s
        res.step_p95_s = self.step_p95_s
        res.measured_wall_s = self.measured_wall_s
        res.epoch_starts = self.epoch_starts
        res.startup_fraction = self.startup_fraction
        res.data_wait_fraction = self.data_wait_fraction
        res.wait_per_batch_s = self.wait_per_batch_s
        res.compute_per_batch_s = self.compute_per_batch_s
