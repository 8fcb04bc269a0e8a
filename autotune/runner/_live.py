"""`autotune run`: the user's script trained once, with --adapt its loader's segments as trials.

``LiveRun`` starts the script under the probe in mode "adapt" (``probe/session/_segments.py``) and
exchanges files with it, or in mode "run" with settings already chosen; ``LiveRunner`` is
the runner the search drives: each ``run`` is one segment of that same process (segment 0,
the script as written, starts by itself), so the tuner's loop, stop rules and records work
unchanged. The script's output goes to the terminal: this is the user's real training.

Its processes are one ``ProcessTree`` (``_lifecycle.py``), as a probe's are, with two
differences: the training stays in autotune's process group, so that a terminal's Ctrl-C
reaches it as it would without autotune; and should autotune die, the training runs to its
end (the tree's watcher then ends what is left of it and removes the run's folder). A
segment is waited for by the probes' own watch loop (``_watch.py``).
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from types import TracebackType
from typing import IO, Literal

from autotune.contract import (
    CONFIG_ENV,
    FAILED_STATUSES,
    RUNNER_PID_ENV,
    AdaptOrder,
    Drift,
    LoaderConfig,
    LoaderFound,
    ProbeResult,
    ProbeSettings,
    TrialConfig,
    adapt_drift_path,
    adapt_loader_path,
    adapt_order_path,
    adapt_progress_path,
    adapt_rank_dir,
    adapt_segment_path,
    write_whole,
)
from autotune.runner._base import BaseRunner, Target, WindowCallback
from autotune.runner._classify import clearly_slower, cut_short
from autotune.runner._group import TERM_GRACE_S, probe_command, probe_env
from autotune.runner._interrupts import Interrupts, exit_status
from autotune.runner._lifecycle import ProcessTree
from autotune.runner._process import Progress
from autotune.runner._ranks import merge_rank_results
from autotune.runner._watch import watch

# After Ctrl-C, how long the training may take to end (and report the segment it ended
# inside) before the search stops without it: a script may catch KeyboardInterrupt and go on.
INTERRUPT_GRACE_S = 10.0
# The order the run follows should autotune die: its own settings to the end, as when the
# search fails (a failure of autotune's must never cost the user's run).
_OWN_SETTINGS = AdaptOrder(LoaderConfig(), settle=True).to_json()


def live_command(python: str, target: Target, mode: Literal["adapt", "run"]) -> list[str]:
    """The training under the probe; several ranks are started by torchrun, as the user
    would start them: a rank that fails ends the job as it would without autotune."""
    cmd = probe_command(python, target)
    if target.nproc_per_node > 1:
        launcher = [python, "-m", "torch.distributed.run", "--standalone"]
        return [*launcher, f"--nproc-per-node={target.nproc_per_node}", *cmd[1:]]
    return cmd


class LiveRun:
    """The one training process of a live run, and the files it shares with the search.

    Leaving the context waits for the training to end; on an error (the search's, not the
    training's) its whole tree is ended instead, DataLoader workers included. Either way the
    run's folder is removed only once nothing of the tree runs. Ctrl-C is the training's:
    autotune notes it (``interrupted``) and stops asking for segments, never kills it.
    """

    def __init__(
        self,
        target: Target,
        settings: ProbeSettings,
        *,
        loader: LoaderConfig | None = None,
        mode: Literal["adapt", "run"] = "adapt",
        others: LoaderConfig | None = None,
        others_iterable: bool = False,
        python: str = sys.executable,
        poll_s: float = 0.05,
        stdout: IO[str] | None = None,
    ) -> None:
        self.target = target
        self.world = max(1, target.nproc_per_node)
        self.poll_s = poll_s
        self.dir = Path(tempfile.mkdtemp(prefix=f"autotune-{mode}-"))
        # The workers' temporary files (TrialConfig.workers_tmp): removed with the folder.
        self.workers_tmp = Path(tempfile.mkdtemp(prefix="pymp-"))
        config = TrialConfig(
            loader=loader or LoaderConfig(),
            settings=settings,
            mode=mode,
            exchange_dir=str(self.dir) if mode == "adapt" else "",
            others=others,
            others_iterable=others_iterable,
            workers_tmp=str(self.workers_tmp),
        )
        (self.dir / "config.json").write_text(config.to_json(), encoding="utf-8")
        env = {**probe_env(target, config), CONFIG_ENV: str(self.dir / "config.json")}
        # The user's training outlives autotune, and under torchrun its ranks' parent is the
        # launcher: a probe's "die with the runner" check would end every rank at its start.
        env.pop(RUNNER_PID_ENV, None)
        self.interrupts = Interrupts(self._alone)
        self._finishing = False  # the run reported the segment it ended inside
        self._last_order = 0  # the index of the newest order written
        try:
            self._tree = ProcessTree(own_sessions=False, outlive=True, folder=self.dir)
        except BaseException:
            self._remove_folders()
            raise
        try:
            self.interrupts.__enter__()
            self.proc = self._tree.start(live_command(python, target, mode), env=env, stdout=stdout)
        except BaseException:
            self._close()
            raise
        if mode == "adapt":
            self._tree.will([adapt_order_path(self.dir, 1)], _OWN_SETTINGS)

    def __enter__(self) -> LiveRun:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            if kind is None or issubclass(kind, KeyboardInterrupt):
                self.proc.wait()  # the user's training ends by itself: it had any Ctrl-C too
            else:
                self._tree.terminate(TERM_GRACE_S)  # the search failed: the run must not outlive it
        finally:
            self._close()

    def _close(self) -> None:
        """Once the training ended (or was ended): what it left is ended (workers stuck in
        their exit, processes it started), then its folder goes, then the watcher."""
        self.interrupts.alone = lambda: False  # a Ctrl-C now must not cut this short
        try:
            self._tree.kill()
            if hasattr(self, "proc"):
                self.proc.wait()
            self._remove_folders()
        finally:
            self._tree.close()
            self.interrupts.__exit__()

    def _remove_folders(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)
        shutil.rmtree(self.workers_tmp, ignore_errors=True)

    def _alone(self) -> bool:
        proc = getattr(self, "proc", None)  # None: Ctrl-C before the training started
        return proc is not None and self._tree.ended(proc)

    @property
    def ended(self) -> bool:
        return self._finishing or self.proc.poll() is not None

    @property
    def interrupted(self) -> bool:
        """Ctrl-C (SIGINT) reached autotune while the training ran."""
        return self.interrupts.at is not None

    def pids(self) -> set[int]:
        """Every live process of the training: its own, its workers', its children's."""
        return self._tree.pids()

    def loader(self) -> LoaderFound | None:
        """What the run said of its training loader, once it found it."""
        try:
            return LoaderFound.from_json(adapt_loader_path(self._rank(0)).read_text("utf-8"))
        except FileNotFoundError:
            return None

    def _rank(self, rank: int) -> Path:
        return adapt_rank_dir(self.dir, rank, self.world)

    def _read(self, k: int) -> ProbeResult | None:
        """Segment ``k``'s result once every rank reported it: the job's. Its rate is the
        slowest rank's times the ranks (in lock-step, the slowest sets the job's pace); each
        rank's own figures are kept in ``ranks``."""
        paths = [adapt_segment_path(self._rank(r), k) for r in range(self.world)]
        if not all(path.exists() for path in paths):
            return None
        results = [ProbeResult.read(path) for path in paths]
        if self.world == 1:
            return results[0]
        job = merge_rank_results(results)
        rates = [res.samples_per_s for res in results]
        if job.status not in FAILED_STATUSES and all(rate is not None for rate in rates):
            job.samples_per_s = self.world * min(r for r in rates if r is not None)
        return job

    def order(self, k: int, order: AdaptOrder) -> None:
        # Should autotune die while this order is half written, the run's own settings land
        # where the run reads next; once it is written, after it.
        path, after = adapt_order_path(self.dir, k), adapt_order_path(self.dir, k + 1)
        self._tree.will([path, after], _OWN_SETTINGS)
        write_whole(path, order.to_json())
        self._last_order = max(self._last_order, k)
        self._tree.will([] if order.settle else [after], _OWN_SETTINGS)

    def keep_own_settings(self) -> None:
        """The search failed: the training goes on to its end with the script's own settings
        (a failure of autotune's must never end the user's run)."""
        self.settle(LoaderConfig())

    def settle(self, config: LoaderConfig) -> None:
        """The training keeps ``config`` to its end, whatever segment it is in."""
        self.order(self._last_order + 1, AdaptOrder(config, settle=True))

    def segment(
        self, k: int, timeout_s: float, on_window: WindowCallback | None = None
    ) -> ProbeResult:
        """Segment ``k``'s result once the run reports it; "pruned" when ``on_window`` says
        so or it takes longer than ``timeout_s``, "ended_early" when the run ends first.
        Raises KeyboardInterrupt when the run goes on ``INTERRUPT_GRACE_S`` after Ctrl-C."""
        # Rank 0's windows stand for the job's (the ranks go in lock-step): times the ranks.
        progress = Progress(adapt_progress_path(self._rank(0), k))
        world = self.world

        def windows() -> list[float]:
            return [w * world for w in progress.windows]

        def new_windows() -> list[tuple[int, float]]:
            return [(index, value * world) for index, value in progress.poll()]

        def reported() -> ProbeResult | None:
            res = self._read(k)
            if res is not None:
                self._finishing = self._finishing or res.status == "ended_early"
                for index, value in new_windows():  # every window reaches the search
                    if on_window is not None:
                        on_window(index, value)
            return res

        def stop() -> ProbeResult | None:
            code = self.proc.poll()
            if code is not None:
                res = reported()  # written in the moment before the run ended
                if res is not None:
                    return res
                why = "the training ended before this segment was measured"
                if code != 0:
                    why = f"the training failed (exit status {exit_status(code)}) in this segment"
                return cut_short(windows(), "ended_early", why)
            at = self.interrupts.at
            if at is not None and time.monotonic() - at > INTERRUPT_GRACE_S:
                raise KeyboardInterrupt  # the training goes on after Ctrl-C: the search stops
            return None

        why = (
            f"not measured within {timeout_s:.0f}s: the run did not iterate its "
            "training loader (evaluation, checkpoints?), or could not switch yet"
        )
        return watch(
            windows=new_windows,
            on_window=on_window,
            pruned=lambda: cut_short(windows(), "pruned", clearly_slower(windows())),
            stop=stop,
            timed_out=lambda: cut_short(windows(), "pruned", why),
            wait=lambda: time.sleep(self.poll_s),
            started=time.monotonic(),
            timeout_s=timeout_s,
            ready=reported,
        )

    def drift(self, k: int) -> Drift | None:
        """Once the run settled by order ``k`` says its data wait rose for good, what it
        measured; None once the training ends first (or Ctrl-C reached it)."""
        paths = [adapt_drift_path(self._rank(r), k) for r in range(self.world)]
        while True:
            for rank, path in enumerate(paths):  # any rank's rise: the job waits for it
                try:
                    found = Drift.from_json(path.read_text("utf-8"))
                except (FileNotFoundError, json.JSONDecodeError):
                    continue
                return replace(found, rank=rank)
            if self.ended or self.interrupted:
                return None
            # Nothing waits on this but the run's end: a slower poll than a segment's.
            time.sleep(max(self.poll_s, 0.2))

    def wait(self) -> int:
        """The training's exit status, as a shell reports it (128 + N for signal N)."""
        return exit_status(self.proc.wait())


class LiveRunner(BaseRunner):
    """Each probe the search asks for is the live run's next segment."""

    def __init__(self, live: LiveRun) -> None:
        self.live = live
        self.segments = 0  # asked so far; the next order is for this index

    def run(
        self,
        target: Target,
        config: TrialConfig,
        *,
        timeout_s: float,
        on_window: WindowCallback | None = None,
    ) -> ProbeResult:
        k, self.segments = self.segments, self.segments + 1
        if self.live.interrupted:
            raise KeyboardInterrupt  # Ctrl-C: no setting is tried on the user's run after it
        if k > 0:
            self.live.order(k, AdaptOrder(config.loader))
        return self.live.segment(k, timeout_s, on_window)

    def settle(self, config: LoaderConfig) -> None:
        """Keep ``config`` for the rest of the run."""
        self.live.order(self.segments, AdaptOrder(config, settle=True))
        self.segments += 1
