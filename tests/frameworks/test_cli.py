"""The multi-rank path as a user runs it: `autotune probe --nproc-per-node 2`, `autotune run`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from tests.conftest import MARK_ENV, SCRIPTS, assert_no_orphans

DDP = str(SCRIPTS / "frameworks" / "ddp_gloo.py")
SHORT = ["--warmup", "0.3", "--window", "0.4", "--windows", "3", "--patience", "2"]


def _cli(*args: str, mark: str, timeout: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "autotune.cli", *args],
        env={**os.environ, MARK_ENV: mark},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.mark.slow
def test_two_ranks_through_the_cli(tmp_path: Path) -> None:
    mark, url = uuid.uuid4().hex, f"sqlite:///{tmp_path / 'a.db'}"
    probed = _cli(
        "probe", DDP, "--nproc-per-node", "2", "--trials", "3", "--json", "--storage", url,
        *SHORT, mark=mark, timeout=600,
    )  # fmt: skip
    assert probed.returncode == 0, probed.stderr
    assert_no_orphans(mark)
    summary = json.loads(probed.stdout)
    assert summary["nproc_per_node"] == 2
    assert summary["measured_loader"]["dataset"] == "Slow"
    assert summary["measured_loader"]["batch_size"] == 8
    assert summary["baseline"]["config"]["num_workers"] == 0
    # Faster than as written; unless other processes' load moved between the baseline and the
    # trials on a busy machine, and the answer says it could not compare them (like with like).
    if summary["interference"]["comparison"] is None:
        gain = summary["recommended"]["samples_per_s"] / summary["baseline"]["samples_per_s"]
        assert gain > 1, (summary, probed.stderr)
    else:
        assert summary["speedup"] is None, summary
    assert "2 ranks each" in probed.stderr
    # The whole training with the recommendation, ranks started as the study measured them.
    ran = _cli(
        "run", DDP, "--study", summary["study"], "--storage", url, "--", "--steps", "40",
        mark=mark, timeout=600,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert_no_orphans(mark)
    assert ran.stdout.count("rank done") == 2, ran.stdout
    workers = summary["recommended"]["config"]["num_workers"]
    assert ran.stdout.count(f"workers {workers}") == 2, ran.stdout
