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
import weakref
from typing import Any

from torch.utils.data import IterableDataset

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
    """``MeasuredLoader``'s ``iterable``, and its ``shards`` and ``shards_in`` where known."""
    found = shards_of(dataset)
    out: dict[str, Any] = {"iterable": isinstance(dataset, IterableDataset)}
    return {**out, "shards": found[0], "shards_in": found[1]} if found else out


class IdleWatch:
    """Batches each worker of the measured loader's iterators delivered, to find the workers
    an iterable dataset gives nothing to load.

    torch hands an iterable dataset's batches out in turn, one worker after the next, so once
    an iterator has delivered two rounds (twice as many batches as it has workers) every
    worker with anything to load has delivered some; one that has delivered none by then
    ended its stream empty. Before that, a worker whose stream ended with nothing delivered
    is idle (a held-out stream of 4 shards had 125 batches an epoch: 73 workers never
    reached two rounds, and the 69 idle went unseen). A worker that merely finished its
    share of an epoch first (as fastai's round-robin workers do) delivered before it ended,
    so it is not counted. Each
    batch costs one call of a small closure on the iterator (``_process_data``), which dies
    with it."""

    def __init__(self) -> None:
        self._it: weakref.ref[Any] | None = None
        self._counts: list[int] = []
        self._last: int | None = None  # the idle count of an earlier iterator, when it knew

    def watch(self, it: Any) -> None:
        """Count ``it``'s batches by worker from now on (an iterator that has just started)."""
        status = getattr(it, "_workers_status", None)
        deliver = getattr(type(it), "_process_data", None)
        if not isinstance(status, list) or deliver is None or getattr(it, "_dataset_kind", 0) != 1:
            return  # torch's _DatasetKind.Iterable is 1
        if self._it is not None and self._it() is it:
            return
        self._last = self._idle() if self._idle() is not None else self._last
        counts = [0] * len(status)
        # A weak reference, and the class's function: the closure on the iterator must not
        # hold the iterator, or it would outlive its last use until a garbage collection,
        # and with it its workers (persistent ones end only when it is freed).
        ref = weakref.ref(it)

        def _process_data(data: Any, worker_idx: int) -> Any:
            counts[worker_idx] += 1
            return deliver(ref(), data, worker_idx)

        it._process_data = _process_data
        self._it, self._counts = ref, counts

    def _idle(self) -> int | None:
        counts = self._counts
        if counts and sum(counts) >= 2 * len(counts):
            return sum(1 for n in counts if n == 0)
        # Fewer batches (an epoch shorter than two rounds): a worker whose stream ended
        # before it delivered anything was given nothing, however few the batches. torch marks
        # a worker ended as its end arrives, and every worker at the iterator's shutdown.
        it = self._it() if self._it is not None else None
        status = getattr(it, "_workers_status", None)
        if it is None or getattr(it, "_shutdown", True) or not isinstance(status, list):
            return None
        if len(status) != len(counts):
            return None
        empty = sum(1 for n, alive in zip(counts, status, strict=True) if n == 0 and not alive)
        return empty or None  # none ended empty yet: a slow worker may still deliver

    def idle(self) -> int | None:
        """Workers that gave nothing: the current iterator's count once it can tell, else the
        last earlier iterator's that could; None where none could."""
        now = self._idle()
        return now if now is not None else self._last
