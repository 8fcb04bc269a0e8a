"""``python -m autotune.probe``: a probe dies with its runner, and only then."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autotune.contract import CONFIG_ENV, RUNNER_PID_ENV, LoaderConfig, TrialConfig
from tests.conftest import FAST, SCRIPTS


def _config(tmp_path: Path) -> dict[str, str]:
    path = tmp_path / "config.json"
    path.write_text(TrialConfig(loader=LoaderConfig(), settings=FAST).to_json())
    return {**os.environ, CONFIG_ENV: str(path)}


def test_a_probe_whose_runner_is_gone_before_it_starts_stops_itself(tmp_path: Path) -> None:
    # A session leader whose parent is not the runner named: the runner died and the probe
    # was handed to another process before PR_SET_PDEATHSIG could take effect.
    env = {**_config(tmp_path), RUNNER_PID_ENV: str(os.getpid() + 10**6)}
    cmd = [sys.executable, "-m", "autotune.probe", str(SCRIPTS / "basic.py"), "--epochs", "1"]
    proc = subprocess.run(cmd, env=env, start_new_session=True, capture_output=True, timeout=600)
    assert proc.returncode == 137
    assert not (tmp_path / "result.json").exists()


@pytest.mark.skipif(
    shutil.which("unshare") is None
    or subprocess.run(["unshare", "--pid", "--fork", "true"], capture_output=True).returncode,
    reason="a PID namespace cannot be made here (unshare needs root or user namespaces)",
)
def test_a_runner_that_is_pid_1_as_in_a_container_gets_its_probes_measured(
    tmp_path: Path,
) -> None:
    # `autotune join` as a container's command is PID 1, the parent an orphan would also
    # get: its probes once took that for their runner's death and killed themselves.
    db = f"sqlite:///{tmp_path / 'pid1.db'}"
    cli = [sys.executable, "-m", "autotune.cli", "probe", str(SCRIPTS / "basic.py")]
    args = ["--storage", db, "--trials", "1", "--warmup", "0.2", "--window", "0.3"]
    cmd = ["unshare", "--pid", "--fork", "--mount-proc", *cli, *args, "--json", "--"]
    proc = subprocess.run(
        [*cmd, "--epochs", "40", "--latency", "0.001"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert '"crashed"' not in proc.stdout, proc.stderr[-2000:]
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert '"samples_per_s"' in proc.stdout
