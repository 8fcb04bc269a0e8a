"""The hardware fingerprint a study is keyed by.

A recommendation holds only on the hardware that measured it.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import math
import os
import platform
import sys
from dataclasses import dataclass
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


@dataclass(frozen=True)
class Cores:
    """The cores a job really has. ``os.cpu_count()`` is the node's; a job on a cluster
    rarely owns the node: SLURM and ``taskset`` give it a CPU set (``sched_getaffinity``),
    Kubernetes CPU limits a CFS quota (cgroup v2 ``cpu.max``, v1 ``cpu.cfs_quota_us``)."""

    node: int
    cpuset: int
    # Cores' worth of CPU time the cgroup quota allows, None where no quota is set.
    quota: float | None = None

    @property
    def usable(self) -> int:
        """What the worker range, the seeds, torch's threads and the fingerprint count: the
        CPU set, less any quota (whole cores: a thread on a fraction of one is throttled)."""
        if self.quota is None:
            return max(1, self.cpuset)
        return max(1, min(self.cpuset, math.floor(self.quota + 1e-9)))

    def text(self) -> str | None:
        """The limits in words, where the job has fewer cores than the node; else None."""
        if self.usable >= self.node:
            return None
        why = []
        if self.cpuset < self.node:
            why.append(f"a CPU set of {self.cpuset} (taskset, SLURM)")
        if self.quota is not None and self.quota < self.cpuset:
            unit = "core" if self.quota == 1 else "cores"
            why.append(f"a CPU quota of {self.quota:g} {unit} (cgroup, Kubernetes limits)")
        return f"{self.usable} of the node's {self.node}: " + " and ".join(why)


def _cgroup_quota(root: Path) -> float | None:
    """The tightest CFS quota on this process's cgroup and its ancestors, in cores; None where
    none is set or none can be read. ``root`` is ``/`` but for tests."""
    try:
        own = (root / "proc/self/cgroup").read_text(encoding="utf-8").splitlines()
        mounts = (root / "proc/self/mountinfo").read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    found: list[float] = []
    for line in own:
        hierarchy, _, rest = line.partition(":")
        controllers, _, path = rest.partition(":")
        v2 = hierarchy == "0" and controllers == ""
        if not v2 and "cpu" not in controllers.split(","):
            continue
        mounted = _mount_of(mounts, v2=v2, root=root)
        if mounted is None:
            continue
        mount, top = mounted
        if path.startswith(top):
            path = path[len(top) :]  # the mount shows the hierarchy from ``top`` down
        found += _quotas_up(mount, path, v2=v2)
    return min(found) if found else None


def _mount_of(mounts: list[str], *, v2: bool, root: Path) -> tuple[Path, str] | None:
    """Where the cgroup2 hierarchy, or v1's cpu controller, is mounted, and the cgroup it
    shows as its root (mountinfo's fifth and fourth fields; the filesystem type and super
    options follow the `` - ``)."""
    for line in mounts:
        head, _, tail = line.partition(" - ")
        fields, extra = head.split(), tail.split()
        if len(fields) < 5 or len(extra) < 3:
            continue
        if (v2 and extra[0] == "cgroup2") or (
            not v2 and extra[0] == "cgroup" and "cpu" in extra[2].split(",")
        ):
            return root / fields[4].lstrip("/"), fields[3].rstrip("/")
    return None


def _quotas_up(mount: Path, path: str, *, v2: bool) -> list[float]:
    """Each quota set from the process's own cgroup up to the mount's root. Inside a cgroup
    namespace the path may not exist under the mount: its root is then the own one."""
    here = mount / path.strip("/")
    if not here.is_dir():
        here = mount
    quotas = []
    while True:
        quota = _quota_in(here, v2=v2)
        if quota is not None:
            quotas.append(quota)
        if here == mount or mount not in here.parents:
            return quotas
        here = here.parent


def _quota_in(folder: Path, *, v2: bool) -> float | None:
    try:
        if v2:
            limit, _, period = (folder / "cpu.max").read_text(encoding="utf-8").partition(" ")
        else:
            limit = (folder / "cpu.cfs_quota_us").read_text(encoding="utf-8")
            period = (folder / "cpu.cfs_period_us").read_text(encoding="utf-8")
        if limit.strip() in ("max", "-1") or float(period) <= 0:
            return None
        return float(limit) / float(period)
    except (OSError, ValueError):
        return None


def job_cores(root: Path = Path("/")) -> Cores:
    """This process's cores: the node's, its CPU set's, and its cgroup's quota."""
    node = os.cpu_count() or 1
    try:
        cpuset = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        cpuset = node
    return Cores(node=node, cpuset=cpuset, quota=_cgroup_quota(root))


def cores_text(hardware: dict[str, Any] | None) -> str | None:
    """The answer's line on the cores a study's job had, from its fingerprint."""
    return (hardware or {}).get("cpu_limit") or None


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
    version = _torch_version()
    if version is not None:
        return str(version.__version__), version.cuda
    import torch

    return str(torch.__version__), torch.version.cuda


def cuda_available() -> bool:
    """``torch.cuda.is_available()``, answered without importing torch where torch was built
    for neither CUDA nor ROCm: the import is a second of the search's start, on a machine
    whose cores the probes' own interpreter needs then."""
    version = _torch_version()
    if version is not None and version.cuda is None and getattr(version, "hip", None) is None:
        return False
    import torch

    return bool(torch.cuda.is_available())


def _torch_version() -> Any:
    """torch's ``version`` module, read from its file (None: torch is imported already, or
    its build is unusual: then torch itself answers)."""
    if "torch" in sys.modules:
        return None
    spec = importlib.util.find_spec("torch")
    for folder in list(spec.submodule_search_locations or []) if spec else []:
        version = importlib.util.spec_from_file_location(
            "_autotune_torch_version", Path(folder) / "version.py"
        )
        if version is None or version.loader is None:
            continue
        module = importlib.util.module_from_spec(version)
        try:
            version.loader.exec_module(module)
        except (OSError, SyntaxError, ImportError):
            return None
        return module if hasattr(module, "__version__") and hasattr(module, "cuda") else None
    return None


def fingerprint() -> dict[str, Any]:
    """This machine, as far as DataLoader tuning cares."""
    import psutil

    torch_version, cuda = torch_build()
    gpu_model, gpu_count, driver = _gpus()
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None and gpu_count:
        gpu_count = min(gpu_count, len([d for d in visible.split(",") if d.strip()]))
    cores = job_cores()
    fp: dict[str, Any] = {
        "cpu_model": _cpu_model(),
        # The job's cores, not the node's: a recommendation measured on one core of a
        # 64-core node holds for one core.
        "cpu_count": cores.usable,
        "cpu_limit": cores.text(),
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
