"""The hardware fingerprint: the same key with and without torch imported."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import torch

from autotune.hardware import Cores, cuda_available, fingerprint, job_cores, torch_build


def _fresh(name: str) -> dict[str, Any]:
    """``autotune.hardware.<name>()`` in a fresh interpreter, and whether torch got imported."""
    code = (
        f"import json, sys; from autotune.hardware import {name}; value = {name}(); "
        "print(json.dumps({'value': value, 'torch': 'torch' in sys.modules}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def test_the_fingerprint_reads_torchs_build_without_importing_torch() -> None:
    # Studies are keyed by the fingerprint's id: reading torch's version file must give what
    # torch itself says, or every stored study would stop matching this machine.
    fresh = _fresh("fingerprint")
    fp = fresh["value"]
    assert fresh["torch"] is False  # a second of CPU the CLI no longer spends
    assert fp["torch"] == torch.__version__.split("+")[0]
    assert fp["cuda"] == torch.version.cuda
    assert fp["id"] == fingerprint()["id"]  # this process has torch imported


def test_with_torch_imported_its_own_figures_are_used() -> None:
    assert "torch" in sys.modules
    assert torch_build() == (str(torch.__version__), torch.version.cuda)
    assert cuda_available() is torch.cuda.is_available()


def test_whether_cuda_is_there_is_torch_s_answer_without_its_import_on_a_cpu_build() -> None:
    fresh = _fresh("cuda_available")
    assert fresh["value"] is torch.cuda.is_available()
    # A build for neither CUDA nor ROCm cannot have it: no import; any other build asks torch.
    cpu_build = torch.version.cuda is None and torch.version.hip is None
    assert fresh["torch"] is not cpu_build


# --- the cores a job really has ----------------------------------------------------------


def _tree(tmp_path: Path, own: str, mountinfo: str, files: dict[str, str]) -> Path:
    """A /proc and /sys as a container shows them: the process's cgroups, the mounts, and the
    quota files (paths relative to ``tmp_path``)."""
    (tmp_path / "proc/self").mkdir(parents=True)
    (tmp_path / "proc/self/cgroup").write_text(own)
    (tmp_path / "proc/self/mountinfo").write_text(mountinfo)
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path


V2_MOUNT = "30 23 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n"
V1_MOUNT = "32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n"


def test_a_kubernetes_limit_in_cgroup_v2_is_the_tightest_quota_up_the_tree(
    tmp_path: Path,
) -> None:
    root = _tree(
        tmp_path,
        "0::/kubepods/pod1/ctr\n",
        V2_MOUNT,
        {
            "sys/fs/cgroup/kubepods/cpu.max": "max 100000\n",
            "sys/fs/cgroup/kubepods/pod1/cpu.max": "150000 100000\n",
            "sys/fs/cgroup/kubepods/pod1/ctr/cpu.max": "max 100000\n",
        },
    )
    cores = job_cores(root)
    assert cores.quota == pytest.approx(1.5)
    assert replace(cores, node=8, cpuset=8).usable == 1  # whole cores: 1.5 runs one thread
    assert "a CPU quota of 1.5 cores" in (replace(cores, node=8, cpuset=8).text() or "")


def test_a_cgroup_v1_quota_inside_a_namespace_reads_the_mounts_own_root(tmp_path: Path) -> None:
    # In a container the process's path names the host's hierarchy; the mount shows only its
    # own part of it.
    mount = "32 31 0:29 /docker/abc /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n"
    root = _tree(
        tmp_path,
        "4:cpu,cpuacct:/docker/abc\n3:memory:/docker/abc\n",
        mount,
        {
            "sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us": "200000\n",
            "sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us": "100000\n",
        },
    )
    assert job_cores(root).quota == pytest.approx(2.0)


def test_no_quota_and_no_cgroup_files_are_no_limit(tmp_path: Path) -> None:
    unlimited = _tree(
        tmp_path / "a",
        "1:cpu:/\n",
        V1_MOUNT.replace("cpu,cpuacct", "cpu"),
        {
            "sys/fs/cgroup/cpu/cpu.cfs_quota_us": "-1\n",
            "sys/fs/cgroup/cpu/cpu.cfs_period_us": "100000\n",
        },
    )
    assert job_cores(unlimited).quota is None
    assert job_cores(tmp_path / "nothing").quota is None
    whole = Cores(node=4, cpuset=4)
    assert whole.usable == 4 and whole.text() is None


def _run_cores(prefix: list[str], before: str = "") -> dict[str, object]:
    code = (
        f"{before}import json; from autotune.hardware import job_cores, fingerprint; "
        "c = job_cores(); fp = fingerprint(); "
        "print(json.dumps({'usable': c.usable, 'text': c.text(), 'fp': fp['cpu_count'], "
        "'limit': fp['cpu_limit']}))"
    )
    out = subprocess.run(
        [*prefix, sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    return dict(json.loads(out.stdout))


@pytest.mark.skipif(
    (os.cpu_count() or 1) < 2 or shutil.which("taskset") is None,
    reason="a CPU set narrower than the node needs two cores and util-linux's taskset",
)
def test_a_process_under_taskset_counts_its_cpu_set_not_the_node() -> None:
    seen = _run_cores(["taskset", "-c", "0"])
    assert seen["usable"] == 1 and seen["fp"] == 1
    assert seen["limit"] == seen["text"]
    assert "a CPU set of 1" in str(seen["text"])


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="a quota below the node needs two cores")
def test_a_process_in_a_one_core_cgroup_counts_its_quota(one_core_cgroup: Path) -> None:
    # The process moves itself into the group before it reads its cores, as a container's
    # process starts in its own.
    procs = str(one_core_cgroup / "cgroup.procs")
    move = f"open({procs!r}, 'w').write(str(__import__('os').getpid())); "
    seen = _run_cores([], before=move)
    assert seen["usable"] == 1 and seen["fp"] == 1
    assert "a CPU quota of 1 core (" in str(seen["text"]), seen
