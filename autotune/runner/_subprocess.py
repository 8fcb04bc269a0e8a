"""Each probe in a fresh subprocess, in its own process group, killed whole when done."""

from __future__ import annotations

import contextlib
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from autotune.contract import CONFIG_ENV, ProbeResult, TrialConfig
from autotune.runner._base import BaseRunner, Target, WindowCallback
from autotune.runner._process import Progress, kill_group, last_error_line, tail_of

_TERM_GRACE_S = 3.0


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
            if target.nproc_per_node > 1:  # issue 11: torchrun-style ranks
                from autotune.runner._ranks import run_ranks

                return run_ranks(self, Path(tmp), target, config, timeout_s, on_window)
            return self._run(Path(tmp), target, config, timeout_s, on_window)

    def _run(
        self,
        tmp: Path,
        target: Target,
        config: TrialConfig,
        timeout_s: float,
        on_window: WindowCallback | None,
    ) -> ProbeResult:
        result_path = tmp / "result.json"
        progress = Progress(tmp / "progress.jsonl")
        config = replace(config, result_path=str(result_path), progress_path=str(progress.path))
        config_path = tmp / "config.json"
        config_path.write_text(config.to_json())
        log_path = tmp / "output.log"
        env = {**os.environ, **target.env, CONFIG_ENV: str(config_path)}
        if config.loader.device == "cpu":
            env["CUDA_VISIBLE_DEVICES"] = ""  # the script's own device choice falls to CPU
        cmd = [self.python, "-m", "autotune.probe", target.script, *target.args]
        started = time.monotonic()
        with log_path.open("wb") as log:
            proc = subprocess.Popen(
                cmd,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env,
                start_new_session=True,
            )
        timed_out = pruned = False
        try:
            while True:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=self.poll_s)
                for index, value in progress.poll():
                    if on_window is not None and not pruned and on_window(index, value):
                        pruned = True
                if pruned or proc.returncode is not None or progress.done:
                    break
                if time.monotonic() - started > timeout_s:
                    timed_out = True
                    break
            if progress.done and proc.returncode is None:
                # The probe's result is final and the script has unwound: what is left is
                # its interpreter's exit, which nothing reads.
                kill_group(proc.pid)
                proc.wait()
            if proc.returncode is None:
                kill_group(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(timeout=_TERM_GRACE_S)
                except subprocess.TimeoutExpired:
                    kill_group(proc.pid)
                    proc.wait()
        except BaseException:
            kill_group(proc.pid)
            proc.wait()
            raise
        finally:
            kill_group(proc.pid)  # workers that outlived their parent
        for index, value in progress.poll():
            if on_window is not None and not pruned:
                on_window(index, value)  # windows that landed as the probe exited
        wall = time.monotonic() - started
        rc = proc.returncode if progress.exit_code is None else progress.exit_code
        return self._classify(
            rc, result_path, log_path, progress, timed_out, pruned, timeout_s, wall
        )

    def _classify(
        self,
        rc: int,
        result_path: Path,
        log_path: Path,
        progress: Progress,
        timed_out: bool,
        pruned: bool,
        timeout_s: float,
        wall: float,
    ) -> ProbeResult:
        tail = tail_of(log_path)
        if result_path.exists() and not pruned:
            res = ProbeResult.read(result_path)
            res.exit_code, res.stderr_tail, res.wall_s = rc, tail, wall
            if res.status == "crashed" and not res.reason:
                res.reason = last_error_line(tail)
            return res
        res = ProbeResult(exit_code=rc, stderr_tail=tail, wall_s=wall, windows=progress.windows)
        if progress.windows:
            res.samples_per_s = statistics.median(progress.windows)
        if pruned:
            res.status = "pruned"
            res.reason = f"stopped after {len(progress.windows)} windows: clearly slower than best"
        elif timed_out:
            res.status = "hung"
            res.reason = (
                f"no result within the trial timeout of {timeout_s:.0f}s "
                f"({len(progress.windows)} windows measured); the process tree was killed. "
                "If the script is only slow to start, raise --trial-timeout"
            )
        elif rc == -signal.SIGKILL:
            res.status = "oom"
            res.reason = (
                "killed by SIGKILL with no result: most likely the kernel's out-of-memory "
                "killer; fewer workers or a smaller prefetch_factor use less memory"
            )
        elif rc != 0:
            res.status = "crashed"
            err = last_error_line(tail)
            res.reason = f"exit code {rc}" + (f": {err}" if err else "")
        else:
            res.status = "ended_early"
            res.reason = "the script exited without the probe's report (os._exit?)"
        return res
