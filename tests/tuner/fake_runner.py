"""A fake probe runner for fast tuner tests: same interface as SubprocessRunner.

Throughput follows a simple model of a loader: each worker delivers one batch per
``load_s``; the step takes ``compute_s``; noise is multiplicative and seeded.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from autotune.contract import LoaderConfig, MeasuredLoader, ProbeResult, TrialConfig
from autotune.runner import BaseRunner, Target, WindowCallback


class FakeRunner(BaseRunner):
    def __init__(
        self,
        *,
        load_s: float = 0.1,
        compute_s: float = 0.01,
        batch: int = 32,
        script: LoaderConfig | None = None,
        noise: float = 0.02,
        cpu_bound: bool = False,
        cores: int = 2,
        fail: Callable[[LoaderConfig], str | None] = lambda c: None,
        after: Callable[[TrialConfig, ProbeResult], ProbeResult] = lambda c, r: r,
        load: Callable[[TrialConfig], tuple[float, float | None]] = lambda c: (1.0, None),
        seed: int = 0,
        cpu_speedup: float = 1.0,
        thread_slowdown: float = 1.0,
        shards: int | None = None,
        shards_in: str | None = None,
        copy_s: float = 0.0,
    ) -> None:
        self.after = after
        # Another process on the machine while a probe runs: (slowdown, cores it took), read
        # before the windows are reported, as the real probe reads them.
        self.load = load
        self.load_s, self.compute_s, self.batch = load_s, compute_s, batch
        self.script = script or LoaderConfig(
            num_workers=0,
            pin_memory=False,
            persistent_workers=False,
            batch_size=batch,
            num_streams=0,
            device="cpu",
        )
        self.noise, self.cpu_bound, self.cores = noise, cpu_bound, cores
        # How much faster the step runs with device="cpu" than on the GPU (a tiny model).
        self.cpu_speedup = cpu_speedup
        # How much longer the step takes with torch's threads on every core while another
        # process holds one (their barriers wait on the thread that shares its core); below 1,
        # how much shorter (a step that gains from every thread all the same).
        self.thread_slowdown = thread_slowdown
        self.fail = fail
        # A stream split among workers by whole shards: workers past ``shards`` idle (and are
        # reported so); ``shards_in``: the library that says the count, as the probe reads it.
        self.shards, self.shards_in = shards, shards_in
        # The step's own copy of its batch to the GPU, from pageable memory: a sixth of it
        # from pinned memory (55 against 9 GB/s on an H200), none of it on copy streams from
        # pinned memory (hidden behind the previous step), all of it on the CPU's step.
        self.copy_s = copy_s
        self.rng = random.Random(seed)
        self.calls: list[TrialConfig] = []

    def step_s(self, config: LoaderConfig) -> float:
        on_cpu = config.device == "cpu" and self.script.device == "cuda"
        step = self.compute_s / self.cpu_speedup if on_cpu else self.compute_s
        if self.copy_s and not on_cpu and not (config.num_streams and config.pin_memory):
            step += self.copy_s / 6 if config.pin_memory else self.copy_s
        crowded = (config.threads or self.cores) >= self.cores
        return step * self.thread_slowdown if crowded else step

    def rate(self, config: LoaderConfig, *, ceiling: bool = False) -> float:
        workers = config.num_workers or 0
        compute_s = self.step_s(config)
        if ceiling:
            return self.batch / compute_s
        if workers == 0:
            step = self.load_s + compute_s
        else:
            effective = min(workers, self.cores) if self.cpu_bound else workers
            effective = min(effective, self.shards or effective)
            step = max(compute_s, self.load_s / effective)
        return self.batch / step

    def run(
        self,
        target: Target,
        config: TrialConfig,
        *,
        timeout_s: float,
        on_window: WindowCallback | None = None,
    ) -> ProbeResult:
        """A measurement from the model, then ``after`` (a test's twist on it)."""
        self.calls.append(config)
        return self.after(config, self._measure(config, on_window))

    def _measure(self, config: TrialConfig, on_window: WindowCallback | None) -> ProbeResult:
        applied = config.loader.merged_over(self.script)
        if not applied.num_workers:
            applied = LoaderConfig(
                **{**applied.to_dict(), "prefetch_factor": None, "persistent_workers": False}
            )
        reason = self.fail(applied)
        if reason:
            return ProbeResult(
                status="crashed",
                reason=reason,
                script_config=self.script,
                applied_config=applied,
                wall_s=1.0,
            )
        slowdown, outside = self.load(config)
        mean = self.rate(applied, ceiling=config.mode == "ceiling") / slowdown
        windows: list[float] = []
        for i in range(config.settings.windows):
            windows.append(mean * (1 + self.rng.gauss(0, self.noise)))
            if on_window is not None and on_window(i, windows[-1]):
                # Like the real runner: a probe killed mid-run reports only its windows.
                return ProbeResult(status="pruned", windows=windows, wall_s=1.0)
            if config.settings.enough(windows):
                break  # like the real meter: windows that agree end the probe early
        workers = applied.num_workers or 0
        step = self.batch / mean
        if config.mode == "ceiling":
            wait = 0.0
        elif workers == 0:
            wait = self.load_s
        else:
            wait = max(0.0, step - self.step_s(applied))
        wall = 10.0
        batches = wall / step
        loader_cpu = 1.0 if self.cpu_bound else 0.05
        main_cpu = wall * (self.step_s(applied) / step) + (
            wall * wait / step * loader_cpu if workers == 0 else 0.0
        )
        worker_cpu = (
            min(workers, self.cores) * wall * (0.9 if self.cpu_bound else 0.05) if workers else 0.0
        )
        windows.sort()
        ceiling: dict[str, object] = {}
        if config.mode == "baseline":
            # Like the real probe: the ceiling replays batches after the script's own windows.
            top = self.rate(applied, ceiling=True) / slowdown
            ceiling_windows = sorted(
                top * (1 + self.rng.gauss(0, self.noise)) for _ in range(config.settings.windows)
            )
            ceiling = {
                "ceiling_windows": ceiling_windows,
                "ceiling_samples_per_s": ceiling_windows[len(ceiling_windows) // 2],
                "ceiling_status": "ok",
            }
        said = None
        if self.shards_in:
            said = MeasuredLoader(shards=self.shards, shards_in=self.shards_in)
        return ProbeResult(
            **ceiling,  # type: ignore[arg-type]
            measured_loader=said,
            idle_workers=max(0, workers - self.shards) if self.shards and workers else None,
            status="ok",
            script_config=self.script,
            applied_config=applied,
            windows=windows,
            samples_per_s=sorted(windows)[len(windows) // 2],
            step_p50_s=step,
            step_p95_s=step * 1.1,
            data_wait_fraction=wait / step,
            wait_per_batch_s=wait,
            compute_per_batch_s=step - wait,
            time_to_first_batch_s=0.1,
            batches=int(batches),
            samples=int(batches * self.batch),
            batch_size=self.batch,
            main_cpu_s=main_cpu,
            worker_cpu_s=worker_cpu,
            measured_wall_s=wall,
            peak_rss_bytes=2**28 * (1 + workers),
            cpu_count=self.cores,
            torch_threads=applied.threads or self.cores,
            wall_s=3.0,
            startup_fraction=0.0,
            epoch_starts=0,
            interference_cores=[] if outside is None else [outside] * len(windows),
            ceiling_interference_cores=[]
            if outside is None
            else [outside] * len(ceiling.get("ceiling_windows", [])),  # type: ignore[arg-type]
        )
