"""What a meter measured, as the typed part of a result it fills (``Meter.figures``)."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from autotune.contract import ProbeResult

if TYPE_CHECKING:
    from autotune.probe.measure._meter import Meter


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
    wait_cpu_s: float | None = None

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
        res.main_wait_cpu_s = self.wait_cpu_s


def figures_of(m: Meter) -> MeterFigures:
    """``m``'s figures; partial when the script ended before the last window."""
    known = [c for c in m.interference if c is not None]
    started, begun, first = m.started_at, m.measure_start, m.first_batch_at
    warm = begun is not None and started is not None
    end = m.measure_end if m.measure_end is not None else m.last_batch_end
    wall = (
        end - begun - m.outside_s
        if begun is not None and end is not None and end - begun > m.outside_s
        else None
    )
    batches = m.measured_batches if wall is not None else 0
    rate = statistics.median(m.windows) if m.windows else None
    if rate is None and wall is not None and batches and m.measured_samples:
        # Ended inside the first window: report what there was, flagged by status.
        rate = m.measured_samples / wall
    return MeterFigures(
        windows=list(m.windows),
        # A figure for every window, or none at all (a reading failed).
        interference_cores=known if len(known) == len(m.windows) else [],
        batches=m.batches,
        samples=m.samples,
        time_to_first_batch_s=(
            first - started if started is not None and first is not None else None
        ),
        steady_state=m.steady_state if warm else None,
        warmup_s_used=begun - started if begun is not None and started is not None else None,
        epoch_windows=m.epoch_windows if warm else False,
        samples_per_s=rate,
        step_p50_s=quantile(m.steps, 0.5) if m.steps else None,
        step_p95_s=quantile(m.steps, 0.95) if m.steps else None,
        measured_wall_s=wall,
        epoch_starts=m.epoch_starts if wall is not None else 0,
        startup_fraction=min(1.0, m.startup_s / wall) if wall is not None else None,
        data_wait_fraction=min(1.0, m.measured_wait / wall) if wall is not None else None,
        wait_per_batch_s=m.measured_wait / batches if batches else None,
        compute_per_batch_s=(
            max(0.0, (wall - m.measured_wait) / batches) if wall is not None and batches else None
        ),
        wait_cpu_s=m.measured_wait_cpu if wall is not None else None,
    )
