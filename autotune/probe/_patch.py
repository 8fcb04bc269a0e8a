"""Applies a trial's settings to the script's training loader and hands its iterator to the meter.

``torch.utils.data.DataLoader`` is patched at class level, so subclasses, loaders built at
module level or inside callbacks, and loaders that frameworks build or wrap (Accelerate's
``DataLoaderShard`` iterates an inner ``DataLoader``) are all covered.

Which loader is measured is decided by what the script does with it, not where it was built:

1. A loader iterated inside a framework's evaluation or prediction code (Lightning's
   evaluation/prediction loops, its sanity check included; ``transformers.Trainer.evaluate``
   and ``predict``) is never measured.
2. Any other loader iterated before the choice is made is a *candidate*: the trial's settings
   are applied when its iterator starts, so a chosen loader was measured with them from its
   first batch.
3. A candidate is *chosen* when one iteration delivers more than ``CHOOSE_AFTER`` batches, or
   reaches its end (an epoch). The meter sees its batches from then on; the first ones were
   warm-up anyway.
4. Several candidates may be open at once (a sanity check left after 2 batches, a peek with
   ``next(iter(loader))``, a loop over two loaders); the first to be chosen wins, and every
   other candidate gets the script's own settings back (its open iterator keeps what it
   started with).
5. Once chosen, the same loader object, any loader over the same dataset object with the
   same batch size (a framework re-creating it with a distributed sampler, Accelerate's
   inner loader), and any loader built at the same line of the user's code over the same
   dataset type with the same batch size (a fresh loader each epoch) are measured. Every
   other loader keeps the script's settings.
"""

from __future__ import annotations

import inspect
import sys
import weakref
from collections.abc import Callable, Iterator, Sequence
from time import perf_counter
from typing import TYPE_CHECKING, Any

from torch.utils.data import DataLoader

from autotune.contract import LoaderConfig
from autotune.probe._meter import count_samples

if TYPE_CHECKING:
    from autotune.probe._ranks import RankSync

_ORIG_INIT = DataLoader.__init__
_ORIG_ITER = DataLoader.__iter__
_SIGNATURE = inspect.signature(_ORIG_INIT)
_ARGS_ATTR = "_autotune_args"
_SITE_ATTR = "_autotune_site"
_APPLIED_ATTR = "_autotune_applied"

# Batches one iteration must deliver (or reach its end) for its loader to be chosen. Above
# Lightning's default sanity check (2 batches, 3 fetched with its look-ahead).
CHOOSE_AFTER = 8

# Packages whose code builds loaders for the user: a line in them is not "the user's line".
_FRAMEWORKS = ("torch", "lightning", "pytorch_lightning", "accelerate", "transformers")
# Where frameworks iterate loaders that are not the training loader.
_EVAL_MODULES = (
    "lightning.pytorch.loops.evaluation_loop",
    "lightning.pytorch.loops.prediction_loop",
    "pytorch_lightning.loops.evaluation_loop",
    "pytorch_lightning.loops.prediction_loop",
)
_EVAL_FUNCTIONS = {
    "transformers.trainer": frozenset({"evaluate", "evaluation_loop", "predict", "prediction_loop"})
}

# A batch an audition saw: (before next(), after next(), samples).
Delivery = tuple[float, float, int]
# The measured iterator, when its iteration started, and what it delivered before it was chosen.
Wrap = Callable[[Iterator[Any], float, Sequence[Delivery]], Iterator[Any]]


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
    """New DataLoader arguments with ``config`` applied under torch's rules."""
    return config.dataloader_kwargs(arguments)


def detect_framework() -> str | None:
    """The training framework the script uses, by the modules it imported."""
    modules = sys.modules
    if "lightning.pytorch" in modules or "pytorch_lightning" in modules:
        return "lightning"
    if "transformers.trainer" in modules:
        return "transformers"
    if "accelerate" in modules:
        return "accelerate"
    return None


def _module(frame: Any) -> str:
    return str(frame.f_globals.get("__name__") or "")


def _in_framework(module: str) -> bool:
    return module.split(".", 1)[0] in _FRAMEWORKS


