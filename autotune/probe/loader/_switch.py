"""A loader whose worker settings change mid-epoch without changing which batches arrive.

Each epoch pulls its order from the wrapped loader's own batch sampler (or sampler, batching
off) once and lazily, so the sampler draws as in a plain epoch and an endless one still works.
*Segments*, one fresh DataLoader per group of settings, serve the order in turn. A switch stops
the running segment dispatching: it delivers what it dispatched and ends, and the next segment
starts at the first batch nobody dispatched, so nothing is loaded twice or dropped.

A switched config is on trial until it delivers a batch. An error (a worker crash, no first
batch within ``first_batch_timeout_s``) abandons it: its workers are killed and the last proven
settings reload from the first undelivered batch. If they fail there too, the error is the
dataset's own and is raised. Iterable datasets cannot be cut: a switch waits for the next epoch.

Worker seeds: each epoch draws torch's base seed from the loader's generator exactly as the
script's own settings would (every epoch; with persistent workers, only the first), so the
sampler's RNG, and the order, never depend on the settings tried; every new segment seeds
worker ``i`` with ``base + i`` (reused persistent workers keep the seeds they started with).
Changing ``num_workers`` thus changes what workers' random augmentations draw exactly as a
user changing ``num_workers`` would (with 0, they draw in the main process).
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from time import perf_counter
from typing import Any, Literal

import torch
from torch.utils.data import DataLoader, IterableDataset

from autotune.contract import (
    NUM_WORKERS,
    PERSISTENT_WORKERS,
    PREFETCH_FACTOR,
    TUNED_KEYS,
    worker_values,
)
from autotune.probe.loader._sigint import UnheldInit, sigint_held

Settings = dict[str, Any]
# Builds a segment's DataLoader: (dataset, **kwargs) as DataLoader takes them.
Factory = Callable[..., "DataLoader[Any]"]


def normalized(settings: Settings) -> Settings:
    """The four settings under torch's rules (worker-only ones at their defaults with 0)."""
    if unknown := sorted(set(settings) - set(TUNED_KEYS)):  # batch_size etc. change which batches
        raise ValueError(f"only {', '.join(TUNED_KEYS)} can be switched, not {unknown}")
    values = worker_values(settings)
    prefetch = values[PREFETCH_FACTOR]
    if values[NUM_WORKERS] < 0 or (prefetch is not None and prefetch <= 0):
        raise ValueError(f"num_workers must be >= 0 and prefetch_factor > 0: {settings}")
    return {k: values[k] for k in TUNED_KEYS}


@dataclass(frozen=True)
class SwitchEvent:
    """``settings`` load batches from position ``batch`` of ``epoch`` on ("deferred": from the
    next epoch); "abandoned" says in ``reason`` which settings failed and how."""

    kind: Literal["switched", "deferred", "abandoned"]
    epoch: int
    batch: int
    settings: Settings
    reason: str = ""


class _Order:
    """One epoch's batches as the sampler yields them: each pulled once, dropped once delivered."""

    def __init__(self, source: Iterator[Any]) -> None:
        self._source = source
        self.items: dict[int, Any] = {}
        self.error: Exception | None = None  # the sampler's own failure, never a config's
        self._pulled = 0

    def has(self, i: int) -> bool:
        while self._pulled <= i:
            try:
                self.items[self._pulled] = next(self._source)
            except StopIteration:
                return False
            except Exception as exc:
                self.error = exc
                raise
            self._pulled += 1
        return True


class _View:
    """The batch sampler a segment sees: the order from ``start``, until it is stopped."""

    def __init__(self, order: _Order, start: int) -> None:
        self.order, self.start, self.at, self.stopped = order, start, start, False

    def __iter__(self) -> _View:
        self.at, self.stopped = self.start, False
        return self

    def __next__(self) -> Any:
        # Stopped, it dispatches nothing more; what it dispatched is still delivered.
        if self.stopped or not self.order.has(self.at):
            raise StopIteration
        self.at += 1
        return self.order.items[self.at - 1]


