"""Measurement: batch timings into windows, the NVTX ranges, samples per batch, the transport
ceiling, and ranks that stop measuring together."""

from autotune.probe.measure._figures import MeterFigures
from autotune.probe.measure._meter import Meter, ProbeDone
from autotune.probe.measure._nvtx import NvtxRanges
from autotune.probe.measure._rank_stop import RankSync
from autotune.probe.measure._samples import count_samples
from autotune.probe.measure._transport import TransportResult, measure_transport

__all__ = [
    "Meter",
    "MeterFigures",
    "NvtxRanges",
    "ProbeDone",
    "RankSync",
    "TransportResult",
    "count_samples",
    "measure_transport",
]
