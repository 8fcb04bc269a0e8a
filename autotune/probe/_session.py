"""One probe: run the user's script as ``__main__`` with the patch in place, then report."""

from __future__ import annotations

import contextlib
import os
import runpy
import sys
import traceback
from collections.abc import Iterator
from pathlib import Path
from time import perf_counter
from typing import Any

from autotune.contract import (
    CONFIG_ENV,
    STREAMS_CPU_WORK,
    LoaderConfig,
    ProbeResult,
    Status,
    TrialConfig,
)
from autotune.probe._gpu import GpuSampler, log
from autotune.probe._meter import Meter, ProbeDone, ReplayIterator, TimedIterator, progress_writer
from autotune.probe._nvtx import NvtxRanges
from autotune.probe._patch import LoaderPatch
from autotune.probe._profile import ProfileTail
from autotune.probe._sampler import TreeSampler
from autotune.probe._streams import CopyStats, StreamPrefetcher, make_streams

# What torch says when a script does CPU work on a batch that is already on the GPU.
_CPU_WORK_SIGNS = (
    "can't convert cuda",
    "cannot convert a cuda",
    "expected all tensors to be on the same device",
    "expected object of device type cpu",
    "expected a 'cpu' device type",
)


def _cuda_sync() -> None:
    import torch

    if torch.cuda.is_available() and torch.cuda.is_initialized():  # type: ignore[no-untyped-call]
        torch.cuda.synchronize()


def _is_oom(exc: BaseException) -> bool:
    if isinstance(exc, MemoryError):
        return True
    name = type(exc).__name__
    text = str(exc).lower()
    return name == "OutOfMemoryError" or "out of memory" in text or "alloc_failed" in text


def _is_cuda_oom(exc: BaseException) -> bool:
    text = f"{type(exc).__module__} {exc}".lower()
    return "cuda" in text or "cublas" in text or "cudnn" in text


def _cpu_work_on_batch(exc: BaseException) -> bool:
    """The script treated a prefetched (GPU) batch as a CPU one."""
    if not isinstance(exc, (TypeError, RuntimeError, ValueError)):
        return False
    text = str(exc).lower()
    return any(sign in text for sign in _CPU_WORK_SIGNS)


