"""Each probe in a fresh process, in its own process group, killed whole when done.

A probe of the script alone is forked by a zygote that imported torch once for the whole
search (``_zygote.py``); ranks, and any probe the zygote cannot serve, are exec'd."""

from __future__ import annotations

import os
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

from autotune.contract import PRELOAD_ENV, ProbeResult, TrialConfig
from autotune.runner._base import BaseRunner, Target, WindowCallback
from autotune.runner._classify import classify
from autotune.runner._group import ProcessGroup, probe_command, probe_env
from autotune.runner._ranks import run_ranks
from autotune.runner._zygote import Zygote, zygote_wanted


class SubprocessRunner(BaseRunner):
    """The real runner: ``python -m autotune.probe SCRIPT ARGS`` per trial."""

    def __init__(self, python: str = sys.executable, poll_s: float = 0.05) -> None:
        self.python = python
        self.poll_s = poll_s
        self._zygote: Zygote | None = None
        # The script's libraries preloaded into the zygote (AUTOTUNE_ZYGOTE_PRELOAD=0: never).
        self._preload = os.environ.get(PRELOAD_ENV, "1") != "0"

    def run(
        self,
        target: Target,
        config: TrialConfig,
        *,
        timeout_s: float,
        on_window: WindowCallback | None = None,
    ) -> ProbeResult:
        # The workers' temporary files (TrialConfig.workers_tmp), removed after the tree ended;
        # named as multiprocessing names its own, where it would make it.
        with (
            tempfile.TemporaryDirectory(prefix="autotune-probe-") as tmp,
            tempfile.TemporaryDirectory(prefix="pymp-", ignore_cleanup_errors=True) as scratch,
        ):
            config = replace(config, workers_tmp=scratch)
            command = probe_command(self.python, target)
            if target.nproc_per_node > 1:  # torchrun-style ranks
                group = ProcessGroup(command, poll_s=self.poll_s, folder=Path(tmp))
                return run_ranks(group, Path(tmp), target, config, timeout_s, on_window)
            env = probe_env(target, config)
            group = ProcessGroup(
                command, poll_s=self.poll_s, folder=Path(tmp), zygote=self._zygote_for(env)
            )
            probe = group.add(Path(tmp), config, env)
            return classify(probe, group.run(timeout_s, on_window), timeout_s)

    def prestart(self, target: Target) -> None:
        """Start the zygote for probes of ``target`` now, without waiting for it: its import
        of torch overlaps whatever the caller does before the first probe."""
        if zygote_wanted() and target.nproc_per_node <= 1 and self._zygote is None:
            self._zygote = Zygote(
                self.python, probe_env(target, TrialConfig()), preload=self._preload
            )

    def close(self) -> None:
        """End the zygote, if one was started (also done when the runner is collected)."""
        if self._zygote is not None:
            self._zygote.close()
            self._zygote = None

    def _zygote_for(self, env: dict[str, str]) -> Zygote | None:
        """A zygote serving ``env``, started if need be; None: exec this probe."""
        if not zygote_wanted():
            return None
        if self._zygote is not None and self._zygote.serves(env):
            if self._zygote.start():  # at once where it is ready (a prestarted one may not be)
                return self._zygote
            self.close()
            return None
        if self._zygote is not None and self._zygote.tainted:
            self._preload = False  # its preloads made forking unsafe: none from now on
        self.close()
        zygote = Zygote(self.python, env, preload=self._preload)
        if not zygote.start():
            zygote.close()
            return None
        self._zygote = zygote
        return zygote