def _call_site(loader: Any) -> tuple[str, int] | None:
    """The line that built ``loader``; None when a framework's code built it."""
    frame = sys._getframe(2)
    # Step out of DataLoader subclasses' __init__ chains to where the script built it.
    while (
        frame is not None
        and frame.f_code.co_name == "__init__"
        and (frame.f_locals.get("self") is loader)
    ):
        frame = frame.f_back  # type: ignore[assignment]
    if frame is None or _in_framework(_module(frame)):
        return None
    return frame.f_code.co_filename, frame.f_lineno


def _in_framework_eval() -> bool:
    """Is the current iteration inside a framework's evaluation or prediction code?"""
    if not any(name in sys.modules for name in ("lightning", "pytorch_lightning", "transformers")):
        return False
    frame: Any = sys._getframe(2)
    while frame is not None:
        module = _module(frame)
        if module in _EVAL_MODULES:
            return True
        names = _EVAL_FUNCTIONS.get(module)
        if names is not None and frame.f_code.co_name in names:
            return True
        frame = frame.f_back
    return False


def _arguments(loader: Any) -> dict[str, Any]:
    args, kwargs = loader.__dict__[_ARGS_ATTR]
    bound = _SIGNATURE.bind(loader, *args, **kwargs)
    bound.apply_defaults()
    return {k: v for k, v in bound.arguments.items() if k != "self"}


def _original(loader: Any) -> dict[str, Any]:
    """The script's own arguments, before any trial settings were applied."""
    original = loader.__dict__.get(_APPLIED_ATTR)
    return original if original is not None else _arguments(loader)


def _batch_size(arguments: dict[str, Any]) -> int | None:
    sampler = arguments.get("batch_sampler")
    size = arguments.get("batch_size") if sampler is None else getattr(sampler, "batch_size", None)
    return size if isinstance(size, int) else None


def _reinit(loader: Any, arguments: dict[str, Any]) -> None:
    # DataLoader refuses some attribute writes after __init__; re-running its own __init__
    # keeps every invariant torch checks.
    object.__setattr__(loader, "_DataLoader__initialized", False)
    _ORIG_INIT(loader, **arguments)


class _Audition:
    """A candidate's iteration: counts batches until its loader is chosen or left."""

    __slots__ = (
        "_delivered",
        "_it",
        "_loader",
        "_n",
        "_patch",
        "_t0",
        "_t_first",
        "closed",
        "measured",
    )

    def __init__(self, patch: LoaderPatch, loader: Any, it: Iterator[Any], t0: float) -> None:
        self._patch = patch
        self._loader = loader
        self._it = it
        self._t0 = t0
        self._t_first: float | None = None
        self._n = 0
        # The chosen loader's first batches are its warm-up too: the meter is given them.
        self._delivered: list[Delivery] = []
        self.closed = False  # reached its end, or a loader was chosen
        self.measured: Iterator[Any] | None = None

    def __iter__(self) -> _Audition:
        return self

    def __next__(self) -> Any:
        if self.measured is not None:
            return next(self.measured)
        t0 = perf_counter()
        try:
            batch = next(self._it)
        except StopIteration:
            if self._n and not self.closed:
                self._patch._choose(self._loader, self._t0, self._t_first, self._n)
            self.closed = True
            raise
        t1 = perf_counter()
        self._n += 1
        if self._t_first is None:
            self._t_first = t1
        if not self.closed:
            self._delivered.append((t0, t1, count_samples(batch)))
        if self._n > CHOOSE_AFTER and not self.closed:
            self._patch._choose(self._loader, self._t0, self._t_first, self._n)
            self.measured = self._patch._measure(self._it, self._t0, self._delivered)
            self.closed = True
        return batch

    def __len__(self) -> int:
        return len(self._it)  # type: ignore[arg-type]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._it, name)


