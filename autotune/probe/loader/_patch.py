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
5. A loader whose class overrides ``__iter__`` (a library's DataLoader subclass) is measured
   at its own ``__iter__``, the iteration the script's step consumes: an endless iterator it
   keeps across epochs, or one it built in ``__init__``, is inside that and gets the trial's
   settings there, but its batches are timed once, at the outside.
6. Once chosen, the same loader object, any loader over the same dataset object with the
   same batch size (a framework re-creating it with a distributed sampler, Accelerate's
   inner loader), and any loader built at the same line of the user's code over the same
   dataset type with the same batch size (a fresh loader each epoch) are measured. Every
   other loader keeps the script's settings.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable, Iterator, Sequence
from time import perf_counter
from typing import TYPE_CHECKING, Any

from torch.utils.data import DataLoader

from autotune.contract import LoaderConfig, MeasuredLoader
from autotune.probe.loader._apply import (
    batch_size_of,
    original,
    script_config,
    settings_of,
    write_settings,
)
from autotune.probe.loader._audition import Audition, Delivery
from autotune.probe.loader._classes import (
    ORIG_GET_ITERATOR,
    ORIG_INIT,
    ORIG_ITER,
    map_style,
    outer_class,
    segment_loader,
    subclasses,
)
from autotune.probe.loader._draws import draw_as_written
from autotune.probe.loader._marks import (
    APPLIED_ATTR,
    BUILT_ATTR,
    BY_ATTR,
    NOT_APPLIED_ATTR,
    OTHERS_ATTR,
    OWNER_ATTR,
    RAW_ATTR,
    SITE_ATTR,
    SWITCH_ATTR,
    mark_built,
    own_batch_size,
    shown,
)
from autotune.probe.loader._reconfigure import give_others, reconfigure
from autotune.probe.loader._shards import shard_fields
from autotune.probe.loader._site import call_site, framework_of, in_framework_eval, library_on_stack
from autotune.probe.loader._standin import ForeignLoader, StandInHook, describe, tunable
from autotune.probe.loader._switch import Settings, SwitchableLoader

if TYPE_CHECKING:
    from autotune.probe.measure import RankSync


# The measured iterator, when its iteration started, and what it delivered before it was chosen.
Wrap = Callable[[Iterator[Any], float, Sequence[Delivery]], Iterator[Any]]
IterFn = Callable[[Any], Any]
# Another loader's iterator, made at a time, for the epoch clock (``_passes.py``).
OnOther = Callable[[Any, float, Iterator[Any]], Iterator[Any]]
# A loader built: (when its construction ended, seconds it took, whether it is the measured one).
OnBuilt = Callable[[float, float, bool], None]


class LoaderPatch:
    """Install, choose the measured loader, reconfigure it, and always uninstall."""

    def __init__(
        self,
        config: LoaderConfig,
        wrap: Wrap,
        *,
        ranks: RankSync | None = None,
        switchable: bool = False,
        first_batch_timeout_s: float = 60.0,
        others: LoaderConfig | None = None,
        others_iterable: bool = False,
    ) -> None:
        self.config = config
        self._others_iterable = others_iterable
        # Settings for the other map-style loaders (evaluation, validation), or None.
        self.others = None if switchable else others
        # Mode "adapt": __iter__ goes through a SwitchableLoader; ``config`` is its last order.
        self._switchable = switchable
        self._first_batch_timeout_s = first_batch_timeout_s  # a switched config's, then hung
        self._wrap = wrap
        self._ranks = ranks
        self.script_config: LoaderConfig | None = None
        self.applied_config: LoaderConfig | None = None
        self.measured_loader: MeasuredLoader | None = None
        # The loader whose iteration is being wrapped for the meter (read by ``wrap``).
        self.current_loader: Any = None
        self.time_to_first_batch_s: float | None = None
        self.loaders_built = 0
        # Batches candidates delivered before the choice, which the meter never saw.
        self.unmetered_batches = 0
        self.unmetered_samples = 0  # of those batches
        self.loaders_iterated = 0
        self.not_applied = ""  # settings of the measured loader not applied safely, and why
        self._last_raw: Iterator[Any] | None = None
        self._chosen: weakref.WeakSet[Any] = weakref.WeakSet()
        self._chosen_dataset: Any = None
        self._chosen_batch_size: int | None = None
        self._chosen_key: tuple[Any, ...] | None = None
        self._auditions: list[Audition] = []
        # Library subclasses' own __iter__ and __init__, replaced while installed.
        self._owns: dict[tuple[type, str], Any] = {}
        self._had_init_subclass = False
        self._orig_init_subclass: Any = None
        # Loaders torch iterates through a stand-in (fastai's); a live run leaves them be.
        self._stand_ins = None if switchable else StandInHook(self._stand_in)
        # The epoch clock's hooks: set by a probe that times epochs, never by `autotune run`.
        self.on_other: OnOther | None = None
        self.on_built: OnBuilt | None = None
        # Mode "adapt": what the search asks for another map-style loader's next pass.
        self.other_settings: Callable[[Any], Settings | None] | None = None

    @property
    def last_iterator(self) -> Iterator[Any] | None:
        """The measured loader's newest torch iterator (its workers, its dataset)."""
        loader = self.current_loader
        if self._stand_ins is not None and OWNER_ATTR in getattr(loader, "__dict__", {}):
            return self._stand_ins.last()
        if loader is None:
            return self._last_raw
        # A class with its own _get_iterator keeps its persistent one where torch does.
        for raw in (loader.__dict__.get(RAW_ATTR), loader.__dict__.get("_iterator")):
            if raw is not None:
                return raw  # type: ignore[no-any-return]
        return self._last_raw

    def install(self) -> None:
        patch = self

        def __init__(loader: Any, *args: Any, **kwargs: Any) -> None:
            t = perf_counter()
            ORIG_INIT(loader, *args, **kwargs)
            patch._built(loader, t)

        def __iter__(loader: Any) -> Any:
            draw_as_written(loader)
            if outer_class(type(loader)) is not None:
                return patch._inner(loader)
            return patch._iter(loader, ORIG_ITER)

        def _get_iterator(loader: Any) -> Any:
            it = ORIG_GET_ITERATOR(loader)
            loader.__dict__[RAW_ATTR] = it
            return it

        def __init_subclass__(cls: Any, **kwargs: Any) -> None:
            super(DataLoader, cls).__init_subclass__(**kwargs)  # type: ignore[misc]
            patch._wrap_class(cls)

        # Library classes defined from now on (the script imports them) are wrapped as they
        # are defined: one may never call DataLoader.__init__ (torchdata's StatefulDataLoader).
        self._had_init_subclass = "__init_subclass__" in DataLoader.__dict__
        self._orig_init_subclass = DataLoader.__dict__.get("__init_subclass__")
        DataLoader.__init_subclass__ = classmethod(__init_subclass__)  # type: ignore[assignment,arg-type]
        for cls in subclasses(DataLoader):
            self._wrap_class(cls)
        DataLoader.__init__ = __init__  # type: ignore[method-assign,assignment]
        DataLoader.__iter__ = __iter__  # type: ignore[method-assign]
        DataLoader._get_iterator = _get_iterator  # type: ignore[method-assign,assignment]
        if self._stand_ins is not None:
            self._stand_ins.install()

    def uninstall(self) -> None:
        if self._stand_ins is not None:
            self._stand_ins.uninstall()
        DataLoader.__init__ = ORIG_INIT  # type: ignore[method-assign]
        DataLoader.__iter__ = ORIG_ITER  # type: ignore[method-assign]
        DataLoader._get_iterator = ORIG_GET_ITERATOR  # type: ignore[method-assign]
        if self._had_init_subclass:
            DataLoader.__init_subclass__ = self._orig_init_subclass  # type: ignore[assignment]
        elif "__init_subclass__" in DataLoader.__dict__:
            del DataLoader.__init_subclass__
        owns, self._owns = self._owns, {}
        for (klass, name), own in owns.items():
            type.__setattr__(klass, name, own)

    def _built(self, loader: Any, t: float) -> None:
        """A loader finished its outermost ``__init__`` (begun at ``t``): mark it ours, once."""
        if BUILT_ATTR not in loader.__dict__:
            mark_built(loader, call_site(loader), library_on_stack())
            self.loaders_built += 1
            if self.on_built is not None:
                now = perf_counter()
                measured = hasattr(loader, "dataset") and self._is_chosen(loader)
                self.on_built(now, now - t, measured)

    def _stand_in(self, loader: Any, owner: Any, caller: str, start: IterFn) -> Any:
        """torch iterates ``loader``, not a DataLoader, for ``owner``'s code: it is a loader
        like any other, its settings kept on itself (``_standin.py``)."""
        if BUILT_ATTR not in loader.__dict__:
            if not tunable(loader):
                if self._decided():
                    return start(loader)  # not the measured loader: as the script has it
                raise ForeignLoader(describe(loader, owner, caller))
            mark_built(loader, None, library_on_stack(), owner)
            self.loaders_built += 1

        return self._iter(loader, start)

    def _wrap_class(self, cls: type) -> None:
        """Measure a library subclass at its own ``__iter__`` (what the script consumes), and
        mark its loaders at its own ``__init__`` (which may not call DataLoader's)."""
        if "__iter__" in cls.__dict__ and (cls, "__iter__") not in self._owns:
            own = cls.__dict__["__iter__"]
            self._owns[(cls, "__iter__")] = own
            type.__setattr__(cls, "__iter__", self._class_iter(cls, own))
        if "__init__" in cls.__dict__ and (cls, "__init__") not in self._owns:
            init = cls.__dict__["__init__"]
            self._owns[(cls, "__init__")] = init
            type.__setattr__(cls, "__init__", self._class_init(init))

    def _class_init(self, init: Callable[..., None]) -> Callable[..., None]:
        patch = self

        @functools.wraps(init)
        def __init__(loader: Any, *args: Any, **kwargs: Any) -> None:
            t = perf_counter()
            init(loader, *args, **kwargs)
            patch._built(loader, t)

        return __init__

    def _class_iter(self, klass: type, own: IterFn) -> IterFn:
        patch = self

        @functools.wraps(own)
        def __iter__(loader: Any) -> Any:
            # A subclass of ``klass`` with its own __iter__ calling super(): measured there.
            if BUILT_ATTR not in loader.__dict__ or outer_class(type(loader)) is not klass:
                return own(loader)
            return patch._iter(loader, own)

        return __iter__

    def _key(self, loader: Any) -> tuple[Any, ...] | None:
        site = loader.__dict__.get(SITE_ATTR)
        if site is None:
            return None
        return (site, type(loader.dataset), batch_size_of(original(loader)))

    def _decided(self) -> bool:
        return self._chosen_key is not None or self._chosen_dataset is not None

    def _is_chosen(self, loader: Any) -> bool:
        if loader in self._chosen:
            return True
        if not self._decided():
            return False
        if loader.dataset is self._chosen_dataset:
            return batch_size_of(original(loader)) == self._chosen_batch_size
        return self._chosen_key is not None and self._key(loader) == self._chosen_key

    def _choose(self, loader: Any, t0: float, first: float | None, got: Sequence[Delivery]) -> None:
        self.unmetered_batches += len(got)
        self.unmetered_samples += sum(n for _t0, _t1, n in got)
        auditions, self._auditions = self._auditions, []
        for audition in auditions:
            audition.closed = True  # no other iteration can be chosen now
        arguments = settings_of(loader)
        own = original(loader)
        self._chosen.add(loader)
        self._chosen_dataset = loader.dataset
        self._chosen_batch_size = batch_size_of(own)
        self._chosen_key = self._key(loader)
        self.script_config = script_config(own)
        self.applied_config = script_config(arguments)
        self.not_applied = loader.__dict__.get(NOT_APPLIED_ATTR, "")
        if first is not None:
            self.time_to_first_batch_s = first - t0
        # Called inside the chosen iteration's __next__: the stack holds whoever iterates it.
        seen = shown(loader)
        evidence = framework_of(seen, loader.__dict__.get(BY_ATTR), library_on_stack())
        self.measured_loader = MeasuredLoader(
            loader=type(seen).__name__,
            dataset=type(getattr(seen, "dataset", loader.dataset)).__name__,
            batch_size=batch_size_of(own) or own_batch_size(loader),
            framework=evidence[0] if evidence else None,
            built_by=evidence[1] if evidence else None,
            **shard_fields(loader.dataset),
        )
        for audition in auditions:
            self._give_back(audition.loader)

    def _give_back(self, loader: Any) -> None:
        if loader in self._chosen:
            return
        kept = loader.__dict__.pop(APPLIED_ATTR, None)
        if kept is not None:
            write_settings(loader, kept)

    def _inner(self, loader: Any) -> Any:
        """``DataLoader.__iter__`` called from a subclass's own ``__iter__`` or ``__init__``:
        the trial's settings apply (unless another loader was chosen), but the batches are
        timed where the script consumes them, at the subclass's ``__iter__``."""
        if (
            BUILT_ATTR in loader.__dict__
            and APPLIED_ATTR not in loader.__dict__
            and (self._is_chosen(loader) or not self._decided())
            and not in_framework_eval()
        ):
            reconfigure(loader, self.config)
        it = self._torch_iter(loader)
        self._last_raw = it
        return it

    def _torch_iter(self, loader: Any) -> Any:
        """torch's own iteration of ``loader``; in mode "adapt", through its switchable."""
        if not self._switchable or BUILT_ATTR not in loader.__dict__:
            return ORIG_ITER(loader)
        switch = loader.__dict__.get(SWITCH_ATTR)
        if switch is None:
            switch = loader.__dict__[SWITCH_ATTR] = SwitchableLoader(
                loader,
                factory=segment_loader,
                first_batch_timeout_s=self._first_batch_timeout_s,
                own=original(loader),
            )
        if self.other_settings is not None and switch.mid_epoch and not self._is_chosen(loader):
            settings = self.other_settings(loader) if self._decided() else None
            if settings is not None:
                switch.switch(settings)
        return iter(switch)

    def switchable_of(self, loader: Any) -> SwitchableLoader | None:
        """Mode "adapt": the switchable that loads ``loader``'s batches, once it iterated."""
        return None if loader is None else loader.__dict__.get(SWITCH_ATTR)

    def _iter(self, loader: Any, own: IterFn) -> Any:
        self.loaders_iterated += 1
        if BUILT_ATTR not in loader.__dict__:
            return own(loader)
        chosen = self._is_chosen(loader)
        if not chosen and self._decided():
            # The choice is made: every other loader is the script's (or has the settings
            # asked for the others), timed for the epoch.
            if self.others is not None and OTHERS_ATTR not in loader.__dict__:
                give_others(loader, self.others, iterable=self._others_iterable)
            t0 = perf_counter()
            live = self.other_settings is not None and own is ORIG_ITER and map_style(loader)
            it = self._torch_iter(loader) if live else own(loader)
            return it if self.on_other is None else self.on_other(loader, t0, it)
        if not chosen and in_framework_eval():
            return own(loader)
        if APPLIED_ATTR not in loader.__dict__:
            reconfigure(loader, self.config)
        t0 = perf_counter()
        it = self._torch_iter(loader) if own is ORIG_ITER else own(loader)
        if own is ORIG_ITER:
            self._last_raw = it
        if chosen:
            self._chosen.add(loader)
            return self._measure(loader, it, t0)
        audition = Audition(loader, it, t0, self._choose, functools.partial(self._measure, loader))
        self._auditions.append(audition)
        return audition

    def _measure(
        self, loader: Any, it: Iterator[Any], t0: float, delivered: Sequence[Delivery] = ()
    ) -> Iterator[Any]:
        self.current_loader = loader
        measured = self._wrap(it, t0, delivered)
        if self._ranks is not None:
            return self._ranks.wrap(measured, it)
        return measured
