"""Readings of the machine around the script: the process tree's CPU and memory, other
processes' load on the cores, the GPU through NVML."""

from autotune.probe.machine._gpu import GpuSampler, cuda_sync, log
from autotune.probe.machine._outside_cpu import OutsideCpu
from autotune.probe.machine._sampler import TreeSampler

__all__ = [
    "GpuSampler",
    "OutsideCpu",
    "TreeSampler",
    "cuda_sync",
    "log",
]
