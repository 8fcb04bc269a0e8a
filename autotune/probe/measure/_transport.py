"""The transport ceiling: what the loader's own machinery delivers when samples cost nothing.

A few real samples of the measured loader's dataset are cached (whole batches, where the dataset
fetches them with ``__getitems__``), each owning its bytes; a DataLoader over them, with the
script's collate_fn, batch sampler (or batch size) and pin_memory, is drained with no step.
No worker count can beat this rate: it is what sampling, collation, inter-process transport and
pinning cost by themselves. Beside the compute ceiling (the step with no data cost), it says
which side binds a config that is slower than both.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from itertools import islice
from time import perf_counter
from typing import Any

import torch
from torch.utils.data import DataLoader, Dataset

from autotune.contract import DEFAULT_PREFETCH, LoaderConfig, ProbeSettings
from autotune.hardware import job_cores
from autotune.probe.measure._meter import Meter
from autotune.probe.measure._samples import count_samples, map_tensors

# Samples cached from the dataset: at most this many, and at most this long to read them once
# a batch is read (the dataset may be slow: that is why the script is being tuned).
CACHE_SAMPLES = 256
CACHE_BUDGET_S = 1.0
# Each drain's windows and least warm-up, as shares of the probe's own: free samples give
# steady, high rates, thousands of batches a second (docs/benchmarks.md, "The baseline's
# ceilings, shorter").
DRAIN_SHARE = 1 / 8
# Each transport measurement stops here even if its windows are not done.
MEASURE_CAP_S = 15.0


@dataclass
class TransportResult:
    by_workers: dict[int, float] = field(default_factory=dict)
    reason: str = ""

    @property
    def best(self) -> float | None:
        return max(self.by_workers.values()) if self.by_workers else None


class CachedSamples(Dataset[Any]):
    """Any index maps onto a cached sample: reading one costs a list lookup."""

    def __init__(self, samples: list[Any]) -> None:
        self.samples = samples

    def __len__(self) -> int:
        return 2**62

    def __getitem__(self, index: int) -> Any:
        return self.samples[index % len(self.samples)]


class CachedBatches(Dataset[Any]):
    """A dataset that fetches whole batches (``__getitems__``) stood in for by batches it
    fetched: the loader gets what the real one gets, one object per batch for its collate_fn,
    never a list of samples the real loader never saw."""

    def __init__(self, batches: list[Any]) -> None:
        self.batches = batches

    def __len__(self) -> int:
        return 2**62

    def __getitem__(self, index: int) -> Any:
        raise TypeError("CachedBatches is read a batch at a time (__getitems__)")

    def __getitems__(self, indices: list[int]) -> Any:
        return self.batches[(indices[0] // max(1, len(indices))) % len(self.batches)]


def _own(data: Any) -> Any:
    """``data`` with every tensor that views a larger storage copied into its own.

    A view sent through a worker queue moves its whole storage into shared memory (a slice of
    an in-memory dataset: all of it), while the real loader's batch owns its bytes; the stand-in
    must move what the real one moves."""

    def owned(t: torch.Tensor) -> torch.Tensor:
        return t.clone() if t.untyped_storage().nbytes() > t.element_size() * t.numel() else t

    return map_tensors(owned, data)


def _cache(it: Any, batch_size: int) -> tuple[Dataset[Any] | None, str]:
    dataset = it._dataset
    want = max(batch_size, min(CACHE_SAMPLES, 4 * batch_size))
    deadline = perf_counter() + CACHE_BUDGET_S
    getitems = getattr(dataset, "__getitems__", None)
    if it._dataset_kind == 0 and it._auto_collation and callable(getitems):
        batches: list[Any] = []
        try:
            for indices in islice(iter(it._index_sampler), max(1, -(-want // batch_size))):
                batches.append(_own(getitems(list(indices))))
                if perf_counter() > deadline:
                    break
        except Exception as exc:  # the dataset may need its worker_init_fn: not fatal here
            return None, f"reading batches in the main process failed: {type(exc).__name__}"
        return CachedBatches(batches), ""
    samples: list[Any] = []
    if it._dataset_kind == 1:  # _DatasetKind.Iterable
        source: Any = iter(dataset)
    else:
        indices = iter(it._index_sampler)
        if it._auto_collation:
            source = (dataset[i] for batch in indices for i in batch)
        else:
            source = (dataset[i] for i in indices)
    try:
        for sample in islice(source, want):
            samples.append(_own(sample))
            if perf_counter() > deadline and len(samples) >= batch_size:
                break
    except Exception as exc:  # the dataset may need its worker_init_fn: not fatal here
        return None, f"reading samples in the main process failed: {type(exc).__name__}"
    if not samples:
        return None, "the dataset gave no samples"
    return CachedSamples(samples), ""


def _loader(it: Any, cached: Dataset[Any], workers: int) -> DataLoader[Any]:
    # Persistent: the machinery's steady rate, not epoch starts.
    kwargs: dict[str, Any] = LoaderConfig(
        num_workers=workers,
        prefetch_factor=getattr(it, "_prefetch_factor", None) or DEFAULT_PREFETCH,
        pin_memory=bool(it._pin_memory),
        persistent_workers=True,
    ).dataloader_values()
    kwargs["collate_fn"] = it._collate_fn
    if it._dataset_kind == 1 or not it._auto_collation:
        size = getattr(it._index_sampler, "batch_size", None) if it._auto_collation else None
        return DataLoader(cached, batch_size=size, shuffle=False, **kwargs)
    # Map-style: the script's own batch sampler, so batch sizes (and any bucketing) match.
    return DataLoader(cached, batch_sampler=it._index_sampler, **kwargs)


def _drain(loader: DataLoader[Any], settings: ProbeSettings) -> float | None:
    # Three short windows after a short warm-up (two when they agree and the settings allow).
    meter = Meter(
        replace(
            settings,
            windows=3,
            window_s=settings.window_s * DRAIN_SHARE,
            warmup_s=settings.warmup_s * DRAIN_SHARE,
        )
    )
    meter.workers = loader.num_workers
    start = perf_counter()
    it = iter(loader)
    meter.iter_started(start)
    try:
        while not meter.done and perf_counter() - start < MEASURE_CAP_S:
            t0 = perf_counter()
            try:
                batch = next(it)
            except StopIteration:
                it = iter(loader)  # a finite sampler: the next epoch, workers kept
                continue
            meter.record(t0, perf_counter(), count_samples(batch))
    finally:
        shutdown = getattr(it, "_shutdown_workers", None)
        if shutdown is not None:
            shutdown()
    return meter.figures().samples_per_s


def measure_transport(it: Any, settings: ProbeSettings) -> TransportResult:
    """Transport ceilings of the loader behind iterator ``it`` with 0 and N workers.

    N is ``min(cpu_count, settings.transport_workers)``.
    """
    out = TransportResult()
    if not hasattr(it, "_dataset") or not hasattr(it, "_collate_fn"):
        out.reason = "the measured iterator is not a torch DataLoader iterator"
        return out
    size = getattr(it._index_sampler, "batch_size", None) if it._auto_collation else 1
    cached, out.reason = _cache(it, int(size or 1))
    if cached is None:
        return out
    counts = sorted({0, min(job_cores().usable, settings.transport_workers)})
    for workers in counts:
        try:
            rate = _drain(_loader(it, cached, workers), settings)
        except Exception as exc:  # e.g. a batch sampler that cannot be iterated twice
            out.reason = f"transport with {workers} workers failed: {type(exc).__name__}: {exc}"
            break
        if rate is not None:
            out.by_workers[workers] = rate
    return out
