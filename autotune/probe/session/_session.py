"""One probe: run the user's script as ``__main__`` with the patch in place, then report.

What is measured is the mode's list of phases (``_phases.py``); the session feeds the
script's batches to the current phase, moves on when it is done, and writes the result.
"""

from __future__ import annotations

import contextlib
import os
import runpy
import sys
import traceback
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from pathlib import Path
from time import perf_counter
from typing import Any

from autotune.contract import (
    CONFIG_ENV,
    ProbeResult,
    ProbeSettings,
    ProgressLine,
    Status,
    TrialConfig,
)
from autotune.probe.loader import (
    CopyStats,
    Delivery,
    EndedIterator,
    ForeignLoader,
    GlobalDraws,
    IdleWatch,
    LoaderPatch,
    SettingsRefused,
    StreamPrefetcher,
    TimedIterator,
    make_streams,
    timed_pass,
)
from autotune.probe.machine import GpuSampler, TreeSampler, cuda_sync, log
from autotune.probe.measure import EpochClock, Meter, NvtxRanges, ProbeDone, RankSync
from autotune.probe.session import _failure as failure
from autotune.probe.session._phases import BasePhase, BatchPhase, MeasurePhase, phases_for
from autotune.probe.session._progress import append_progress, progress_writer
from autotune.probe.session._result import build_result
from autotune.probe.session._segments import Adapter
from autotune.probe.session._watch import NoDataLoader, NoLoaderWatch
from autotune.probe.session._workers_tmp import use_workers_tmp


