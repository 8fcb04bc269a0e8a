"""The processes of one probe: one for a script alone, one per rank for torchrun-style ranks.

Each is started in its own session, so its process group holds it and every DataLoader
worker it forks. They are one ``ProcessTree`` (``_lifecycle.py``, which the live run uses
too): ended whole on every way out, anything that left its group included, and by the
tree's watcher should autotune itself be killed. They are watched by the loop a live run's
segments use too (``_watch.py``).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from autotune.contract import (
    CONFIG_ENV,
    FAILED_STATUSES,
    RUNNER_PID_ENV,
    THREAD_ENVS,
    ProbeResult,
    TrialConfig,
)
from autotune.runner._base import Target, WindowCallback
from autotune.runner._lifecycle import ProcessTree
from autotune.runner._process import Progress
from autotune.runner._watch import watch
from autotune.runner._zygote import Child, Zygote

# After SIGTERM, how long the probes may unwind (the script's `finally` blocks) before SIGKILL.
TERM_GRACE_S = 3.0
# After every member wrote its result, how long they may take to exit: a rank can wait in
# its collectives' teardown for a peer that has already gone.
EXIT_GRACE_S = 5.0


def probe_command(python: str, target: Target) -> list[str]:
    return [python, "-m", "autotune.probe", target.script, *target.args]


def probe_env(target: Target, config: TrialConfig) -> dict[str, str]:
    """The environment every process of a probe of ``target`` starts from."""
    env = {**os.environ, **target.env, RUNNER_PID_ENV: str(os.getpid())}
    if config.loader.device == "cpu":
        env["CUDA_VISIBLE_DEVICES"] = ""  # the script's own device choice falls to CPU
    if config.loader.threads:
        # Read by torch when it starts its thread pools, before the script's first line runs
        # (MKL's own pool too, where torch was built with it), so the probe never has to
        # patch anything for it, and a script's own torch.set_num_threads still wins.
        for name in THREAD_ENVS:
            env[name] = str(config.loader.threads)
    return env


class Member:
    """One process of the group, and the files of its probe in ``directory``."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.env: dict[str, str] = {}
        self.progress = Progress(directory / "progress.jsonl")
        self._proc: Child | None = None

    @property
    def config_path(self) -> Path:
        return self.directory / "config.json"

    @property
    def result_path(self) -> Path:
        return self.directory / "result.json"

    @property
    def log_path(self) -> Path:
        return self.directory / "output.log"

    @property
    def started(self) -> bool:
        return self._proc is not None

    @property
    def proc(self) -> Child:
        if self._proc is None:
            raise RuntimeError(f"the probe in {self.directory} was never started")
        return self._proc

    @property
    def exit_code(self) -> int:
        """The code the probe reported once its result was final, else the process's own:
        a probe killed after reporting exited as the script would have."""
        if self.progress.exit_code is not None:
            return self.progress.exit_code
        code: int = self.proc.returncode  # type: ignore[assignment]  # waited for by run
        return code

    @property
    def running(self) -> bool:
        return self.proc.poll() is None

    def start(self, cmd: Sequence[str], tree: ProcessTree, zygote: Zygote | None = None) -> None:
        """Start the probe ``cmd`` (``python -m autotune.probe SCRIPT ARGS``): forked by
        ``zygote`` where it serves this member's environment, else exec'd."""
        if zygote is not None and zygote.serves(self.env):
            self._proc = tree.fork(zygote, cmd[3:], self.env, self.log_path)
            if self._proc is not None:
                return
        with self.log_path.open("wb") as log:
            self._proc = tree.start(
                cmd, env=self.env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT
            )

    def failed(self) -> bool:
        """Exited with an error, or wrote a failed result while still running."""
        code = self.proc.poll()
        if code is not None and code != 0:
            return True
        result = self._result()
        return result is not None and result.status in FAILED_STATUSES

    def reason(self) -> str | None:
        """The reason its result gives, once written."""
        result = self._result()
        return None if result is None else result.reason

    def _result(self) -> ProbeResult | None:
        if not self.result_path.exists():
            return None
        with contextlib.suppress(ValueError, OSError, TypeError, AttributeError):
            return ProbeResult.read(self.result_path)
        return None


@dataclass(frozen=True)
class Ending:
    """Why the group stopped being watched."""

    timed_out: bool = False
    pruned: bool = False
    failed: int | None = None  # the first member seen to fail (``fail_fast`` only)
    wall_s: float = 0.0


