"""Settings that make a loader persistent leave the script's shuffles as written: real
DataLoaders with real workers, in-process, against the same loop with no patch."""

from __future__ import annotations

import pytest
import torch
from torch.utils.data import DataLoader, TensorDataset

from autotune.contract import LoaderConfig
from autotune.probe.loader._patch import LoaderPatch

DATA = TensorDataset(torch.arange(32))
EPOCHS = 3


def _loop() -> list[list[int]]:
    """A seeded script: a shuffled training loader and a validation pass each epoch, both as
    written at 0 workers; the order of every training epoch."""
    torch.manual_seed(0)
    train = DataLoader(DATA, batch_size=4, shuffle=True)
    val = DataLoader(DATA, batch_size=8)  # no shuffle, but its iterator draws a base seed
    orders = []
    for _ in range(EPOCHS):
        orders.append([int(x) for (batch,) in train for x in batch])
        for _ in val:
            pass
    return orders


def _patched(config: LoaderConfig, others: LoaderConfig | None) -> list[list[int]]:
    patch = LoaderPatch(config, lambda it, t0, delivered: it, others=others)
    patch.install()
    try:
        return _loop()
    finally:
        patch.uninstall()


PERSISTENT = LoaderConfig(num_workers=2, prefetch_factor=2, persistent_workers=True)


@pytest.mark.parametrize(
    ("config", "others"),
    [
        (PERSISTENT, None),  # the training loader made persistent
        (LoaderConfig(), PERSISTENT),  # the validation loader made persistent
        (PERSISTENT, PERSISTENT),
    ],
)
def test_every_epoch_trains_on_the_order_as_written(
    config: LoaderConfig, others: LoaderConfig | None
) -> None:
    written = _loop()
    assert len({tuple(o) for o in written}) == EPOCHS  # each epoch its own shuffle
    assert _patched(config, others) == written


def test_a_loader_the_script_made_persistent_keeps_torchs_draws() -> None:
    def loop() -> list[int]:
        torch.manual_seed(0)
        train = DataLoader(DATA, batch_size=4, shuffle=True, num_workers=2, persistent_workers=True)
        return [int(x) for _ in range(EPOCHS) for (batch,) in train for x in batch]

    written = loop()
    patch = LoaderPatch(PERSISTENT, lambda it, t0, delivered: it)
    patch.install()
    try:
        assert loop() == written
    finally:
        patch.uninstall()