def _short(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}".strip()
    return text.splitlines()[0][:300] if text else type(exc).__name__


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
        self.meter = Meter(
            settings,
            extra_warmup_batches=settings.ceiling_cache_batches if config.mode == "ceiling" else 0,
            sync=self._sync,
            on_window=progress_writer(config.progress_path),
            on_done=self._measurement_done,
        )
        self.meter.on_measure_start = self._measure_start
        self.meter.on_measure_end = self._measure_end
        self.gpu = GpuSampler(settings.sample_interval_s)
        # Copy timing only where it is read; `autotune run` pays no event records for it.
        self.copy_stats = CopyStats() if config.mode == "measure" else None
        self._streams: list[Any] | None = None  # built at the first wrap, reused per epoch
        self.streams_applied = 0
        self._profiled = False
        self._cpu0 = (0.0, 0.0)
        self._cpu1: tuple[float, float] | None = None
        self.patch = LoaderPatch(config.loader, self._wrap)
        self._written = False

    # --- wiring -----------------------------------------------------------------------------
    def _wrap(self, it: Iterator[Any], t_iter: float) -> Iterator[Any]:
        # The same prefetcher in measure and run modes: what was measured is what runs.
        # The ceiling replays the script's own (CPU) batches: it prices the step, not copies.
        source: Iterator[Any] = it if self.config.mode == "ceiling" else self._prefetch(it)
        if self.config.mode == "run":
            return source
        self.meter.iter_started(t_iter)
        self.meter.add_wait(perf_counter() - t_iter)
        if self.config.mode == "ceiling":
            source = ReplayIterator(it, self.config.settings.ceiling_cache_batches)
        timed = TimedIterator(source, self.meter, None, self.nvtx, t_iter)
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
        _cuda_sync()
        if self.copy_stats is not None:
            self.copy_stats.fold()  # every copy event has completed after the synchronize

    def _measure_start(self) -> None:
        self._cpu0 = self.sampler.cpu_snapshot()
        self.gpu.start()
        if self.copy_stats is not None:
            self.copy_stats.active = True

    def _measure_end(self) -> None:
        self._cpu1 = self.sampler.cpu_snapshot()
        if self.copy_stats is not None:
            self.copy_stats.active = False
        self.gpu.stop()

    def _measurement_done(self) -> None:
        # Written before unwinding the script, so nothing measured is lost if the script
        # swallows ProbeDone or hangs on its way out.
        self.write("ok")

    def _over_budget(self, rss: int) -> None:
        limit = self.config.settings.max_host_mem_bytes or 0
        self.write(
            "over_memory",
            f"host memory of the process tree reached {rss / 2**30:.2f} GiB, over the "
            f"budget of {limit / 2**30:.2f} GiB; the probe was stopped",
        )

    # --- result -----------------------------------------------------------------------------
    def result(self, status: Status, reason: str = "") -> ProbeResult:
        res = ProbeResult(status=status, reason=reason)
        for key, value in self.meter.summary().items():
            setattr(res, key, value)
        res.script_config = self.patch.script_config or LoaderConfig()
        res.applied_config = self.patch.applied_config or LoaderConfig()
        res.applied_config = LoaderConfig(
            **{
                **res.applied_config.to_dict(),
                "num_streams": self.streams_applied,
                "device": self._device(),
            }
        )
        res.script_config = LoaderConfig(
            **{**res.script_config.to_dict(), "device": self._device()}
        )
        if self.meter.measure_start is not None:
            end = self._cpu1 or self.sampler.cpu_snapshot()
            res.main_cpu_s = end[0] - self._cpu0[0]
            res.worker_cpu_s = end[1] - self._cpu0[1]
        res.peak_rss_bytes = self.sampler.peak_rss or None
        gpu = {**self.gpu.fields, "notes": list(self.gpu.fields["notes"])}
        gpu["num_streams"] = self.streams_applied
        if self.copy_stats is not None and self.streams_applied:
            gpu.update(self.copy_stats.summary())
        res.gpu = gpu
        if self._profiled:
            res.profile_path = self.config.profile_path
        res.cpu_count = os.cpu_count()
        res.wall_s = perf_counter() - self.started
        if self.meter.measured_batches and res.samples_per_s:
            res.batch_size = round(self.meter.measured_samples / self.meter.measured_batches)
        return res

    def _device(self) -> str:
        if "torch" in sys.modules:
            import torch

            if torch.cuda.is_available():
                return "cuda"
        return "cpu"

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
        exit_code = 0
        status: Status = "ok"
        reason = ""
        try:
            runpy.run_path(script_path, run_name="__main__")
        except ProbeDone:
            pass
        except SystemExit as exc:
            code = exc.code
            exit_code = code if isinstance(code, int) else (0 if code is None else 1)
        except KeyboardInterrupt:
            status, reason, exit_code = "interrupted", "interrupted", 130
        except BaseException as exc:
            traceback.print_exc()
            exit_code = 1
            status = "oom" if _is_oom(exc) else "crashed"
            reason = self._reason(exc, status)
        finally:
            self.patch.uninstall()
            self.sampler.stop()
            self.gpu.stop()
        if self.config.mode == "run":
            return exit_code
        if self._written:
            self._shutdown_workers()
            return 0
        if status == "ok":
            if self.patch.loaders_iterated == 0:
                status = "no_dataloader"
                reason = (
                    "the script never iterated a torch DataLoader"
                    if self.patch.loaders_built == 0
                    else "the script built a DataLoader but never iterated it"
                )
            else:
                status = "ended_early"
                reason = (
                    f"the script ended after {self.meter.batches} batches, before "
                    f"{self.config.settings.windows} measurement windows were complete "
                    f"({len(self.meter.windows)} done); figures cover what there was"
                )
        self.write(status, reason)
        self._shutdown_workers()
        return exit_code

    def _reason(self, exc: BaseException, status: Status) -> str:
        if status == "oom" and _is_cuda_oom(exc):
            return f"CUDA out of memory on the GPU: {_short(exc)}"
        if self.streams_applied and _cpu_work_on_batch(exc):
            # Stream prefetch hands the script batches already on the GPU; a script that
            # computes on them with CPU code cannot use it. Say so rather than "crashed".
            return (
                f"{STREAMS_CPU_WORK} (num_streams={self.streams_applied} puts them on the "
                f"GPU before the script sees them): {_short(exc)}"
            )
        return _short(exc)

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
