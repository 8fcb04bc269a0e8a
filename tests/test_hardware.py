"""The hardware fingerprint: the same key with and without torch imported."""

from __future__ import annotations

import json
import subprocess
import sys

import torch

from autotune.hardware import fingerprint, torch_build


def test_the_fingerprint_reads_torchs_build_without_importing_torch() -> None:
    # Studies are keyed by the fingerprint's id: reading torch's version file must give what
    # torch itself says, or every stored study would stop matching this machine.
    code = (
        "import json, sys; from autotune.hardware import fingerprint; fp = fingerprint(); "
        "print(json.dumps({'fp': fp, 'torch': 'torch' in sys.modules}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    fresh = json.loads(out.stdout)
    assert fresh["torch"] is False  # a second of CPU the CLI no longer spends
    assert fresh["fp"]["torch"] == torch.__version__.split("+")[0]
    assert fresh["fp"]["cuda"] == torch.version.cuda
    assert fresh["fp"]["id"] == fingerprint()["id"]  # this process has torch imported


def test_with_torch_imported_its_own_figures_are_used() -> None:
    assert "torch" in sys.modules
    assert torch_build() == (str(torch.__version__), torch.version.cuda)
