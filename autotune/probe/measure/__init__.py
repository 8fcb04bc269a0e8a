"""Measurement: batch timings into windows, the epoch on the wall clock, the NVTX ranges,
samples per batch, the transport ceiling, and ranks that stop measuring together."""

from autotune.probe.measure._epoch import EpochClock, OtherPass, charge_per_epoch
from autotune.probe.measure._figures import MeterFigures
from autotune.probe.measure._meter import Meter, ProbeDone
from autotune.probe.measure._nvtx import NvtxRanges
from autotune.probe.measure._rank_stop import RankSync
from autotune.probe.measure._samples import count_samples, map_tensors
from autotune.probe.measure._transport import TransportResult, measure_transport

__all__ = [
    "EpochClock",
    "Meter",
    "MeterFigures",
    "NvtxRanges",
    "OtherPass",
    "ProbeDone",
    "RankSync",
    "TransportResult",
    "charge_per_epoch",
    "count_samples",
    "map_tensors",
    "measure_transport",
]