class _Segment:
    """One DataLoader with one group of settings, over the epoch's order from ``start``."""

    def __init__(
        self, owner: SwitchableLoader, order: _Order | None, start: int, seed_state: torch.Tensor
    ) -> None:
        source, settings = owner._loader, owner._settings
        self.settings, workers = settings, settings[NUM_WORKERS]
        self.created = perf_counter()  # its workers' start-up counts against its settings
        self.view = None if order is None else _View(order, start)
        kwargs: dict[str, Any] = dict(settings)  # normalized: torch accepts them as they are
        kwargs.update(collate_fn=source.collate_fn, worker_init_fn=source.worker_init_fn)
        # A copy, so every segment seeds its workers from the epoch's base seed and none
        # draws again from the user's generator.
        kwargs["generator"] = torch.Generator().set_state(seed_state)
        if hasattr(source, "in_order"):  # torch >= 2.6
            kwargs["in_order"] = True  # positions are counted in dispatch order
        if workers > 0:
            kwargs.update(
                timeout=source.timeout, multiprocessing_context=source.multiprocessing_context
            )
        if self.view is None:
            kwargs.update(batch_size=source.batch_size, drop_last=source.drop_last)
        elif source.batch_sampler is None:
            kwargs.update(batch_size=None, sampler=self.view)
        else:
            kwargs["batch_sampler"] = self.view
        with warnings.catch_warnings(), sigint_held() as held:
            # The worker count was chosen on purpose; torch would repeat its advice per segment.
            warnings.filterwarnings("ignore", message="This DataLoader will create")
            if workers > 0:  # Ctrl-C while they fork: after (``_sigint.py``)
                kwargs["worker_init_fn"] = UnheldInit(source.worker_init_fn, held)
            self.loader = owner._factory(source.dataset, **kwargs)
            self.it: Any = iter(self.loader)
        self.on_trial = owner._fallback is not None and not owner._proven and workers > 0
        if self.on_trial:
            limits = [t for t in (owner._first_batch_timeout_s, source.timeout) if t > 0]
            self.it._timeout = min(limits)  # torch reads it at every wait for a batch

    def restart(self, order: _Order | None) -> None:
        """A new epoch on the same persistent workers."""
        if self.view and order:
            self.view.order, self.view.start = order, 0
        self.it = iter(self.loader)

    def next(self) -> Any:
        batch = next(self.it)
        if self.on_trial:  # proven: torch's own timeout from now on
            self.on_trial, self.it._timeout = False, self.loader.timeout
        return batch

    def close(self, kill: bool = False) -> None:
        if not hasattr(self.it, "_shutdown_workers"):
            return  # no workers
        if kill:
            # Forget the pids first: torch's SIGCHLD handler raises for a dead worker it watches.
            if self.it._worker_pids_set:
                torch._C._remove_worker_pids(id(self.it))
                self.it._worker_pids_set = False
            # A hung worker ignores the polite shutdown, which waits 5 s for each.
            for w in self.it._workers:
                w.terminate()
            for w in self.it._workers:
                w.join(timeout=5)
            # A worker killed inside the shared done-event's ``is_set()`` holds its lock for
            # good, and torch's shutdown would wait on it forever. The dead need no signal.
            self.it._workers_done_event = threading.Event()
        self.it._shutdown_workers()


