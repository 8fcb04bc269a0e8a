"""The GPU benchmarks on a machine without CUDA: each says so in one line and exits 2,
measuring nothing (they run for real on a lent GPU: docs/benchmarks.md, "GPU path")."""

from __future__ import annotations

import subprocess
import sys

import pytest
import torch

from tests.conftest import ROOT


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the no-CUDA path; CUDA is here")
@pytest.mark.parametrize("script", ["gpu_checks.py", "gpu_path.py"])
def test_without_cuda_a_gpu_benchmark_says_so_and_measures_nothing(script: str) -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / script), "--json", "never-written.json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode == 2, proc.stderr
    assert "no CUDA device here" in proc.stderr and "Traceback" not in proc.stderr
    assert proc.stdout == ""
    assert not (ROOT / "never-written.json").exists()
