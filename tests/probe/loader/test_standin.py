"""Loader objects torch iterates that are not torch DataLoaders (in-process; fastai's real one
is probed in tests/frameworks/test_libraries.py)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
import torch
from torch.utils.data import DataLoader, TensorDataset, get_worker_info
from torch.utils.data.dataloader import (
    _DatasetKind,
    _MultiProcessingDataLoaderIter,
    _SingleProcessDataLoaderIter,
)

from autotune.contract import LoaderConfig
from autotune.probe.loader import ForeignLoader, LoaderPatch
from autotune.probe.loader._audition import Delivery

ITEMS = 24
INITS = {
    cls: cls.__dict__["__init__"]
    for cls in (_SingleProcessDataLoaderIter, _MultiProcessingDataLoaderIter)
}


class StandIn:
    """What a library hands torch's iterators in place of a DataLoader, as fastai's does: an
    iterable over its own batches, its worker settings on itself, prefetch_factor fixed by
    its class."""

    prefetch_factor = 2
    _dataset_kind = _DatasetKind.Iterable
    _auto_collation = False
    _IterableDataset_len_called = None
    drop_last = False
    in_order = True
    generator = None
    worker_init_fn = None
    multiprocessing_context = None

    def __init__(self, num_workers: int) -> None:
        self.num_workers = num_workers
        self.pin_memory = False
        self.timeout = 0
        self.persistent_workers = False

    @property
    def dataset(self) -> StandIn:
        return self

    @property
    def _index_sampler(self) -> Iterator[int]:
        return itertools.count()

    def _get_shared_seed(self) -> None:
        return None

    @staticmethod
    def collate_fn(batch: Any) -> Any:
        return batch

    def __iter__(self) -> Iterator[torch.Tensor]:
        worker = get_worker_info()
        for i in range(ITEMS):
            if worker is None or i % worker.num_workers == worker.id:
                yield torch.tensor([i])


class Library:
    """Picks torch's iterator class by the stand-in's worker count, as fastai does."""

    def __init__(self, stand_in: Any) -> None:
        self.stand_in = stand_in

    def __iter__(self) -> Iterator[torch.Tensor]:
        workers = getattr(self.stand_in, "num_workers", 0)
        cls = _SingleProcessDataLoaderIter if workers == 0 else _MultiProcessingDataLoaderIter
        yield from cls(self.stand_in)


def _passing(it: Iterator[Any], t0: float, delivered: Sequence[Delivery]) -> Iterator[Any]:
    return it


def _patched(config: LoaderConfig) -> LoaderPatch:
    patch = LoaderPatch(config, _passing)
    patch.install()
    return patch


def test_a_stand_in_is_measured_with_the_trials_settings_written_where_it_keeps_them() -> None:
    library = Library(StandIn(num_workers=0))
    patch = _patched(LoaderConfig(num_workers=2, prefetch_factor=4))
    try:
        first = [int(b) for b in library]
        second, seen = [], []
        for b in library:
            second.append(int(b))
            seen.append(type(patch.last_iterator))
        after = patch.last_iterator
    finally:
        patch.uninstall()
    # Every item once per epoch, through two workers although the library picked the
    # single-process class by the count it had.
    assert sorted(first) == sorted(second) == list(range(ITEMS))
    assert set(seen) == {_MultiProcessingDataLoaderIter}
    # Once the library dropped its iterator, nothing of autotune's keeps it (or its workers).
    assert after is None
    assert library.stand_in.num_workers == 2
    assert patch.applied_config == LoaderConfig(
        num_workers=2, prefetch_factor=2, pin_memory=False, persistent_workers=False, num_streams=0
    )
    assert patch.measured_loader is not None and patch.measured_loader.loader == "Library"
    # Its class fixes prefetch_factor: measured with the kept 2, and said.
    assert patch.not_applied.startswith("prefetch_factor=4 not applied: Library loads")
    for cls, init in INITS.items():
        assert cls.__dict__["__init__"] is init


def test_a_stand_in_with_no_worker_count_of_its_own_is_named_with_the_code_iterating_it() -> None:
    class Bare:
        pass

    patch = _patched(LoaderConfig(num_workers=1))
    try:
        with pytest.raises(ForeignLoader) as caught:
            next(iter(Library(Bare())))
    finally:
        patch.uninstall()
    text = str(caught.value)
    assert f"{__name__}.test_a_stand_in_with_no_worker_count" in text
    assert f"from {__name__}.Library.__iter__" in text


def test_torch_dataloaders_go_through_the_hooked_classes_untouched() -> None:
    patch = _patched(LoaderConfig())
    try:
        for workers in (0, 1):
            loader = DataLoader(TensorDataset(torch.arange(8.0)), batch_size=4, num_workers=workers)
            assert [b[0].tolist() for b in loader] == [[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0]]
    finally:
        patch.uninstall()
