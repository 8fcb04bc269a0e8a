"""Loaders torch iterates that are not torch DataLoaders: said, not taken for no loader at all.

fastai's ``DataLoader`` is its own class: it hands a stand-in object (``_FakeLoader``) to
torch's ``_SingleProcessDataLoaderIter`` / ``_MultiProcessingDataLoaderIter``, and picks
between them by the stand-in's ``num_workers`` before torch sees it. The DataLoader patch never
sees such a loader, so the script looked like one with no loader (``no_dataloader``), which is
untrue: its data does go through torch's loading machinery. Settings cannot be written where
torch would read them (the iterator class is chosen before any hook of ours runs), so the
trial ends ``not_applied`` with a reason naming the class and where its settings are set.
Where torch iterates is found at ``_BaseDataLoaderIter.__init__``, the one place every torch
iterator passes through; only while no torch DataLoader was chosen, and only in probes (never
in ``autotune run``'s real training).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from torch.utils.data import DataLoader
from torch.utils.data.dataloader import _BaseDataLoaderIter

_ORIG_INIT = _BaseDataLoaderIter.__init__


class ForeignLoader(BaseException):
    """torch iterates a loader object that is not a torch DataLoader: its settings cannot be
    applied. A ``BaseException`` so that a training loop's ``except Exception:`` lets it by."""


def _describe(loader: Any, caller: Any) -> str:
    cls = type(loader)
    name = f"{cls.__module__}.{cls.__qualname__}"
    owner = caller.f_locals.get("self") if caller is not None else None
    by = ""
    if owner is not None and owner is not loader:
        kind = type(owner)
        by = f" from {kind.__module__}.{kind.__qualname__}.{caller.f_code.co_name}"
    where = ""
    if cls.__module__.split(".", 1)[0] == "fastai":
        where = (
            "; set them in fastai's own arguments, dataloaders(..., num_workers=..., "
            "pin_memory=..., persistent_workers=...)"
        )
    return (
        f"torch iterates {name}{by}, which is not a torch DataLoader: autotune applies "
        f"settings only where torch.utils.data.DataLoader keeps them{where}"
    )


class ForeignLoaderWatch:
    """Ends the probe at the first torch iterator built over a non-DataLoader object."""

    def __init__(self, chosen: Callable[[], bool]) -> None:
        self._chosen = chosen
        self._installed = False

    def install(self) -> None:
        watch = self

        def __init__(it: Any, loader: Any, *args: Any, **kwargs: Any) -> None:
            if not isinstance(loader, DataLoader) and not watch._chosen():
                raise ForeignLoader(_describe(loader, sys._getframe(1).f_back))
            _ORIG_INIT(it, loader, *args, **kwargs)

        _BaseDataLoaderIter.__init__ = __init__  # type: ignore[method-assign,assignment]
        self._installed = True

    def uninstall(self) -> None:
        if self._installed:
            _BaseDataLoaderIter.__init__ = _ORIG_INIT  # type: ignore[method-assign]
            self._installed = False
