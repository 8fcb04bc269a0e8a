"""`autotune run --adapt`: the user's script trained once, its loader's segments as trials.

``LiveRun`` starts the script under the probe in mode "adapt" (``probe/_adapt.py``) and
exchanges files with it; ``LiveRunner`` is the runner the search drives: each ``run`` is one
segment of that same process (segment 0, the script as written, starts by itself), so the
tuner's loop, stop rules and records work unchanged. The script's output goes to the
terminal: this is the user's real training.
"""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from autotune.contract import (
    CONFIG_ENV,
    AdaptOrder,
    LoaderConfig,
    ProbeResult,
    ProbeSettings,
    TrialConfig,
    adapt_loader_path,
    adapt_order_path,
    adapt_progress_path,
    adapt_segment_path,
    write_whole,
)
from autotune.runner._base import BaseRunner, Target, WindowCallback
from autotune.runner._group import probe_command, probe_env
from autotune.runner._process import Progress


class LiveRun:
    """The one training process of an adaptive run, and the files it shares with the search."""

    def __init__(
        self,
        target: Target,
        settings: ProbeSettings,
        *,
        python: str = sys.executable,
        poll_s: float = 0.05,
        stdout: IO[str] | None = None,
    ) -> None:
        self.target = target
        self.poll_s = poll_s
        self.dir = Path(tempfile.mkdtemp(prefix="autotune-adapt-"))
        config = TrialConfig(settings=settings, mode="adapt", exchange_dir=str(self.dir))
        (self.dir / "config.json").write_text(config.to_json(), encoding="utf-8")
        env = {**probe_env(target, config), CONFIG_ENV: str(self.dir / "config.json")}
        # The same process group as this one: Ctrl-C reaches the training as it would
        # without autotune, and the script's output is the user's to see.
        self.proc = subprocess.Popen(probe_command(python, target), env=env, stdout=stdout)
        self._finishing = False  # the run reported the segment it ended inside
        self._last_order = 0  # the index of the newest order written

    def __enter__(self) -> LiveRun:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            if self.proc.poll() is None and kind is not None:
                if not issubclass(kind, KeyboardInterrupt):
                    self.proc.terminate()  # the search failed: the run must not outlive it
                self.proc.wait()
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)

    @property
    def ended(self) -> bool:
        return self._finishing or self.proc.poll() is not None

    def loader(self) -> dict[str, Any] | None:
        """What the run said of its training loader, once it found it."""
        try:
            found: dict[str, Any] = json.loads(adapt_loader_path(self.dir).read_text("utf-8"))
        except FileNotFoundError:
            return None
        return found

    def order(self, k: int, order: AdaptOrder) -> None:
        write_whole(adapt_order_path(self.dir, k), order.to_json())
        self._last_order = max(self._last_order, k)

    def keep_own_settings(self) -> None:
        """The search failed: the training goes on to its end with the script's own settings
        (a failure of autotune's must never end the user's run)."""
        self.order(self._last_order + 1, AdaptOrder(LoaderConfig(), settle=True))

    def segment(
        self, k: int, timeout_s: float, on_window: WindowCallback | None = None
    ) -> ProbeResult:
        """Segment ``k``'s result once the run reports it; "pruned" when ``on_window`` says
        so or it takes longer than ``timeout_s``, "ended_early" when the run ends first."""
        path = adapt_segment_path(self.dir, k)
        progress = Progress(adapt_progress_path(self.dir, k))
        deadline = time.monotonic() + timeout_s
        while True:
            if path.exists():
                res = ProbeResult.read(path)
                self._finishing = self._finishing or res.status == "ended_early"
                for index, value in progress.poll():  # every window reaches the search
                    if on_window is not None:
                        on_window(index, value)
                return res
            for index, value in progress.poll():
                if on_window is not None and on_window(index, value):
                    return _cut(progress.windows, "pruned", _clearly_slower(progress.windows))
            if self.proc.poll() is not None:
                if path.exists():  # written in the moment before the run ended
                    continue
                why = "the training ended before this segment was measured"
                return _cut(progress.windows, "ended_early", why)
            if time.monotonic() > deadline:
                why = (
                    f"not measured within {timeout_s:.0f}s: the run did not iterate its "
                    "training loader (evaluation, checkpoints?), or could not switch yet"
                )
                return _cut(progress.windows, "pruned", why)
            time.sleep(self.poll_s)

    def wait(self) -> int:
        return self.proc.wait()


def _clearly_slower(windows: list[float]) -> str:
    return f"stopped after {len(windows)} windows: clearly slower than best"


def _cut(windows: list[float], status: Any, reason: str) -> ProbeResult:
    res = ProbeResult(status=status, reason=reason, windows=list(windows))
    if windows:
        res.samples_per_s = statistics.median(windows)
    return res


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
        if k > 0:
            self.live.order(k, AdaptOrder(config.loader))
        return self.live.segment(k, timeout_s, on_window)

    def settle(self, config: LoaderConfig) -> None:
        """Keep ``config`` for the rest of the run."""
        self.live.order(self.segments, AdaptOrder(config, settle=True))
        self.segments += 1
