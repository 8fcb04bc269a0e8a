"""Applies a trial's settings to the script's DataLoader and hands its iterator to the meter.

``torch.utils.data.DataLoader`` is patched at class level, so subclasses and loaders built
at module level or inside callbacks are covered. The measured loader is the first one the
script iterates; a loader later built at the same call site (a fresh loader each epoch) is
the same loader to us. Every other loader keeps the script's own settings.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable, Iterator
from time import perf_counter
from typing import Any

from torch.utils.data import DataLoader

from autotune.contract import LoaderConfig

_ORIG_INIT = DataLoader.__init__
_ORIG_ITER = DataLoader.__iter__
_SIGNATURE = inspect.signature(_ORIG_INIT)
_ARGS_ATTR = "_autotune_args"
_SITE_ATTR = "_autotune_site"
_APPLIED_ATTR = "_autotune_applied"

Wrap = Callable[[Iterator[Any], float], Iterator[Any]]


def script_config(arguments: dict[str, Any]) -> LoaderConfig:
    """The settings the script itself wrote, with torch's defaults made explicit."""
    workers = int(arguments.get("num_workers") or 0)
    prefetch = arguments.get("prefetch_factor")
    if workers > 0 and prefetch is None:
        prefetch = 2
    return LoaderConfig(
        num_workers=workers,
        prefetch_factor=prefetch if workers > 0 else None,
        pin_memory=bool(arguments.get("pin_memory", False)),
        persistent_workers=bool(arguments.get("persistent_workers", False)),
        batch_size=None
        if arguments.get("batch_sampler") is not None
        else arguments.get("batch_size"),
        num_streams=0,
    )


def apply_config(arguments: dict[str, Any], config: LoaderConfig) -> dict[str, Any]:
    """New DataLoader arguments with ``config`` applied under torch's rules.

    - no ``batch_size`` when the script gave a ``batch_sampler`` (or disabled batching);
    - ``prefetch_factor`` and ``persistent_workers=True`` only with workers > 0;
    - ``multiprocessing_context`` only with workers > 0.
    """
    new = dict(arguments)
    if config.num_workers is not None:
        new["num_workers"] = config.num_workers
    workers = int(new.get("num_workers") or 0)
    if config.pin_memory is not None:
        new["pin_memory"] = config.pin_memory
    # batch_size=None means the script turned batching off; a batch_sampler owns the size.
    batched = new.get("batch_sampler") is None and new.get("batch_size") is not None
    if config.batch_size is not None and batched:
        new["batch_size"] = config.batch_size
    if workers > 0:
        if config.prefetch_factor is not None:
            new["prefetch_factor"] = config.prefetch_factor
        if config.persistent_workers is not None:
            new["persistent_workers"] = config.persistent_workers
    else:
        new["prefetch_factor"] = None
        new["persistent_workers"] = False
        new["multiprocessing_context"] = None
        new["timeout"] = 0
    return new


def _call_site(loader: Any) -> tuple[str, int] | None:
    frame = sys._getframe(2)
    # Step out of DataLoader subclasses' __init__ chains to where the script built it.
    while (
        frame is not None
        and frame.f_code.co_name == "__init__"
        and (frame.f_locals.get("self") is loader)
    ):
        frame = frame.f_back  # type: ignore[assignment]
    if frame is None:
        return None
    return frame.f_code.co_filename, frame.f_lineno


class LoaderPatch:
    """Install, pick the measured loader, reconfigure it, and always uninstall."""

    def __init__(self, config: LoaderConfig, wrap: Wrap) -> None:
        self.config = config
        self._wrap = wrap
        self.measured_site: tuple[str, int] | None = None
        self._measured_ids: set[int] = set()
        self.script_config: LoaderConfig | None = None
        self.applied_config: LoaderConfig | None = None
        self.loaders_built = 0
        self.loaders_iterated = 0
        self.last_iterator: Iterator[Any] | None = None

    def install(self) -> None:
        patch = self

        def __init__(loader: Any, *args: Any, **kwargs: Any) -> None:
            _ORIG_INIT(loader, *args, **kwargs)
            # Outermost call only: a subclass may pass different args to super().__init__.
            if _ARGS_ATTR not in loader.__dict__:
                loader.__dict__[_ARGS_ATTR] = (args, kwargs)
                loader.__dict__[_SITE_ATTR] = _call_site(loader)
                patch.loaders_built += 1

        def __iter__(loader: Any) -> Any:
            return patch._iter(loader)

        DataLoader.__init__ = __init__  # type: ignore[method-assign,assignment]
        DataLoader.__iter__ = __iter__  # type: ignore[method-assign]

    def uninstall(self) -> None:
        DataLoader.__init__ = _ORIG_INIT  # type: ignore[method-assign]
        DataLoader.__iter__ = _ORIG_ITER  # type: ignore[method-assign]

    def _is_measured(self, loader: Any) -> bool:
        if id(loader) in self._measured_ids:
            return True
        if _ARGS_ATTR not in loader.__dict__:
            return False
        site = loader.__dict__.get(_SITE_ATTR)
        if self.measured_site is None and not self._measured_ids:
            self.measured_site = site
            return True
        return site is not None and site == self.measured_site

    def _iter(self, loader: Any) -> Any:
        self.loaders_iterated += 1
        if not self._is_measured(loader):
            return _ORIG_ITER(loader)
        self._measured_ids.add(id(loader))
        if not loader.__dict__.get(_APPLIED_ATTR):
            self._reconfigure(loader)
        t0 = perf_counter()
        it = _ORIG_ITER(loader)
        self.last_iterator = it
        return self._wrap(it, t0)

    def _reconfigure(self, loader: Any) -> None:
        args, kwargs = loader.__dict__[_ARGS_ATTR]
        bound = _SIGNATURE.bind(loader, *args, **kwargs)
        bound.apply_defaults()
        arguments = {k: v for k, v in bound.arguments.items() if k != "self"}
        if self.script_config is None:
            self.script_config = script_config(arguments)
        new = apply_config(arguments, self.config)
        self.applied_config = script_config(new)
        loader.__dict__[_APPLIED_ATTR] = True
        if new != arguments:
            # DataLoader refuses some attribute writes after __init__; re-running its own
            # __init__ keeps every invariant torch checks.
            object.__setattr__(loader, "_DataLoader__initialized", False)
            _ORIG_INIT(loader, **new)
