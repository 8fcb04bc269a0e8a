"""One probe: run the user's script as ``__main__`` with the patch in place, then report."""

from __future__ import annotations

import contextlib
import os
import runpy
import sys
import traceback
from collections.abc import Iterator, Sequence
from functools import partial
from pathlib import Path
from time import perf_counter
from typing import Any

from autotune.contract import (
    CONFIG_ENV,
    ProbeResult,
    ProgressLine,
    Status,
    TrialConfig,
)
from autotune.probe import _failure as failure
from autotune.probe._audition import Delivery
from autotune.probe._gpu import GpuSampler, cuda_sync, log
from autotune.probe._iterators import ReplayIterator, TimedIterator, epoch_length
from autotune.probe._meter import Meter, ProbeDone
from autotune.probe._nvtx import NvtxRanges
from autotune.probe._patch import LoaderPatch, SettingsRefused
from autotune.probe._profile import ProfileTail
from autotune.probe._progress import append_progress, progress_writer
from autotune.probe._ranks import RankSync
from autotune.probe._result import build_result
from autotune.probe._sampler import TreeSampler
from autotune.probe._streams import CopyStats, StreamPrefetcher, make_streams
from autotune.probe._transport import TransportResult, measure_transport
from autotune.probe._watch import NoDataLoader, NoLoaderWatch


