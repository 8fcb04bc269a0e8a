"""The draw from the script's RNG that a loader made persistent would skip.

Each time ``iter()`` makes a new iterator, torch draws its workers' base seed from the loader's
generator (torch's global one where the loader has none); the sampler, shuffling from the same
generator, draws after it. A persistent loader makes its iterator once and resets it on later
epochs, without that draw. So a loader the script wrote without persistent workers, once
autotune's settings made it persistent, would leave the generator one draw behind from its
second epoch on, and every shuffle after it (this loader's, and any other drawing from the
same generator) would differ from the script's own: the settings would change what it trains
on. The draw torch skips is made here instead, so the order is the script's whatever the
workers. A loader the script made persistent itself keeps torch's behaviour.
"""

from __future__ import annotations

from typing import Any

import torch

# On each loader the patch has seen: whether the script's own settings reset one iterator.
REUSES_ATTR = "_autotune_reuses"


def reuses(loader: Any) -> bool:
    """Whether ``iter()`` on ``loader``, as it is set now, resets one iterator across epochs."""
    return (
        bool(getattr(loader, "persistent_workers", False))
        and (getattr(loader, "num_workers", 0) or 0) > 0
    )


def remember_own_reuse(loader: Any) -> None:
    """When the patch first sees ``loader``, before any settings of autotune's are written."""
    loader.__dict__.setdefault(REUSES_ATTR, reuses(loader))


def draw_as_written(loader: Any) -> None:
    """Before ``iter()`` on ``loader``: draw the base seed its script's own settings would,
    where those made a new iterator each epoch and the current ones reset the last."""
    state = loader.__dict__
    if state.get(REUSES_ATTR, True) or not reuses(loader) or state.get("_iterator") is None:
        return
    torch.empty((), dtype=torch.int64).random_(generator=getattr(loader, "generator", None))
