"""The most workers a streamed dataset can feed, and how the answer says it.

A dataset that splits whole shards among its workers (``probe/loader/_shards.py``) feeds at
most as many workers as it has shards: the rest get none and idle (Hugging Face ``datasets``
stops them, WebDataset raises). The bound comes from, in order of trust:

1. the library's own count, read by the probe from the dataset (``MeasuredLoader.shards``);
2. a measurement: a trial of N workers of which K delivered no batch while the others
   delivered two rounds (``ProbeResult.idle_workers``), so N - K fed it;
3. a trial that failed because a worker got no shard (``TOO_FEW_SHARDS``): below its count.

The search never asks for more workers than the bound, and the answer says why in the
library's terms.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from optuna.trial import FrozenTrial

from autotune import state
from autotune.contract import TOO_FEW_SHARDS
from autotune.state import baseline_of

# How to raise the bound, in each library's own terms.
_MORE_SHARDS = {
    "datasets": (
        "`Dataset.to_iterable_dataset(num_shards=N)` (or more data files, or "
        "`IterableDataset.reshard()`) raises the bound"
    ),
    "webdataset": "more, smaller shards in the shard list raise the bound",
}


@dataclass(frozen=True)
class ShardBound:
    """At most ``workers`` workers can deliver; ``library`` says whose count it is (None: seen
    in a measurement), ``seen`` the trial that showed it, where one did."""

    workers: int
    library: str | None = None
    seen: int | None = None
    tried: int | None = None  # the worker count of that trial

    def sentence(self, most_tried: int) -> str:
        """What bounds the workers, in the library's terms; ``most_tried``: the most workers
        a search trial asked for (the script as written aside)."""
        n = self.workers
        if self.library == "datasets":
            head = f"This dataset has {n} shards (datasets' `num_shards`): a worker past {n} idles."
        elif self.library == "webdataset":
            head = (
                f"This WebDataset has {n} shards in its shard list: a worker past {n} gets no "
                "shard and, with WebDataset's default empty check, fails the run."
            )
        elif self.tried is not None:
            head = (
                f"#{self.seen} showed it: {self.tried - n} of its {self.tried} workers got "
                f"nothing to load from the dataset while the others delivered, so it feeds at "
                f"most {n}."
            )
        else:
            head = f"The dataset feeds at most {n} workers."
        if most_tried <= n:
            tried = f"The search tried no more than {n}."
        elif self.seen is not None:
            tried = f"After #{self.seen} the search tried no more than {n}."
        else:
            tried = f"Trials past {n} ran before that was known."
        more = _MORE_SHARDS.get(self.library or "", "a dataset split into more parts raises it")
        return f"{head} {tried} {more[0].upper()}{more[1:]}."


def _measured(trial: FrozenTrial) -> ShardBound | None:
    record = state.record_of(trial)
    result = record.result
    if result is None:
        return None
    loader = result.measured_loader
    if loader is not None and loader.shards:
        return ShardBound(loader.shards, loader.shards_in)
    workers = result.applied_config.num_workers or record.config.num_workers or 0
    idle = result.idle_workers or 0
    if 0 < idle < workers:
        return ShardBound(workers - idle, seen=trial.number, tried=workers)
    return None


def shard_bound(trials: Iterable[FrozenTrial]) -> ShardBound | None:
    """The tightest bound the trials show (a library's count before a measurement's)."""
    found = [bound for t in trials if (bound := _measured(t)) is not None]
    said = [b for b in found if b.library is not None]
    return min(said or found, key=lambda b: b.workers, default=None)


def epoch_bound(trials: Iterable[FrozenTrial]) -> int | None:
    """The batches an epoch of the script as written has, over a map-style dataset: torch
    hands an epoch's batches out one to a worker in turn and no further, so a worker past
    that count has nothing to load (persistent or not). None where unknown, over an
    iterable dataset (whose length is its workers' business), or with no baseline."""
    base = baseline_of(list(trials))
    result = state.record_of(base).result if base is not None else None
    if result is None or result.epoch is None or not result.epoch.epoch_batches:
        return None
    loader = result.measured_loader
    if loader is None or loader.iterable is not False:
        return None
    return result.epoch.epoch_batches


def most_workers(trials: list[FrozenTrial], *, batch_sizes_tuned: bool) -> int | None:
    """The most workers that can have anything to load: the dataset's shards, and the
    batches of an epoch (unless batch sizes are tuned: then an epoch's batches vary)."""
    shards = shard_bound(trials)
    epoch = None if batch_sizes_tuned else epoch_bound(trials)
    bounds = [b for b in (shards.workers if shards else None, epoch) if b is not None]
    return min(bounds, default=None)


def too_few_shards(trial: FrozenTrial) -> bool:
    """The trial failed because a worker of its count got no shard: the setting's failure."""
    return (state.record_of(trial).reason or "").startswith(TOO_FEW_SHARDS)
