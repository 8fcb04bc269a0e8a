"""Each probe in a fresh subprocess, in its own process group, killed whole when done."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from autotune.contract import ProbeResult, TrialConfig
from autotune.runner._base import BaseRunner, Target, WindowCallback
from autotune.runner._classify import classify
from autotune.runner._group import ProcessGroup, probe_command, probe_env
from autotune.runner._ranks import run_ranks


class SubprocessRunner(BaseRunner):
    """The real runner: ``python -m autotune.probe SCRIPT ARGS`` per trial."""

    def __init__(self, python: str = sys.executable, poll_s: float = 0.05) -> None:
        self.python = python
        self.poll_s = poll_s

    def run(
        self,
        target: Target,
        config: TrialConfig,
        *,
        timeout_s: float,
        on_window: WindowCallback | None = None,
    ) -> ProbeResult:
        with tempfile.TemporaryDirectory(prefix="autotune-probe-") as tmp:
            command = probe_command(self.python, target)
            group = ProcessGroup(command, poll_s=self.poll_s, folder=Path(tmp))
            if target.nproc_per_node > 1:  # torchrun-style ranks
                return run_ranks(group, Path(tmp), target, config, timeout_s, on_window)
            probe = group.add(Path(tmp), config, probe_env(target, config))
            return classify(probe, group.run(timeout_s, on_window), timeout_s)
