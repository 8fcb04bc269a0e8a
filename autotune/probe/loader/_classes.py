"""torch's DataLoader as it was before the patch, and the library classes below it."""

from __future__ import annotations

from typing import Any

from torch.utils.data import DataLoader, IterableDataset

# Saved at import, before any patch: what the patch calls and what it puts back.
ORIG_INIT = DataLoader.__init__
ORIG_ITER = DataLoader.__iter__
ORIG_GET_ITERATOR = DataLoader._get_iterator


def segment_loader(dataset: Any, **kwargs: Any) -> DataLoader[Any]:
    """A switchable's own loader for one segment: never a candidate, never counted."""
    loader: DataLoader[Any] = DataLoader.__new__(DataLoader)
    ORIG_INIT(loader, dataset, **kwargs)
    return loader


def subclasses(cls: type) -> list[type]:
    """Every class below ``cls``, however deep (libraries subclass each other's loaders)."""
    found: list[type] = []
    subs: list[type] = cls.__subclasses__()
    for sub in subs:
        found.append(sub)
        found.extend(subclasses(sub))
    return found


def outer_class(cls: type) -> type | None:
    """The most derived class of ``cls`` (below DataLoader) that defines ``__iter__``."""
    for klass in cls.__mro__:
        if klass is DataLoader:
            return None
        if "__iter__" in klass.__dict__:
            return klass
    return None


def map_style(loader: Any) -> bool:
    """Whether the loader's order is its sampler's, whatever its workers."""
    dataset = getattr(loader, "dataset", None)
    return dataset is not None and not isinstance(dataset, IterableDataset)
