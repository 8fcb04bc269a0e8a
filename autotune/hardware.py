"""The hardware fingerprint a study is keyed by.

A recommendation holds only on the hardware that measured it.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import platform
import sys
from pathlib import Path
from typing import Any

# What a host is described by, as stored and served.
HOST_FIELDS = (
    "cpu_model",
    "cpu_count",
    "memory_gb",
    "gpu_model",
    "gpu_count",
    "driver",
    "cuda",
    "torch",
    "platform",
)
# The fields that change what settings are best; driver and hostname do not.
_KEY_FIELDS = ("cpu_model", "cpu_count", "memory_gb", "gpu_model", "gpu_count", "torch", "cuda")


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _gpus() -> tuple[str | None, int, str | None]:
    """(model, count, driver) through NVML; (None, 0, None) where there is none."""
    try:
        import pynvml

        pynvml.nvmlInit()
    except Exception:
        return None, 0, None
    try:
        count = pynvml.nvmlDeviceGetCount()
        if count == 0:
            return None, 0, None
        name = pynvml.nvmlDeviceGetName(pynvml.nvmlDeviceGetHandleByIndex(0))
        driver = pynvml.nvmlSystemGetDriverVersion()
        return _text(name), int(count), _text(driver)
    finally:
        pynvml.nvmlShutdown()


def torch_build() -> tuple[str, str | None]:
    """torch's version and the CUDA version it was built for.

    Read from torch's own version file, not by importing torch: the import costs a second of
    CPU, and `autotune run --adapt` fingerprints beside the training it has just started."""
    if "torch" not in sys.modules:
        spec = importlib.util.find_spec("torch")
        locations = list(spec.submodule_search_locations or []) if spec else []
        for folder in locations:
            version = importlib.util.spec_from_file_location(
                "_autotune_torch_version", Path(folder) / "version.py"
            )
            if version is None or version.loader is None:
                continue
            module = importlib.util.module_from_spec(version)
            try:
                version.loader.exec_module(module)
                return str(module.__version__), module.cuda
            except (OSError, SyntaxError, ImportError, AttributeError):
                break  # an unusual build: ask torch itself
    import torch

    return str(torch.__version__), torch.version.cuda


def fingerprint() -> dict[str, Any]:
    """This machine, as far as DataLoader tuning cares."""
    import psutil

    torch_version, cuda = torch_build()
    gpu_model, gpu_count, driver = _gpus()
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None and gpu_count:
        gpu_count = min(gpu_count, len([d for d in visible.split(",") if d.strip()]))
    fp: dict[str, Any] = {
        "cpu_model": _cpu_model(),
        "cpu_count": os.cpu_count() or 1,
        "memory_gb": round(psutil.virtual_memory().total / 2**30),
        "gpu_model": gpu_model if gpu_count else None,
        "gpu_count": gpu_count,
        "driver": driver,
        "torch": torch_version.split("+")[0],
        "cuda": cuda,
        "platform": platform.system().lower(),
    }
    fp["id"] = fingerprint_id(fp)
    return fp


def fingerprint_id(fp: dict[str, Any]) -> str:
    key = json.dumps({k: fp.get(k) for k in _KEY_FIELDS}, sort_keys=True)
    return hashlib.sha256(key.encode()).hexdigest()[:12]


def describe(fp: dict[str, Any]) -> str:
    gpu = f"{fp.get('gpu_count')}x {fp.get('gpu_model')}" if fp.get("gpu_count") else "no GPU"
    return (
        f"{fp.get('cpu_count')} CPUs ({fp.get('cpu_model')}), {fp.get('memory_gb')} GiB, {gpu}, "
        f"torch {fp.get('torch')}, CUDA {fp.get('cuda') or 'none'} [{fp.get('id')}]"
    )


def outside_cores_now(seconds: float = 0.5) -> float | None:
    """Cores other processes are using right now: the machine's busy time less this
    process's, over ``seconds``; None where it cannot be read. A study keeps the load it was
    measured under, and a rerun under another one must not be compared with it."""
    try:
        import psutil
    except ImportError:
        return None
    import time

    busy = ("user", "nice", "system", "irq", "softirq", "steal")

    def reading() -> tuple[float, float, float]:
        t = psutil.cpu_times()
        own = psutil.Process().cpu_times()
        return (
            time.perf_counter(),
            sum(getattr(t, name, 0.0) for name in busy),
            own.user + own.system,
        )

    try:
        before = reading()
        time.sleep(seconds)  # a reading over a span: there is no instant load
        after = reading()
    except (psutil.Error, OSError):
        return None
    wall = after[0] - before[0]
    outside = (after[1] - before[1]) - (after[2] - before[2])
    return max(0.0, outside) / wall if wall > 0 else None