class SwitchableLoader:
    """Wraps a torch DataLoader; iterating it gives exactly the batches, in exactly the order,
    that iterating the wrapped loader would, while ``switch(settings)`` changes num_workers,
    prefetch_factor, pin_memory and persistent_workers from the next undispatched batch on.

    One epoch at a time: a new ``iter()`` ends the last. An error ends the epoch (a generator),
    where a plain iterator could go on. Only ``switch`` may be called from another thread."""

    def __init__(
        self,
        loader: DataLoader[Any],
        *,
        first_batch_timeout_s: float = 60.0,
        factory: Factory = DataLoader,
        own: Settings | None = None,
    ) -> None:
        self._loader = loader
        self._factory = factory
        self._first_batch_timeout_s = first_batch_timeout_s
        self._settings = normalized({k: getattr(loader, k) for k in TUNED_KEYS})
        # The script's own settings (``own``; by default the loader's as given), whose
        # RNG draws each epoch repeats whatever loads it: persistent workers draw one seed
        # for the loader's life, others one per epoch. The sampler's order depends on them.
        script = normalized({k: v for k, v in (own or self._settings).items() if k in TUNED_KEYS})
        self._draws_once = script[PERSISTENT_WORKERS]
        self._fallback: Settings | None = None  # the last settings that delivered a batch
        self._proven = True  # the loader's own settings are the user's choice, never on trial
        self._pending: Settings | None = None
        self._lock = threading.Lock()
        self._kept: _Segment | None = None  # persistent workers between epochs
        self._current: Generator[Any, None, None] | None = None
        self._position: tuple[int, int] | None = None  # (epoch, batch) while an epoch runs
        self._epochs = 0
        self.events: list[SwitchEvent] = []
        # The settings that loaded the batch delivered last, and when their segment started.
        self.serving: Settings = self._settings
        self.serving_since = 0.0

    @property
    def mid_epoch(self) -> bool:
        """Can a switch take effect within an epoch? Not for iterable datasets."""
        return not isinstance(self._loader.dataset, IterableDataset)

    def __len__(self) -> int:
        return len(self._loader)

    def switch(self, settings: Settings) -> None:
        """Change the given settings (the others stay) from the next batch not yet dispatched,
        or from the next epoch for iterable datasets. May be called from another thread."""
        with self._lock:
            base = self._pending if self._pending is not None else self._settings
            self._pending = pending = normalized({**base, **settings})
        if not self.mid_epoch and (position := self._position) is not None:
            self.events.append(SwitchEvent("deferred", *position, pending))

    def __iter__(self) -> Iterator[Any]:
        """One epoch: its RNG draws now, as ``iter()`` on the plain loader; its loading at
        the first ``next()``."""
        if self._current is not None:
            self._current.close()
        epoch, self._epochs = self._epochs, self._epochs + 1
        source, order = self._loader, None
        if self.mid_epoch:
            sampler = source.batch_sampler if source.batch_sampler is not None else source.sampler
            order = _Order(iter(sampler))  # before the base seed, as torch's iterator does
        self._take_pending(epoch, 0)
        reuse = self._kept is not None and self._kept.settings == self._settings
        generator = source.generator if source.generator is not None else torch.default_generator
        seed_state = generator.get_state()
        if not (self._draws_once and epoch > 0):  # what iter() on the plain loader draws
            torch.empty((), dtype=torch.int64).random_(generator=source.generator)
        self._current = self._epoch(epoch, order, reuse, seed_state)
        return self._current

    def close(self) -> None:
        """End the running epoch and stop any persistent workers."""
        current, kept, self._current, self._kept = self._current, self._kept, None, None
        if current is not None:
            current.close()
        if kept is not None:
            kept.close()

    def _take_pending(self, epoch: int, batch: int) -> None:
        with self._lock:
            pending, self._pending = self._pending, None
        if pending is None or pending == self._settings:
            return
        if self._proven:  # an unproven config is no fallback
            self._fallback = self._settings
        self._settings, self._proven = pending, False
        self.events.append(SwitchEvent("switched", epoch, batch, dict(pending)))

    def _epoch(
        self, epoch: int, order: _Order | None, reuse: bool, seed_state: torch.Tensor
    ) -> Generator[Any, None, None]:
        seg, self._kept = self._kept, None
        if seg is not None and not reuse:
            seg.close()
            seg = None
        pos, self._position = 0, (epoch, 0)  # where a deferred switch was asked for
        try:
            while True:
                try:
                    if seg is not None and reuse:
                        reuse = False
                        seg.restart(order)
                    elif seg is None:
                        if order is not None:
                            self._take_pending(epoch, pos)
                            if not order.has(pos):
                                return
                        seg = _Segment(self, order, pos, seed_state)
                    if seg.view and self._pending not in (None, seg.settings):
                        seg.view.stopped = True
                    batch = seg.next()
                except StopIteration:
                    assert seg is not None
                    if seg.view is None or not seg.view.stopped:
                        if seg.settings[PERSISTENT_WORKERS]:
                            self._kept, seg = seg, None
                        return
                    seg.close()
                    seg = None
                    continue
                except Exception as exc:
                    if seg is not None:
                        seg.close(kill=True)
                        seg = None
                    if not self._abandon(exc, order, epoch, pos):
                        raise
                    seg = _Segment(self, order, pos, seed_state)
                    continue
                self._proven = True
                if order is not None:
                    order.items.pop(pos, None)
                pos, self._position = pos + 1, (epoch, pos + 1)
                self.serving, self.serving_since = seg.settings, seg.created
                yield batch
        finally:
            self._position = None
            if seg is not None:
                seg.close()

    def _abandon(self, exc: Exception, order: _Order | None, epoch: int, pos: int) -> bool:
        """Fall back to the last proven settings at ``pos``; False if the error is not a
        config's to blame (the sampler's, the proven settings', a stream already begun)."""
        if self._fallback is None or (pos > 0 if order is None else order.error is exc):
            return False
        failed = self._settings
        self._settings, self._fallback, self._proven = self._fallback, None, True
        reason = f"{failed}: {type(exc).__name__}: {exc}"
        self.events.append(SwitchEvent("abandoned", epoch, pos, dict(self._settings), reason))
        return True