class ProbeSession:
    def __init__(self, script: str, args: list[str], config: TrialConfig) -> None:
        self.script = script
        self.args = args
        self.config = config
        self.started = perf_counter()
        settings = config.settings
        self.sampler = TreeSampler(
            settings.sample_interval_s,
            settings.max_host_mem_bytes if config.mode != "run" else None,
            on_over_budget=self._over_budget,
        )
        self.nvtx = NvtxRanges()
        ceiling = config.mode == "ceiling"
        self.meter = Meter(
            settings.for_ceiling() if ceiling else settings,
            extra_warmup_batches=settings.ceiling_cache_batches if ceiling else 0,
            sync=self._sync,
            on_window=progress_writer(config.progress_path),
            on_done=self._measurement_done,
        )
        self.meter.on_measure_start = self._measure_start
        self.meter.on_measure_end = self._measure_end
        ranks = RankSync.from_env()
        # Mode "baseline": after the baseline's windows, the compute ceiling in the same
        # process, timed by a meter of its own (own warm-up, own windows, no progress lines).
        self.ceiling_meter: Meter | None = None
        self.ceiling_status = ""
        self._in_ceiling = False
        self._ceiling_finished = False
        self._baseline_written = False
        self._baseline_peak: int | None = None
        if config.mode == "baseline":
            self.ceiling_status = "not measured: the baseline's windows were not complete"
            if ranks is None:
                self.ceiling_meter = Meter(
                    settings.for_ceiling(),
                    extra_warmup_batches=settings.ceiling_cache_batches,
                    sync=cuda_sync,
                    on_done=self._ceiling_done,
                )
            else:
                self.ceiling_status = "not measured: a multi-rank probe measures the baseline only"
        self.gpu = GpuSampler(settings.sample_interval_s)
        # Copy timing only where it is read; `autotune run` pays no event records for it.
        self.copy_stats = CopyStats() if config.mode in ("measure", "baseline") else None
        self._streams: list[Any] | None = None  # built at the first wrap, reused per epoch
        self.streams_applied = 0
        self._profiled = False
        self._cpu0 = (0.0, 0.0)
        self._cpu1: tuple[float, float] | None = None
        # issue 11: the multi-rank stop protocol, when the runner started ranks.
        self.patch = LoaderPatch(config.loader, self._wrap, ranks=ranks)
        self.watch = NoLoaderWatch(
            lambda: self.patch.loaders_iterated, lambda: self.patch.loaders_built
        )
        self._written = False
        self.transport: TransportResult | None = None
        self.script_batches: int | None = None
        self._ceiling_tail: float | None = None

    # --- wiring -----------------------------------------------------------------------------
    def _wrap(
        self, it: Iterator[Any], t_iter: float, delivered: Sequence[Delivery] = ()
    ) -> Iterator[Any]:
        # The same prefetcher in measure and run modes: what was measured is what runs.
        # The ceiling replays the script's own (CPU) batches: it prices the step, not copies.
        if self.config.mode == "baseline" and (self._in_ceiling or self.meter.done):
            following = self._to_ceiling(it)
            if following is not None:  # a new epoch after the baseline: the ceiling goes on
                return TimedIterator(*following, self.nvtx)
        source: Iterator[Any] = it if self.config.mode == "ceiling" else self._prefetch(it)
        if self.config.mode == "run":
            return source
        if not self.meter.measuring and not self.meter.done:
            # The loader, not the iterator: a library subclass's own iterator is a generator.
            loader = self.patch.current_loader
            workers = getattr(loader, "num_workers", None) or getattr(it, "_num_workers", 0)
            self.meter.workers = max(self.meter.workers, int(workers or 0))
            if self.config.mode != "ceiling":
                self.meter.epoch_batches = epoch_length(it) or epoch_length(loader)
        self.meter.iter_started(t_iter)
        self.meter.add_wait(perf_counter() - t_iter)
        if self.config.mode == "ceiling":
            # Its warm-up must outlast the loading of the batches it replays: not prewarmed.
            source = ReplayIterator(it, self.config.settings.ceiling_cache_batches)
        elif delivered and source is it:
            # (Through a stream prefetcher the measured source is not what was delivered.)
            self.meter.prewarm(delivered)
        then = None
        if self.ceiling_meter is not None:
            then = partial(self._to_ceiling, it)
        # An iteration that delivered batches before it was chosen is no epoch start now.
        timed = TimedIterator(source, self.meter, self.nvtx, None if delivered else t_iter, then)
        if self.config.profile_path and self.config.mode == "measure" and not self._profiled:
            return ProfileTail(
                timed,
                source,
                self.config.profile_steps,
                self.config.profile_path,
                self._profile_written,
            )
        return timed

    def _profile_written(self) -> None:
        self._profiled = True
        # The result was written when measurement ended; write it again naming the trace.
        self._written = False
        self.write("ok")

    def _prefetch(self, it: Iterator[Any]) -> Iterator[Any]:
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

    def _sync(self) -> None:
        cuda_sync()
        if self.copy_stats is not None:
            self.copy_stats.fold()  # every copy event has completed after the synchronize

    def _measure_start(self) -> None:
        self._cpu0 = self.sampler.cpu_snapshot()
        self.gpu.start()
        if self.copy_stats is not None:
            self.copy_stats.active = True

    def _measure_end(self) -> None:
        # Measurement is over: an exact memory reading here costs no window anything.
        self._cpu1 = self.sampler.cpu_snapshot(exact=True)
        if self.copy_stats is not None:
            self.copy_stats.active = False
        self.gpu.stop()

    def _to_ceiling(self, it: Iterator[Any]) -> tuple[Iterator[Any], Meter] | None:
        """Mode "baseline", the baseline done: the script's next batches come from a replay
        of the loader's (its raw iterator's: no stream prefetch) next ones, which loads
        ``ceiling_cache_batches`` (warm-up of the ceiling meter) and then replays them for
        as long as the ceiling needs: the epoch does not end early."""
        meter = self.ceiling_meter
        if meter is None or self._ceiling_finished:
            return None
        if not self._in_ceiling:
            self._in_ceiling = True
            meter.iter_started(perf_counter())
        return ReplayIterator(it, self.config.settings.ceiling_cache_batches), meter

    def _measure_transport(self) -> None:
        if not self.config.settings.transport:
            return
        self._shutdown_workers()  # the measured loader's workers would compete
        if self.patch.last_iterator is not None:
            self.transport = measure_transport(self.patch.last_iterator, self.config.settings)

    def _measurement_done(self) -> None:
        if self.config.mode == "ceiling":
            # The same process measures both ceilings: one start-up for the two.
            self._measure_transport()
        if self.config.mode == "baseline":
            # Written now, so a probe killed during the ceilings keeps its baseline; the
            # ceilings rewrite it.
            self._baseline_peak = self.sampler.peak_host_mem or None
            if self.ceiling_meter is not None:
                self.ceiling_status = "the probe was stopped before the compute ceiling was done"
            self.write("ok")
            self._baseline_written = True
            return
        # Written before unwinding the script, so nothing measured is lost if the script
        # swallows ProbeDone or hangs on its way out.
        self.write("ok")

    def _ceiling_done(self) -> None:
        self.ceiling_status = "ok"
        self._finish_ceiling(transport=True)

    def _finish_ceiling(self, *, transport: bool) -> None:
        """The compute ceiling is over (done or not): the transport ceiling, then the result."""
        self._ceiling_finished = True
        self._in_ceiling = False
        if transport:
            try:
                self._measure_transport()
            except Exception as exc:  # the baseline must survive anything here
                self.transport = TransportResult(reason=f"transport failed: {failure.short(exc)}")
        self._written = False
        self.write("ok")

    def _over_budget(self, rss: int) -> None:
        limit = self.config.settings.max_host_mem_bytes or 0
        if self._baseline_written and not self._ceiling_finished:
            # Over the budget during the ceilings: the baseline stands.
            self.ceiling_status = (
                f"the host-memory budget of {limit / 2**30:.2f} GiB was reached during the "
                f"ceilings ({rss / 2**30:.2f} GiB); the probe was stopped"
            )
            self._finish_ceiling(transport=False)
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
    def run(self) -> int:
        """Run the script; returns the process exit code."""
        script_path = str(Path(self.script).resolve())
        sys.argv = [self.script, *self.args]
        sys.path.insert(0, str(Path(script_path).parent))
        self.sampler.start()
        self.patch.install()
        if self.config.mode != "run":
            self.watch.install()
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
        except SystemExit as exc:
            exit_code, status, reason = failure.from_exit(exc.code)
            ended_itself = exit_code == 0
        except KeyboardInterrupt:
            status, reason, exit_code = "interrupted", "interrupted", 130
        except BaseException as exc:
            traceback.print_exc()
            exit_code = 1
            status, reason = failure.from_exception(exc, self.streams_applied)
        finally:
            self.watch.uninstall()
            self.patch.uninstall()
            self.sampler.stop()
            self.gpu.stop()
        if self.config.mode == "run":
            return exit_code
        if ended_itself and self.config.mode != "ceiling":  # a replay never ends an epoch
            self._script_ended()
        if self._baseline_written and not self._ceiling_finished:
            self._ceiling_ended(status, reason)
        if self._written:
            exit_code = 0
        else:
            if status == "ok":
                status, reason = failure.without_result(
                    loaders_built=self.patch.loaders_built,
                    loaders_iterated=self.patch.loaders_iterated,
                    batches=self.meter.batches + self.patch.unmetered_batches,
                    windows=self.config.settings.windows,
                    windows_done=len(self.meter.windows),
                )
            self.write(status, reason)
        # The result is final and the script's own clean-up has run: the runner may end the
        # tree now rather than wait for the workers' shutdown and the interpreter's exit.
        append_progress(self.config.progress_path, ProgressLine(exit_code=exit_code))
        self._shutdown_workers()
        return exit_code

    def _script_ended(self) -> None:
        """The script ran to its end: its length is known, and a window it ended inside
        still counts when it is a clean one."""
        ceiling = self.ceiling_meter.batches if self.ceiling_meter is not None else 0
        self.script_batches = self.patch.unmetered_batches + self.meter.batches + ceiling
        if not self._written:
            self.meter.close_partial()
        elif self.ceiling_meter is not None and not self._ceiling_finished:
            self.ceiling_meter.close_partial()

    def _ceiling_ended(self, status: Status, reason: str) -> None:
        """The script ended, or failed, after the baseline and before the ceilings were done."""
        meter = self.ceiling_meter
        if meter is None:  # no ceiling in this probe: its status already says why
            self._finish_ceiling(transport=False)
            return
        if status == "ok" and meter.windows:
            self.ceiling_status = "ok"  # the windows the script left time for
        elif status == "ok" and meter.tail_rate():
            # No full window, but the replay has no ramp: its batches after the cached ones
            # loaded are the step's own rate (a fit loop that ran out of steps).
            self.ceiling_status = "ok"
            self._ceiling_tail = meter.tail_rate()
        elif status == "ok":
            self.ceiling_status = (
                f"the script ended {meter.batches} batches into the compute ceiling, before "
                f"its {self.config.settings.windows} windows were complete "
                f"({len(meter.windows)} done)"
            )
        else:
            self.ceiling_status = (
                f"the script failed during the compute ceiling ({status}): {reason}"
            )
        # A script that ended cleanly still leaves its loader for the transport ceiling.
        self._finish_ceiling(transport=status == "ok")

    def _shutdown_workers(self) -> None:
        it = self.patch.last_iterator
        shutdown = getattr(it, "_shutdown_workers", None)
        if shutdown is not None:
            with contextlib.suppress(Exception):  # the runner kills the group anyway
                shutdown()


def main(argv: list[str]) -> int:
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
    return ProbeSession(argv[0], argv[1:], config).run()
