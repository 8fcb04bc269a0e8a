"""The settings asked for the other loaders (evaluation, validation): written onto map-style
loaders first iterated once the training loader is chosen, onto an IterableDataset's only when
asked, and the batches a map-style one gives stay the script's, in the script's order."""

from __future__ import annotations

from collections.abc import Iterator

import torch
from torch.utils.data import DataLoader, IterableDataset, TensorDataset

from autotune.contract import LoaderConfig
from autotune.probe.loader import LoaderPatch

TRAIN = TensorDataset(torch.arange(640.0))
VAL = TensorDataset(torch.arange(96.0))


class Stream(IterableDataset):  # type: ignore[type-arg]
    def __iter__(self) -> Iterator[torch.Tensor]:
        return iter(torch.arange(12.0))


def _batches(loader: DataLoader) -> list[list[float]]:  # type: ignore[type-arg]
    return [b[0].tolist() if isinstance(b, list) else b.tolist() for b in loader]


def test_the_others_settings_reach_a_map_style_eval_loader_and_keep_its_order() -> None:
    expected = _batches(DataLoader(VAL, batch_size=8))
    others = LoaderConfig(num_workers=2, persistent_workers=True, batch_size=32)
    patch = LoaderPatch(LoaderConfig(num_workers=0), lambda it, t0, delivered: it, others=others)
    patch.install()
    try:
        train = DataLoader(TRAIN, batch_size=8, shuffle=True)
        val = DataLoader(VAL, batch_size=8)
        stream = DataLoader(Stream(), batch_size=4)
        assert len(list(train)) == 80  # the training loader: chosen
        assert _batches(val) == expected  # same batches, same order, same batch size
        assert (val.num_workers, val.persistent_workers) == (2, True)
        assert _batches(val) == expected  # again, through its persistent workers
        assert len(list(stream)) == 3 and stream.num_workers == 0  # an iterable: its own
        assert train.num_workers == 0
    finally:
        patch.uninstall()


def test_a_stream_s_loader_takes_the_others_settings_only_when_asked() -> None:
    others = LoaderConfig(num_workers=2)
    patch = LoaderPatch(
        LoaderConfig(num_workers=0),
        lambda it, t0, delivered: it,
        others=others,
        others_iterable=True,
    )
    patch.install()
    try:
        train = DataLoader(TRAIN, batch_size=8, shuffle=True)
        stream = DataLoader(Stream(), batch_size=4)
        assert len(list(train)) == 80
        # This stream does not split across workers: each of the 2 runs it whole, which the
        # others' stage sees as batches that changed.
        assert len(list(stream)) == 6 and stream.num_workers == 2
    finally:
        patch.uninstall()


def test_without_others_every_other_loader_keeps_its_settings() -> None:
    patch = LoaderPatch(LoaderConfig(num_workers=0), lambda it, t0, delivered: it)
    patch.install()
    try:
        train = DataLoader(TRAIN, batch_size=8, shuffle=True)
        val = DataLoader(VAL, batch_size=8)
        assert len(list(train)) == 80
        assert len(list(val)) == 12 and val.num_workers == 0
    finally:
        patch.uninstall()


def test_a_live_run_that_switches_its_loader_gives_the_others_nothing() -> None:
    patch = LoaderPatch(
        LoaderConfig(),
        lambda it, t0, delivered: it,
        switchable=True,
        others=LoaderConfig(num_workers=2),
    )
    assert patch.others is None
