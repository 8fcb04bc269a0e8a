"""A loader object torch iterates that is not a torch DataLoader (in-process; fastai's real
one is probed in tests/frameworks/test_libraries.py)."""

from __future__ import annotations

import pytest
import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.dataloader import _BaseDataLoaderIter, _SingleProcessDataLoaderIter

from autotune.probe.loader._foreign import ForeignLoader, ForeignLoaderWatch


class StandIn:
    """What a library hands torch's iterator in place of a DataLoader."""


class Library:
    def __iter__(self):  # type: ignore[no-untyped-def]
        return _SingleProcessDataLoaderIter(StandIn())  # type: ignore[arg-type]


def test_a_stand_in_is_named_with_the_code_that_iterates_it() -> None:
    original = _BaseDataLoaderIter.__init__
    chosen = [False]
    watch = ForeignLoaderWatch(lambda: chosen[0])
    watch.install()
    try:
        loader = DataLoader(TensorDataset(torch.arange(8.0)), batch_size=4)
        assert len(list(loader)) == 2  # a torch DataLoader: untouched
        with pytest.raises(ForeignLoader) as caught:
            iter(Library())
        text = str(caught.value)
        assert f"{__name__}.StandIn" in text and f"{__name__}.Library.__iter__" in text
        chosen[0] = True  # a torch DataLoader is measured: other loaders are the script's
        with pytest.raises(AttributeError):  # torch's own complaint about the stand-in
            iter(Library())
    finally:
        watch.uninstall()
    assert _BaseDataLoaderIter.__init__ is original
