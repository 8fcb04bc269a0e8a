"""A trial's settings written onto a DataLoader that already exists.

The settings are written as attributes, as ``DataLoader.__init__`` leaves them, rather than by
running ``__init__`` again: libraries change a loader after it was built (one swaps in a
repeating sampler with ``object.__setattr__`` and builds its endless iterator in ``__init__``),
and a second ``__init__`` silently undoes that (its sampler ran dry: "generator raised
StopIteration"). The worker settings are read by torch only when an iterator starts, so writing
them is all torch itself would do. A batch size is applied only where the loader's batch
sampler is the plain one torch made; anything else is left as the script built it, and said.
"""

from __future__ import annotations

from typing import Any

from torch.utils.data import BatchSampler, DataLoader

from autotune.contract import (
    BATCH_SIZE,
    NUM_WORKERS,
    PIN_MEMORY,
    TUNED_KEYS,
    LoaderConfig,
    worker_values,
)
from autotune.probe.loader._marks import APPLIED_ATTR, OWNER_ATTR


def script_config(arguments: dict[str, Any]) -> LoaderConfig:
    """The settings the script itself wrote, with torch's defaults made explicit."""
    return LoaderConfig.of_arguments(arguments)


def apply_config(arguments: dict[str, Any], config: LoaderConfig) -> dict[str, Any]:
    """New DataLoader arguments with ``config`` applied under torch's rules."""
    return config.dataloader_kwargs(arguments)


def settings_of(loader: DataLoader[Any]) -> dict[str, Any]:
    """The loader's settings as DataLoader arguments, read from the loader itself.

    Read, not taken from the ``__init__`` call: a library's class may build its loader
    without DataLoader's ``__init__`` (torchdata's StatefulDataLoader) or change it after
    (a repeating batch sampler). A batch sampler torch built from ``batch_size`` is no
    argument of the script's; any other is, and then there is no batch size to change."""
    sampler = loader.__dict__.get("batch_sampler")
    return {
        **{key: getattr(loader, key) for key in TUNED_KEYS},
        "timeout": loader.timeout,
        "multiprocessing_context": loader.multiprocessing_context,
        BATCH_SIZE: loader.__dict__.get(BATCH_SIZE),
        "batch_sampler": None if sampler is None or _plain_batch_sampler(loader) else sampler,
    }


def batch_size_of(arguments: dict[str, Any]) -> int | None:
    """Samples per batch: the batch size, or that of the batch sampler (or of the one a
    repeating sampler wraps)."""
    size = arguments.get(BATCH_SIZE)
    sampler = arguments.get("batch_sampler")
    if size is None and sampler is not None:
        size = getattr(sampler, BATCH_SIZE, None)
        if size is None:
            size = getattr(getattr(sampler, "sampler", None), BATCH_SIZE, None)
    return size if isinstance(size, int) else None


def _plain_batch_sampler(loader: Any) -> bool:
    """Is the loader's batch sampler the one ``DataLoader.__init__`` built from its sampler?"""
    sampler = loader.__dict__.get("batch_sampler")
    return type(sampler) is BatchSampler and sampler.sampler is loader.__dict__.get("sampler")


def write_settings(
    loader: DataLoader[Any], arguments: dict[str, Any]
) -> tuple[dict[str, Any], str]:
    """Write ``arguments``' worker settings (and batch size, where safe) onto ``loader``.

    Returns the arguments as applied and, when part of them could not be applied safely,
    why (empty otherwise). ``DataLoader.__setattr__`` refuses some of these writes after
    ``__init__``, for users' sake; ``object.__setattr__`` does what ``__init__`` does."""
    if not isinstance(loader, DataLoader):
        return _write_on_stand_in(loader, arguments)
    applied = dict(arguments)
    for name, value in worker_values(arguments).items():
        object.__setattr__(loader, name, value)
    # Through its property: torch turns a start-method name into a context and checks it.
    loader.multiprocessing_context = (
        arguments.get("multiprocessing_context") if arguments.get(NUM_WORKERS) else None
    )
    # A persistent iterator started with other settings would be reused as it is.
    if loader.__dict__.get("_iterator") is not None:
        old = loader.__dict__["_iterator"]
        object.__setattr__(loader, "_iterator", None)
        shutdown = getattr(old, "_shutdown_workers", None)
        if shutdown is not None:
            shutdown()
    refused = ""
    size = arguments.get(BATCH_SIZE)
    current = loader.__dict__.get(BATCH_SIZE)
    if arguments.get("batch_sampler") is None and size is not None and size != current:
        if current is not None and _plain_batch_sampler(loader):
            sampler = BatchSampler(loader.sampler, int(size), bool(loader.drop_last))
            object.__setattr__(loader, "batch_sampler", sampler)
            object.__setattr__(loader, BATCH_SIZE, int(size))
        else:
            applied[BATCH_SIZE] = current
            refused = (
                f"batch_size={size} not applied: the loader's batch sampler is not the one "
                f"torch built ({type(loader.__dict__.get('batch_sampler')).__name__}), so its "
                "batch size cannot be changed safely; the script's own was kept"
            )
    return applied, refused


def _write_on_stand_in(loader: Any, arguments: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """A stand-in torch iterates in place of a DataLoader (``_standin.py``): each setting is
    written where it keeps it. One it takes from its class is fixed by its library (fastai's
    ``prefetch_factor``), which offers the user no way to set it: left as it is, and said."""
    applied = dict(arguments)
    own = vars(loader)
    fixed: list[str] = []
    for name, value in worker_values(arguments).items():
        if name in own:
            object.__setattr__(loader, name, value)
            continue
        kept = getattr(loader, name, None)
        applied[name] = kept
        if value is not None and value != kept:
            fixed.append(f"{name}={value}")
    # The code that iterates the stand-in may keep its own copy of pin_memory: fastai's
    # DataLoader turns pinned batches (lists) back into tuples by its own flag.
    owner = own.get(OWNER_ATTR)
    if owner is not None and isinstance(vars(owner).get(PIN_MEMORY), bool):
        object.__setattr__(owner, PIN_MEMORY, bool(own.get(PIN_MEMORY)))
    size = arguments.get(BATCH_SIZE)
    if size is not None:
        applied[BATCH_SIZE] = None
        fixed.append(f"batch_size={size}")
    if not fixed:
        return applied, ""
    name = type(owner if owner is not None else loader).__name__
    return applied, (
        f"{', '.join(fixed)} not applied: {name} loads through torch's iterators with a "
        "stand-in loader that does not keep these settings as its own; they were kept"
    )


def original(loader: Any) -> dict[str, Any]:
    """The script's own settings, before any trial's were written (``_marks.APPLIED_ATTR``)."""
    kept = loader.__dict__.get(APPLIED_ATTR)
    return kept if kept is not None else settings_of(loader)