class LoaderPatch:
    """Install, choose the measured loader, reconfigure it, and always uninstall."""

    def __init__(self, config: LoaderConfig, wrap: Wrap, *, ranks: RankSync | None = None) -> None:
        self.config = config
        self._wrap = wrap
        self._ranks = ranks
        self.script_config: LoaderConfig | None = None
        self.applied_config: LoaderConfig | None = None
        self.measured_loader: dict[str, Any] | None = None
        self.time_to_first_batch_s: float | None = None
        self.loaders_built = 0
        # Batches candidates delivered before the choice, which the meter never saw.
        self.unmetered_batches = 0
        self.loaders_iterated = 0
        self.last_iterator: Iterator[Any] | None = None
        self._chosen: weakref.WeakSet[Any] = weakref.WeakSet()
        self._chosen_dataset: Any = None
        self._chosen_batch_size: int | None = None
        self._chosen_key: tuple[Any, ...] | None = None
        self._auditions: list[_Audition] = []

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

    # --- choosing ---------------------------------------------------------------------------
    def _key(self, loader: Any) -> tuple[Any, ...] | None:
        site = loader.__dict__.get(_SITE_ATTR)
        if site is None:
            return None
        return (site, type(loader.dataset), _batch_size(_original(loader)))

    def _is_chosen(self, loader: Any) -> bool:
        if loader in self._chosen:
            return True
        if self._chosen_key is None and self._chosen_dataset is None:
            return False
        if loader.dataset is self._chosen_dataset:
            return _batch_size(_original(loader)) == self._chosen_batch_size
        return self._chosen_key is not None and self._key(loader) == self._chosen_key

    def _choose(self, loader: Any, t0: float, t_first: float | None, batches: int) -> None:
        self.unmetered_batches += batches
        auditions, self._auditions = self._auditions, []
        for audition in auditions:
            audition.closed = True  # no other iteration can be chosen now
        arguments = _arguments(loader)
        original = _original(loader)
        self._chosen.add(loader)
        self._chosen_dataset = loader.dataset
        self._chosen_batch_size = _batch_size(original)
        self._chosen_key = self._key(loader)
        self.script_config = script_config(original)
        self.applied_config = script_config(arguments)
        if t_first is not None:
            self.time_to_first_batch_s = t_first - t0
        self.measured_loader = {
            "loader": type(loader).__name__,
            "dataset": type(loader.dataset).__name__,
            "batch_size": _batch_size(original),
            "framework": detect_framework(),
        }
        for audition in auditions:
            self._give_back(audition._loader)

    def _give_back(self, loader: Any) -> None:
        if loader in self._chosen:
            return
        original = loader.__dict__.pop(_APPLIED_ATTR, None)
        if original is not None:
            _reinit(loader, original)
            loader.__dict__[_ARGS_ATTR] = ((), original)

    def _iter(self, loader: Any) -> Any:
        self.loaders_iterated += 1
        if _ARGS_ATTR not in loader.__dict__:
            return _ORIG_ITER(loader)
        chosen = self._is_chosen(loader)
        if not chosen and (self._chosen_key or self._chosen_dataset is not None):
            return _ORIG_ITER(loader)  # the choice is made: every other loader is the script's
        if not chosen and _in_framework_eval():
            return _ORIG_ITER(loader)
        if _APPLIED_ATTR not in loader.__dict__:
            self._reconfigure(loader)
        t0 = perf_counter()
        it = _ORIG_ITER(loader)
        self.last_iterator = it
        if chosen:
            self._chosen.add(loader)
            return self._measure(it, t0)
        audition = _Audition(self, loader, it, t0)
        self._auditions.append(audition)
        return audition

    def _measure(
        self, it: Iterator[Any], t0: float, delivered: Sequence[Delivery] = ()
    ) -> Iterator[Any]:
        measured = self._wrap(it, t0, delivered)
        if self._ranks is not None:
            return self._ranks.wrap(measured, it)
        return measured

    def _reconfigure(self, loader: Any) -> None:
        arguments = _arguments(loader)
        new = apply_config(arguments, self.config)
        # The script's own arguments, to give back if this loader is not the one measured.
        loader.__dict__[_APPLIED_ATTR] = arguments
        if new != arguments:
            _reinit(loader, new)
        loader.__dict__[_ARGS_ATTR] = ((), new)
