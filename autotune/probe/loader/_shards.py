"""What a streamed dataset can feed: the shards its workers split, read where the library
says it, and the workers a measurement saw idle where it does not.

An ``IterableDataset`` that splits its stream among DataLoader workers by whole shards gives
each worker ``shards[id::num_workers]``: past the shard count a worker gets none and ends at
once, so more workers than shards add processes and no rate. Two libraries say their count:

- Hugging Face ``datasets``: ``IterableDataset.num_shards`` (per node once split by node);
  its workers past it stop with "Too many dataloader workers".
- WebDataset: a pipeline whose source is a shard list (``SimpleShardList``, with a length) then
  ``split_by_worker``; a worker with no shard raises "No samples found ... fewer shards than
  workers". A resampled source draws shards at random in every worker: no bound.

Everything here reads attributes only (the library is never imported by the probe), and
anything unexpected reads as "not known".
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

# The libraries whose shard counts are read, by the name of their top-level package.
DATASETS = "datasets"
WEBDATASET = "webdataset"


def _package(obj: Any) -> str:
    return (type(obj).__module__ or "").split(".", 1)[0]


def _hf_shards(dataset: Any) -> int | None:
    try:
        shards = dataset.num_shards
    except Exception:  # a property that fails tells us nothing
        return None
    return shards if isinstance(shards, int) and shards > 0 else None


def _splits_by_worker(stages: list[Any]) -> bool:
    shardlists = sys.modules.get("webdataset.shardlists")
    splitter = getattr(shardlists, "split_by_worker", None)
    return any(
        stage is splitter or getattr(stage, "__name__", "") == "split_by_worker" for stage in stages
    )


def _wds_shards(dataset: Any) -> int | None:
    stages = getattr(dataset, "pipeline", None)
    if not isinstance(stages, list) or not stages:
        return None
    # A shard list has a length (``SimpleShardList``); a resampled source draws for ever.
    source = stages[0]
    if not hasattr(type(source), "__len__") or not _splits_by_worker(stages[1:]):
        return None
    try:
        shards = len(source)
    except Exception:
        return None
    return shards if isinstance(shards, int) and shards > 0 else None


def shards_of(dataset: Any) -> tuple[int, str] | None:
    """(shards, the library that splits by them) for a dataset whose workers each take whole
    shards; None where no library says so."""
    package = _package(dataset)
    if package == DATASETS:
        shards = _hf_shards(dataset)
        return (shards, DATASETS) if shards is not None else None
    if package == WEBDATASET:
        found = _wds_shards(dataset)
        return (found, WEBDATASET) if found is not None else None
    return None


def shard_fields(dataset: Any) -> dict[str, Any]:
    """``MeasuredLoader``'s ``shards`` and ``shards_in`` for ``dataset``, where known."""
    found = shards_of(dataset)
    return {"shards": found[0], "shards_in": found[1]} if found else {}


@dataclass(frozen=True)
class IdleReading:
    """The workers of a live iterable-dataset iterator that had ended their stream, at one
    moment: which iterator (its ``id``), which workers, and how many tasks it had received."""

    iterator: int
    idle: frozenset[int]
    received: int
    workers: int


def idle_workers(it: Any) -> IdleReading | None:
    """The workers of an iterable-dataset loader's live iterator that have ended their
    stream (torch marks such a worker unavailable and asks it for nothing more); None where
    the iterator is not one of those, or has ended."""
    status = getattr(it, "_workers_status", None)
    received = getattr(it, "_rcvd_idx", None)
    kind = getattr(it, "_dataset_kind", None)
    if not isinstance(status, list) or not isinstance(received, int) or kind != 1:
        return None  # torch's _DatasetKind.Iterable is 1
    if getattr(it, "_shutdown", True) or not any(status):
        return None
    idle = frozenset(i for i, up in enumerate(status) if not up)
    return IdleReading(id(it), idle, received, len(status))


def idle_between(start: IdleReading | None, end: IdleReading | None) -> int | None:
    """Workers that gave nothing from one reading to the other: the same ones idle at both,
    in one iteration of one iterator that delivered more batches between them than it has
    workers. A worker that merely finished its share of an epoch first (round-robin shares
    differ by one batch) leaves fewer than that many batches to come; a worker without a shard
    stays idle however many come."""
    if start is None or end is None or start.iterator != end.iterator:
        return None
    if end.received - start.received <= end.workers or start.idle != end.idle:
        return None
    return len(end.idle)
