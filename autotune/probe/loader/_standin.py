"""Loaders torch iterates through a stand-in object: measured and tuned where they keep their
settings.

fastai's ``DataLoader`` is its own class, not a torch one. At every epoch its ``__iter__``
builds torch's ``_SingleProcessDataLoaderIter`` or ``_MultiProcessingDataLoaderIter`` directly
over a stand-in (``_FakeLoader``) that holds ``num_workers``, ``pin_memory``, ... and picks the
class by the stand-in's worker count. No ``DataLoader.__iter__`` runs, so the DataLoader patch
never sees that loader. Every torch iterator is made by calling one of those two classes, so
their ``__new__`` is where a stand-in is caught, before ``__init__`` reads its settings: the
loader patch writes the trial's settings on the stand-in, the class that fits the new worker
count is built (the library chose by the old one), and the iteration goes through the same
choice and meter as a DataLoader's. Batches are timed where they leave torch's iterator: what
the library does to them after that (fastai's batch transforms) runs in the main process
whatever the workers, and counts as the step.

A stand-in that keeps no worker count of its own cannot be tuned: the probe ends
``not_applied``, naming its class and the code that iterates it.
"""

from __future__ import annotations

import sys
import weakref
from collections.abc import Callable, Iterator
from typing import Any

from torch.utils.data import DataLoader
from torch.utils.data.dataloader import (
    _BaseDataLoaderIter,
    _MultiProcessingDataLoaderIter,
    _SingleProcessDataLoaderIter,
)

from autotune.contract import NUM_WORKERS, TUNED_KEYS

_CLASSES: tuple[type[_BaseDataLoaderIter], ...] = (
    _SingleProcessDataLoaderIter,
    _MultiProcessingDataLoaderIter,
)
# What torch's iterators read from the object they load for (``_BaseDataLoaderIter.__init__``).
_READ_BY_TORCH = (*TUNED_KEYS, "timeout")


class ForeignLoader(BaseException):
    """torch iterates a loader object that is not a torch DataLoader and keeps no settings
    autotune can write. A ``BaseException`` so that a training loop's ``except Exception:``
    lets it by."""


def describe(loader: Any, owner: Any, caller: str) -> str:
    cls = type(loader)
    name = f"{cls.__module__}.{cls.__qualname__}"
    by = ""
    if owner is not None and owner is not loader:
        kind = type(owner)
        by = f" from {kind.__module__}.{kind.__qualname__}.{caller}"
    return (
        f"torch iterates {name}{by}, which is not a torch DataLoader and keeps no worker "
        "count of its own: autotune cannot apply settings to it"
    )


def tunable(loader: Any) -> bool:
    """Keeps its worker count on itself (where torch reads it), and every other setting
    torch reads, on itself or its class."""
    own = getattr(loader, "__dict__", None)
    return (
        own is not None
        and NUM_WORKERS in own
        and all(hasattr(loader, name) for name in _READ_BY_TORCH)
    )


_ORIG_INITS = {cls: cls.__dict__["__init__"] for cls in _CLASSES}
_OUTER_ATTR = "_autotune_outer"  # what the script's loop now gets from a measured iterator


def _wanted(loader: Any) -> type[_BaseDataLoaderIter]:
    """The class ``DataLoader`` would pick for ``loader``'s worker count now."""
    if loader.num_workers > 0:
        return _MultiProcessingDataLoaderIter
    return _SingleProcessDataLoaderIter


class _Raw:
    """An iterator's own batches, past the timing its class now adds (``_timed``).

    Held weakly: the measured iterator holds the meter, which holds this; a strong reference
    back would keep the iterator (and, with persistent_workers, its workers) alive after the
    library drops it at the end of the epoch, until a garbage collection."""

    __slots__ = ("_it", "_next")

    def __init__(self, it: _BaseDataLoaderIter, cls: type[_BaseDataLoaderIter]) -> None:
        self._it = weakref.ref(it)
        self._next = cls.__next__

    def __iter__(self) -> _Raw:
        return self

    def __next__(self) -> Any:
        it = self._it()
        if it is None:
            raise StopIteration
        return self._next(it)


_SHELLS: dict[type, type] = {}


def _timed(cls: type[_BaseDataLoaderIter]) -> type[_BaseDataLoaderIter]:
    """``cls`` whose batches come through the meter. The library holds the iterator object
    itself (``__init__`` cannot return another), so its class is what changes."""
    shell = _SHELLS.get(cls)
    if shell is None:

        def __next__(it: Any) -> Any:
            return next(it.__dict__[_OUTER_ATTR])

        shell = type(cls.__name__, (cls,), {"__next__": __next__, "__module__": cls.__module__})
        _SHELLS[cls] = shell
    return shell


# The stand-in, the object whose code iterates it, that code's name, and how to start torch's
# iterator over the stand-in with its settings as they are then: what the library gets back.
Iterate = Callable[[Any, Any, str, Callable[[Any], _Raw]], Iterator[Any]]


class StandInHook:
    """Catches torch iterators built over anything but a DataLoader; always uninstalled."""

    def __init__(self, iterate: Iterate) -> None:
        self._iterate = iterate
        self._installed = False
        # The newest iterator over a stand-in, weakly: the library's to drop (see _Raw).
        self._last: weakref.ref[_BaseDataLoaderIter] | None = None

    def last(self) -> _BaseDataLoaderIter | None:
        return self._last() if self._last is not None else None

    def install(self) -> None:
        for cls in _CLASSES:
            type.__setattr__(cls, "__init__", self._init(_ORIG_INITS[cls]))
        self._installed = True

    def uninstall(self) -> None:
        if self._installed:
            for cls, init in _ORIG_INITS.items():
                type.__setattr__(cls, "__init__", init)
            self._installed = False

    def _init(self, own: Callable[..., None]) -> Callable[..., None]:
        hook, iterate = self, self._iterate

        def __init__(it: Any, loader: Any, *args: Any, **kwargs: Any) -> None:
            # A library's own subclass of these iterators is left to itself: its class
            # cannot be swapped for the one the worker count wants.
            if isinstance(loader, DataLoader) or type(it) not in _ORIG_INITS:
                own(it, loader, *args, **kwargs)
                return

            def start(stand_in: Any) -> _Raw:
                # Settings written by now: the class for their worker count, which may not
                # be the one the library called (it chose by the count it had).
                cls = _wanted(stand_in)
                it.__class__ = cls
                _ORIG_INITS[cls](it, stand_in)
                hook._last = weakref.ref(it)
                return _Raw(it, cls)

            caller = sys._getframe(1)  # the code that called the class (type.__call__ is C)
            got = iterate(loader, caller.f_locals.get("self"), caller.f_code.co_name, start)
            if not isinstance(got, _Raw):
                it.__dict__[_OUTER_ATTR] = got
                it.__class__ = _timed(type(it))

        return __init__