class ProcessGroup:
    """The processes of one probe, each in its own process group, from start to kill.

    ``add`` a member per process (1: the script alone; N: ranks), then ``run`` once: it starts
    them, streams their windows (window ``i`` is the sum of every member's window ``i``, sent
    once each has closed it), and stops at the first of: pruning, every member exited or
    reporting its result final, the timeout, and where asked, a member failing or every
    result written ``exit_grace_s`` ago. The whole tree is killed before ``run`` returns or
    raises.
    """

    def __init__(
        self,
        cmd: Sequence[str],
        *,
        poll_s: float = 0.05,
        folder: Path | None = None,
        zygote: Zygote | None = None,
    ) -> None:
        self.cmd = list(cmd)
        self.zygote = zygote  # forks the members where it serves their environment
        self.poll_s = poll_s
        self.folder = folder  # the probe's files: removed by the watcher if autotune dies
        self.members: list[Member] = []
        self._reported = 0

    def add(self, directory: Path, config: TrialConfig, env: Mapping[str, str]) -> Member:
        """A member probing ``config`` with its files in ``directory``; ``run`` starts it."""
        directory.mkdir(parents=True, exist_ok=True)
        member = Member(directory)
        config = replace(
            config,
            result_path=str(member.result_path),
            progress_path=str(member.progress.path),
        )
        member.config_path.write_text(config.to_json())
        member.env = {**env, CONFIG_ENV: str(member.config_path)}
        self.members.append(member)
        return member

    def run(
        self,
        timeout_s: float,
        on_window: WindowCallback | None = None,
        *,
        fail_fast: bool = False,
        exit_grace_s: float | None = None,
        echo: Callable[[str], bool] | None = None,
    ) -> Ending:
        """Start every member and watch them to the end; every process group is gone after.

        ``fail_fast``: a member that fails ends the group (ranks in lock-step would wait for
        it in a collective for ever). ``exit_grace_s``: once every member wrote its result,
        how long their exit is waited for. ``echo``: whether a failure's reason only echoes
        another member's ("Connection closed by peer"); while every failure is one, the others
        get up to ``exit_grace_s`` to record their own before they are stopped, since the
        member that went first may not have written its error yet.
        """
        if not self.members:
            raise ValueError("a process group needs at least one member")
        started = time.monotonic()
        with ProcessTree(own_sessions=True, folder=self.folder) as tree:
            try:
                for member in self.members:
                    member.start(self.cmd, tree, self.zygote)
                ending = self._watch(started, timeout_s, on_window, fail_fast, exit_grace_s, echo)
                if not self._all_done() and any(m.running for m in self.members):
                    # SIGTERM first, so the scripts' `finally` blocks run.
                    tree.terminate(TERM_GRACE_S)
            finally:
                tree.kill()  # workers that outlived their probe, or all of it
                for member in self.members:
                    if member.started:
                        member.proc.wait()
        for index, value in self._windows():
            if on_window is not None and not ending.pruned:
                on_window(index, value)  # windows that landed as the probes exited
        return replace(ending, wall_s=time.monotonic() - started)

    def _watch(
        self,
        started: float,
        timeout_s: float,
        on_window: WindowCallback | None,
        fail_fast: bool,
        exit_grace_s: float | None,
        echo: Callable[[str], bool] | None,
    ) -> Ending:
        all_written_at: float | None = None
        echoed_at: float | None = None

        def failed() -> int | None:
            return self._first_failed() if fail_fast else None

        def cause_pending() -> bool:
            """Only echoes so far, and another member may still record the cause."""
            nonlocal echoed_at
            if echo is None or exit_grace_s is None:
                return False
            failing = [m for m in self.members if m.failed()]
            if not all(echo(m.reason() or "") for m in failing):
                return False
            if not any(m.running and m not in failing for m in self.members):
                return False
            echoed_at = echoed_at or time.monotonic()
            return time.monotonic() - echoed_at <= exit_grace_s

        def stop() -> Ending | None:
            nonlocal all_written_at
            first = failed()
            if first is not None and cause_pending():
                return None
            if first is not None or self._all_done():
                return Ending(failed=first)
            if not any(m.running for m in self.members):
                return Ending()
            if exit_grace_s is not None and all(m.result_path.exists() for m in self.members):
                all_written_at = all_written_at or time.monotonic()
                if time.monotonic() - all_written_at > exit_grace_s:
                    return Ending()  # every member reported: do not wait on a slow unwind
            return None

        return watch(
            windows=self._windows,
            on_window=on_window,
            pruned=lambda: Ending(pruned=True, failed=failed()),
            stop=stop,
            timed_out=lambda: Ending(timed_out=True),
            wait=self._wait_for_one,
            started=started,
            timeout_s=timeout_s,
        )

    def _wait_for_one(self) -> None:
        """Up to ``poll_s``, returning early if the first running member exits."""
        running = next((m for m in self.members if m.running), None)
        if running is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                running.proc.wait(timeout=self.poll_s)

    def _windows(self) -> list[tuple[int, float]]:
        """The group's windows closed by every member since the last call."""
        for member in self.members:
            member.progress.poll()
        ready = min(len(m.progress.windows) for m in self.members)
        new = [
            (i, sum(m.progress.windows[i] for m in self.members))
            for i in range(self._reported, ready)
        ]
        self._reported = ready
        return new

    def _all_done(self) -> bool:
        """Every result final and every script unwound: the interpreters' exit is not read."""
        return all(m.progress.done for m in self.members)

    def _first_failed(self) -> int | None:
        return next((i for i, m in enumerate(self.members) if m.failed()), None)