class ProbeSession:
    def __init__(self, script: str, args: list[str], config: TrialConfig) -> None:
        self.script = script
        self.args = args
        self.config = config
        self.started = perf_counter()
        settings = config.settings
        self.nvtx = NvtxRanges()
        self.gpu = GpuSampler(settings.sample_interval_s)
        self._streams: list[Any] | None = None  # built at the first wrap, reused per epoch
        self.streams_applied = 0
        self.cpu_at_start = (0.0, 0.0)
        self.cpu_at_end: tuple[float, float] | None = None
        # Workers of the measured loader's iterators that gave nothing (``IdleWatch``), and
        # their count as the measurement ended.
        self.idle_watch = IdleWatch()
        # Whether loading in this process draws from the global generators (the answer says
        # what workers change where it does).
        self.global_draws = GlobalDraws()
        self.idle_workers: int | None = None
        # The multi-rank stop protocol, when the runner started ranks.
        ranks = RankSync.from_env()
        adapt = config.mode == "adapt"
        self.patch = LoaderPatch(
            config.loader,
            self._wrap,
            ranks=ranks,
            switchable=adapt,
            others=config.others,
            others_iterable=config.others_iterable,
            # A switched config that loads no batch in as long as a warm-up may take is hung.
            first_batch_timeout_s=max(1.0, settings.max_warmup_s),
        )
        self.watch = NoLoaderWatch(
            lambda: self.patch.loaders_iterated, lambda: self.patch.loaders_built
        )
        self.script_batches: int | None = None
        # The epoch on the wall clock, timed by the phase that measures the script's loader.
        self.clock = EpochClock()
        self.phases: list[BasePhase] = phases_for(config.mode, self, multi_rank=ranks is not None)
        first = self.phases[0] if self.phases else None
        # None in mode "run", which measures nothing.
        self.lead = first if isinstance(first, BatchPhase) else None
        if isinstance(first, MeasurePhase):
            # Only probes time the other loaders' passes: `autotune run` pays nothing for it.
            self.patch.on_other = partial(timed_pass, self.clock)
            self.patch.on_built = self.clock.built
        self._at = 0  # the current phase; len(phases) once every one is over
        self._written = False
        # A phase's result was written while phases were left: they rewrite it.
        self._kept = False
        measuring = self.lead is not None
        self.sampler = TreeSampler(
            settings.sample_interval_s,
            settings.max_host_mem_bytes if measuring or adapt else None,
            on_over_budget=self._over_budget,
            kill=not adapt,  # a live run is never killed: its settings are switched back
        )
        # Copy timing only where it is read; `autotune run` pays no event records for it.
        self.copy_stats = CopyStats() if measuring else None
        # Mode "adapt": the run measures segments for the search outside (``_adapt.py``).
        self.adapter = Adapter(config, self.patch, self.sampler) if adapt else None

    # --- what the phases use ----------------------------------------------------------------
    def meter(self, settings: ProbeSettings, *, lead: bool, extra_warmup_batches: int = 0) -> Meter:
        """A phase's meter. The lead's windows go to the progress file, and its measurement
        brackets the tree's CPU and the GPU readings; a later phase's figures are its own."""
        if not lead:
            return Meter(
                settings,
                extra_warmup_batches=extra_warmup_batches,
                sync=cuda_sync,
                on_done=self._phase_done,
            )
        meter = Meter(
            settings,
            extra_warmup_batches=extra_warmup_batches,
            sync=self._sync,
            on_window=progress_writer(self.config.progress_path),
            on_done=self._phase_done,
        )
        meter.on_measure_start = self._measure_start
        meter.on_measure_end = self._measure_end
        return meter

    def prefetch(self, it: Iterator[Any]) -> Iterator[Any]:
        k = self.config.loader.num_streams or 0
        if k <= 0:
            return it
        if self._streams is None:
            import torch

            if torch.cuda.is_available():
                self._streams = make_streams(k)
                self.streams_applied = k
            else:
                self._streams = []
                note = f"num_streams={k} not applied: CUDA is not available in this process"
                self.gpu.note(note)
                log(note)
        if not self._streams:
            return it
        return StreamPrefetcher(it, self._streams, nvtx=self.nvtx, stats=self.copy_stats)

    def shutdown_workers(self) -> None:
        it = self.patch.last_iterator
        shutdown = getattr(it, "_shutdown_workers", None)
        if shutdown is not None:
            with contextlib.suppress(Exception):  # the runner kills the group anyway
                shutdown()

    # --- wiring -----------------------------------------------------------------------------
    def _wrap(
        self, it: Iterator[Any], t_iter: float, delivered: Sequence[Delivery] = ()
    ) -> Iterator[Any]:
        if self.adapter is not None:
            return self.adapter.wrap(it, t_iter, delivered)
        if self.lead is None:  # the trial's settings and stream prefetch, nothing timed
            return self.prefetch(it)
        self.idle_watch.watch(self.patch.last_iterator)
        phase = self._current_batches()
        if phase is None:
            return EndedIterator(it)
        source, epoch_start = phase.source(it, t_iter, delivered)
        then = None
        if any(isinstance(p, BatchPhase) for p in self.phases[self._at + 1 :]):
            then = partial(self._follow, it)
        draws = self.global_draws.arm(it)
        return TimedIterator(source, phase.meter, self.nvtx, epoch_start, then, draws)

    def _follow(self, it: Iterator[Any]) -> tuple[Iterator[Any], Meter] | None:
        """A phase is done: the script's next batch comes from the next phase's source over
        the same loader iterator, or the script ends."""
        phase = self._current_batches()
        if phase is None:
            return None
        return phase.source(it, perf_counter(), ())[0], phase.meter

    def _current_batches(self) -> BatchPhase | None:
        phase = self.phases[self._at] if self._at < len(self.phases) else None
        return phase if isinstance(phase, BatchPhase) else None

    @property
    def finished(self) -> bool:
        return self._at >= len(self.phases)

    def _sync(self) -> None:
        cuda_sync()
        if self.copy_stats is not None:
            self.copy_stats.fold()  # every copy event has completed after the synchronize

    def _measure_start(self) -> None:
        self.cpu_at_start = self.sampler.cpu_snapshot()
        self.gpu.start()
        if self.copy_stats is not None:
            self.copy_stats.active = True

    def _measure_end(self) -> None:
        # Measurement is over: an exact memory reading here costs no window anything.
        self.cpu_at_end = self.sampler.cpu_snapshot(exact=True)
        self.idle_workers = self.idle_watch.idle()
        if self.copy_stats is not None:
            self.copy_stats.active = False
        self.gpu.stop()

    # --- from one phase to the next ---------------------------------------------------------
    def _phase_done(self) -> None:
        """The current phase's meter is done."""
        phase = self.phases[self._at]
        phase.finish()
        self._next()
        if phase.keeps and not self.finished:
            # Written now, so a probe killed in a later phase keeps this one's figures.
            self.write("ok")
            self._kept = True

    def _next(self, *, go_on: bool = True) -> None:
        """On past the current phase: each phase that takes no batches does its work (unless
        not ``go_on``: then none is reached), up to one that times the script's batches.
        With none left, the result is final."""
        self._at += 1
        while go_on and not self.finished:
            phase = self.phases[self._at]
            if isinstance(phase, BatchPhase):
                phase.begin()
                return
            try:
                phase.begin()
            except Exception as exc:
                if not self._kept:
                    raise
                phase.failed(exc)  # what was kept must survive anything a later phase does
            self._at += 1
        self._at = len(self.phases)
        if self._kept:
            self._written = False  # the kept result, rewritten whole
        # Written before unwinding the script, so nothing measured is lost if the script
        # swallows ProbeDone or hangs on its way out.
        self.write("ok")

    def _cut(self, status: Status, reason: str) -> None:
        """The script ended, or failed, after a result was kept and before the last phase
        was over: each phase left ends with what it has."""
        while not self.finished:
            self._next(go_on=self.phases[self._at].cut(status, reason))

    def _over_budget(self, rss: int) -> None:
        if self.adapter is not None:
            self.adapter.over_budget(rss)
            return
        limit = self.config.settings.max_host_mem_bytes or 0
        if self._kept and not self.finished and self.phases[self._at].over_budget(rss, limit):
            self._next(go_on=False)
            return
        self.write(
            "over_memory",
            f"host memory of the process tree (PSS: shared pages counted once) reached "
            f"{rss / 2**30:.2f} GiB, over the "
            f"budget of {limit / 2**30:.2f} GiB; the probe was stopped",
        )

    # --- result -----------------------------------------------------------------------------
    def result(self, status: Status, reason: str = "") -> ProbeResult:
        return build_result(self, status, reason)

    def write(self, status: Status, reason: str = "") -> None:
        if self._written or not self.config.result_path:
            return
        self._written = True
        self.result(status, reason).write(self.config.result_path)

    # --- run --------------------------------------------------------------------------------
    def run(self, before_final: Callable[[], None] | None = None) -> int:
        """Run the script; returns the process exit code. ``before_final`` runs just before
        the runner is told the result is final: from then on it may end the tree at once,
        so whatever the probe's process still has to write is written there."""
        script_path = str(Path(self.script).resolve())
        sys.argv = [self.script, *self.args]
        sys.path.insert(0, str(Path(script_path).parent))
        self.sampler.start()
        own_tmp = use_workers_tmp(self.config.workers_tmp)
        self.patch.install()
        lead = self.lead
        if lead is not None:
            self.watch.install()
            lead.begin()
        exit_code = 0
        status: Status = "ok"
        reason = ""
        ended_itself = False  # not stopped by the probe: the whole run was seen
        try:
            runpy.run_path(script_path, run_name="__main__")
            ended_itself = True
        except ProbeDone:
            pass
        except SettingsRefused as exc:
            exit_code, status, reason = 1, "not_applied", str(exc)
        except NoDataLoader as exc:
            exit_code, status, reason = 1, "no_dataloader", str(exc)
        except ForeignLoader as exc:
            exit_code, status, reason = 1, "not_applied", str(exc)
        except SystemExit as exc:
            exit_code, status, reason = failure.from_exit(exc.code)
            ended_itself = exit_code == 0
        except KeyboardInterrupt as exc:
            if lead is None:  # the user's real training (`autotune run`): as Python shows it
                _print_from_script(exc, script_path)
            status, reason, exit_code = "interrupted", "interrupted", 130
        except BaseException as exc:
            traceback.print_exc()
            exit_code = 1
            status, reason = failure.from_exception(exc, self.streams_applied)
        finally:
            self.watch.uninstall()
            self.patch.uninstall()
            own_tmp()
            self.sampler.stop()
            self.gpu.stop()
        if self.adapter is not None:
            # A training that failed (a rank's error, say) fails the segment it ended inside.
            failed = exit_code != 0 and status not in ("ok", "interrupted")
            self.adapter.finish((status, reason) if failed else None)
        if lead is None:
            return exit_code
        if ended_itself and lead.own_batches:  # a replay never ends an epoch
            self._script_ended()
        if self._kept and not self.finished:
            self._cut(status, reason)
        if self._written:
            exit_code = 0
        else:
            if status == "ok":
                status, reason = failure.without_result(
                    loaders_built=self.patch.loaders_built,
                    loaders_iterated=self.patch.loaders_iterated,
                    batches=lead.meter.batches + self.patch.unmetered_batches,
                    windows=self.config.settings.windows,
                    windows_done=len(lead.meter.windows),
                )
            self.write(status, reason)
        if before_final is not None:
            before_final()
        # The result is final and the script's own clean-up has run: the runner may end the
        # tree now rather than wait for the workers' shutdown and the interpreter's exit.
        append_progress(self.config.progress_path, ProgressLine(exit_code=exit_code))
        self.shutdown_workers()
        return exit_code

    def _script_ended(self) -> None:
        """The script ran to its end: its length is known, and the current phase may still
        count the window it ended inside."""
        metered = sum(p.meter.batches for p in self.phases if isinstance(p, BatchPhase))
        self.script_batches = self.patch.unmetered_batches + metered
        phase = self._current_batches()
        if phase is not None:
            phase.script_ended()


def _print_from_script(exc: BaseException, script_path: str) -> None:
    """The traceback Python prints for an uncaught exception: from the script's frame."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != script_path:
        tb = tb.tb_next
    traceback.print_exception(type(exc), exc, tb or exc.__traceback__)


def main(argv: list[str], before_final: Callable[[], None] | None = None) -> int:
    if not argv:
        print("usage: python -m autotune.probe SCRIPT [ARGS...]", file=sys.stderr)
        return 2
    config_path = os.environ.get(CONFIG_ENV)
    config = (
        TrialConfig.from_json(Path(config_path).read_text())
        if config_path
        else TrialConfig(mode="run")
    )
    os.environ.pop(CONFIG_ENV, None)  # the script's own subprocesses are not probes
    return ProbeSession(argv[0], argv[1:], config).run(before_final)
