"""The patch on loader classes shaped like libraries' own: real DataLoader workers, in-process.

The shapes are the ones seen in the wild (docs/frameworks.md): an endless iterator kept across
epochs, a repeating sampler swapped in behind torch's back with an iterator built in
``__init__``, and a wrapper that fetches one batch ahead. The suite in tests/frameworks runs
libraries' real classes through the CLI; here each shape is checked batch by batch.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import torch
from torch.utils.data import BatchSampler, DataLoader, TensorDataset

from autotune.contract import LoaderConfig
from autotune.probe.loader._classes import ORIG_ITER
from autotune.probe.loader._patch import LoaderPatch

DATA = TensorDataset(torch.arange(96.0))
EPOCH = 12  # 96 samples in batches of 8


class _Repeat:
    """A batch sampler that never ends, as libraries write it."""

    def __init__(self, sampler: Any) -> None:
        self.sampler = sampler

    def __iter__(self) -> Iterator[Any]:
        while True:
            yield from iter(self.sampler)


class IteratorInInit(DataLoader):  # type: ignore[type-arg]
    """Swaps in a repeating sampler with object.__setattr__, builds its iterator in __init__."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        object.__setattr__(self, "batch_sampler", _Repeat(self.batch_sampler))
        self.iterator = super().__iter__()

    def __len__(self) -> int:
        return len(self.batch_sampler.sampler)

    def __iter__(self) -> Iterator[Any]:
        for _ in range(len(self)):
            yield next(self.iterator)


class EndlessOnFirstIter(DataLoader):  # type: ignore[type-arg]
    """Builds one endless iterator on its first __iter__ (bypassing DataLoader.__iter__)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._DataLoader__initialized = False
        self.batch_sampler = _Repeat(self.batch_sampler)
        self._DataLoader__initialized = True
        self._endless: Iterator[Any] | None = None

    def __len__(self) -> int:
        return len(self.batch_sampler.sampler)

    def __iter__(self) -> Iterator[Any]:
        if self._endless is None:
            self._endless = self._get_iterator()
        for _ in range(len(self)):
            yield next(self._endless)


class Recorder:
    def __init__(self) -> None:
        self.wrapped = 0
        self.batches = 0

    def __call__(self, it: Iterator[Any], t0: float, delivered: Any) -> Iterator[Any]:
        self.wrapped += 1
        for batch in it:
            self.batches += 1
            yield batch


@pytest.mark.parametrize("cls", [IteratorInInit, EndlessOnFirstIter])
def test_a_library_loader_keeps_its_epochs_and_gets_the_settings(cls: type) -> None:
    rec = Recorder()
    patch = LoaderPatch(LoaderConfig(num_workers=2, prefetch_factor=3), rec)
    patch.install()
    try:
        loader = cls(DATA, batch_size=8, shuffle=False)
        seen = []
        for _epoch in range(3):
            epoch = [batch[0] for batch in loader]
            assert len(epoch) == EPOCH  # the repeating sampler survived: no StopIteration
            seen.append(torch.cat(epoch))
        # Same samples, same order every epoch: the settings changed how, not what.
        assert all(torch.equal(s, torch.arange(96.0)) for s in seen)
        raw = patch.last_iterator
        assert raw is not None and raw._num_workers == 2 and raw._prefetch_factor == 3
        assert patch.applied_config is not None and patch.applied_config.num_workers == 2
        assert patch.script_config is not None and patch.script_config.num_workers == 0
        # Timed once, where the script consumes it (not at the inner torch iterator too).
        assert rec.wrapped >= 1 and rec.batches == 3 * EPOCH - (patch.unmetered_batches)
        assert patch.measured_loader is not None
        assert patch.measured_loader.loader == cls.__name__
    finally:
        patch.uninstall()
    assert cls.__dict__["__iter__"].__name__ == "__iter__"
    assert DataLoader.__iter__ is ORIG_ITER
    assert "__wrapped__" not in cls.__dict__["__iter__"].__dict__  # the class's own again


def test_a_prefetching_wrapper_is_measured_through() -> None:
    def one_ahead(loader: DataLoader[Any]) -> Iterator[Any]:
        it = iter(loader)
        ahead = next(it)
        for batch in it:
            yield ahead[0] * 2  # "normalised" in the main process
            ahead = batch
        yield ahead[0] * 2

    rec = Recorder()
    patch = LoaderPatch(LoaderConfig(num_workers=2), rec)
    patch.install()
    try:
        loader = DataLoader(DATA, batch_size=8)
        for _ in range(2):
            assert torch.equal(torch.cat(list(one_ahead(loader))), torch.arange(96.0) * 2)
        assert patch.applied_config is not None and patch.applied_config.num_workers == 2
        assert rec.batches == 2 * EPOCH - patch.unmetered_batches
    finally:
        patch.uninstall()


def test_a_batch_size_the_library_owns_is_kept_and_said() -> None:
    patch = LoaderPatch(LoaderConfig(batch_size=16), Recorder())
    patch.install()
    try:
        loader = IteratorInInit(DATA, batch_size=8)
        assert all(len(batch[0]) == 8 for batch in loader)
        # Its batches come from its own sampler: no batch size of the script's to tune.
        assert patch.applied_config is not None and patch.applied_config.batch_size is None
        assert "batch_size=16 not applied" in patch.not_applied
        assert patch.measured_loader is not None and patch.measured_loader.batch_size == 8
    finally:
        patch.uninstall()
    # torch's own batch sampler is rebuilt with the new size.
    patch = LoaderPatch(LoaderConfig(batch_size=16), Recorder())
    patch.install()
    try:
        plain = DataLoader(DATA, batch_size=8)
        assert [len(b[0]) for b in plain] == [16] * 6
        assert isinstance(plain.batch_sampler, BatchSampler)
        assert patch.not_applied == ""
    finally:
        patch.uninstall()
