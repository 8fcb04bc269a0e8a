"""The conditional search space: what Optuna may suggest, under torch's rules.

prefetch_factor and persistent_workers exist only when num_workers > 0 (torch raises
otherwise); the CUDA parameters exist only where CUDA does; batch size only on request,
because it changes training itself; torch's intra-op threads only where another process held
cores while the script as written was measured (``threads``: the cores left, or torch's own
default, None).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import optuna

from autotune.contract import (
    BATCH_SIZE,
    DEFAULT_PREFETCH,
    NUM_WORKERS,
    PERSISTENT_WORKERS,
    PIN_MEMORY,
    PREFETCH_FACTOR,
    LoaderConfig,
)

PREFETCH_MAX = 8
STREAMS_MAX = 4


@dataclass(frozen=True)
class SearchSpace:
    max_workers: int
    cuda: bool = False
    batch_sizes: tuple[int, ...] = ()
    threads: tuple[int | None, ...] = ()

    @classmethod
    def for_machine(
        cls,
        *,
        cuda: bool,
        max_workers: int,
        script: LoaderConfig | None = None,
        tune_batch_size: bool = False,
        threads: tuple[int | None, ...] = (),
    ) -> SearchSpace:
        """The space up to ``max_workers`` (the worker count's own choice,
        ``tuner.workers.worker_range``), or the script's own count where that is more."""
        top = max_workers
        if script is not None and script.num_workers:
            top = max(top, script.num_workers)
        sizes: tuple[int, ...] = ()
        if tune_batch_size and script is not None and script.batch_size:
            b = script.batch_size
            sizes = tuple(sorted({max(1, b // 4), max(1, b // 2), b, b * 2, b * 4}))
        return cls(max_workers=top, cuda=cuda, batch_sizes=sizes, threads=threads)

    @property
    def step_fixed(self) -> bool:
        """No setting in this space changes the step: no device, copies, batch size or threads."""
        return not (self.cuda or self.batch_sizes or self.threads)

    def suggest(self, trial: optuna.Trial) -> LoaderConfig:
        workers = trial.suggest_int(NUM_WORKERS, 0, self.max_workers)
        prefetch = persistent = None
        if workers > 0:
            prefetch = trial.suggest_int(PREFETCH_FACTOR, 1, PREFETCH_MAX)
            persistent = trial.suggest_categorical(PERSISTENT_WORKERS, [False, True])
        pin = streams = device = None
        if self.cuda:
            device = str(trial.suggest_categorical("device", ["cuda", "cpu"]))
            if device == "cuda":
                pin = bool(trial.suggest_categorical(PIN_MEMORY, [False, True]))
                streams = trial.suggest_int("num_streams", 0, STREAMS_MAX)
        batch = None
        if self.batch_sizes:
            batch = int(trial.suggest_categorical(BATCH_SIZE, list(self.batch_sizes)))
        threads = None
        if self.threads:
            chosen = trial.suggest_categorical("threads", list(self.threads))
            threads = None if chosen is None else int(chosen)
        return LoaderConfig(
            num_workers=workers,
            prefetch_factor=prefetch,
            pin_memory=pin,
            persistent_workers=persistent,
            batch_size=batch,
            num_streams=streams,
            device=device,
            threads=threads,
        )

    def params(self, config: LoaderConfig) -> dict[str, Any]:
        """Optuna params for a concrete config (to enqueue it), clamped into the space."""
        workers = min(self.max_workers, max(0, config.num_workers or 0))
        out: dict[str, Any] = {NUM_WORKERS: workers}
        if workers > 0:
            out[PREFETCH_FACTOR] = min(
                PREFETCH_MAX, max(1, config.prefetch_factor or DEFAULT_PREFETCH)
            )
            out[PERSISTENT_WORKERS] = bool(config.persistent_workers)
        if self.cuda:
            device = config.device or "cuda"
            out["device"] = device
            if device == "cuda":
                out[PIN_MEMORY] = bool(config.pin_memory)
                out["num_streams"] = min(STREAMS_MAX, config.num_streams or 0)
        if self.batch_sizes and config.batch_size in self.batch_sizes:
            out[BATCH_SIZE] = config.batch_size
        if self.threads:
            out["threads"] = config.threads if config.threads in self.threads else None
        return out

    def distributions(self, params: dict[str, Any]) -> dict[str, Any]:
        """Distributions matching ``params``, for trials measured outside ``study.ask``."""
        dist = optuna.distributions
        table: dict[str, Any] = {
            NUM_WORKERS: dist.IntDistribution(0, self.max_workers),
            PREFETCH_FACTOR: dist.IntDistribution(1, PREFETCH_MAX),
            PERSISTENT_WORKERS: dist.CategoricalDistribution([False, True]),
            "device": dist.CategoricalDistribution(["cuda", "cpu"]),
            PIN_MEMORY: dist.CategoricalDistribution([False, True]),
            "num_streams": dist.IntDistribution(0, STREAMS_MAX),
        }
        if self.batch_sizes:
            table[BATCH_SIZE] = dist.CategoricalDistribution(list(self.batch_sizes))
        if self.threads:
            table["threads"] = dist.CategoricalDistribution(list(self.threads))
        return {k: table[k] for k in params}
