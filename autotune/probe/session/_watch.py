"""Notices a script that trains without a torch DataLoader, in seconds rather than at the
trial timeout.

Many small trainers take random windows of a ``np.memmap`` or index tensors directly: they
run happily for hours, and "no result within the timeout" would be the wrong verdict. Training
shows itself in backward passes and optimizer steps, so both are counted (``torch.autograd.
backward``, which ``Tensor.backward`` calls, and torch's global optimizer step hook). Once
the script has taken ``STEPS`` of them with no DataLoader iterated, or ``MIN_STEPS`` over
``SECONDS`` (a big model's steps are slow), the probe ends with ``no_dataloader``. A script
that prepares data for minutes before its loader (tokenising, say) takes no steps meanwhile,
so it is never cut short.

A script that imported ``torchdata.nodes`` (after the watch began) is told that pipeline's
own knobs, which are not a DataLoader's. The verdict hints at an ``np.memmap`` only when the
script made one (``np.memmap(...)`` or ``np.load(..., mmap_mode=...)``, counted at
``memmap.__new__``): torch imports numpy, so "numpy is loaded" is true of every script and
says nothing.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from time import perf_counter
from typing import Any

import torch
from torch.optim.optimizer import register_optimizer_step_post_hook

# Training steps with no DataLoader iterated that end a probe: this many, or MIN_STEPS
# once SECONDS have passed since the first.
STEPS = 20
MIN_STEPS = 3
SECONDS = 10.0


_NODES = "torchdata.nodes"


class NoDataLoader(BaseException):
    """The script trains without iterating a torch DataLoader: nothing to tune.

    A ``BaseException`` so that a training loop's ``except Exception:`` lets it through."""


class NoLoaderWatch:
    """Counts training steps until a DataLoader is iterated (``iterated()`` says so)."""

    def __init__(self, iterated: Callable[[], int], built: Callable[[], int]) -> None:
        self._iterated = iterated
        self._built = built
        self.backwards = 0
        self.optimizer_steps = 0
        self._first: float | None = None
        self._optimizers: set[str] = set()
        self._handle: Any = None
        self._backward: Callable[..., Any] | None = None
        self._off = False
        self.memmaps = 0
        # torchdata.nodes imported by the script, not before it ran (a test's own process).
        self._nodes_before = True
        self._memmap: tuple[type, Any] | None = None  # np.memmap and its own __new__

    def install(self) -> None:
        self._nodes_before = _NODES in sys.modules
        original = torch.autograd.backward
        watch = self

        def backward(*args: Any, **kwargs: Any) -> Any:
            if not watch._off:
                watch.backwards += 1
                watch._check()
            return original(*args, **kwargs)

        self._backward = original
        torch.autograd.backward = backward  # type: ignore[assignment]
        self._handle = register_optimizer_step_post_hook(self._on_step)
        self._count_memmaps()

    def _count_memmaps(self) -> None:
        # Only a numpy already imported (by torch): the probe never imports it itself.
        memmap = getattr(sys.modules.get("numpy"), "memmap", None)
        own = memmap.__dict__.get("__new__") if isinstance(memmap, type) else None
        if not isinstance(memmap, type) or not isinstance(own, staticmethod):
            return
        original = own.__func__
        watch = self

        @functools.wraps(original)
        def __new__(subtype: type, *args: Any, **kwargs: Any) -> Any:
            watch.memmaps += 1
            return original(subtype, *args, **kwargs)

        self._memmap = (memmap, own)
        type.__setattr__(memmap, "__new__", staticmethod(__new__))

    def uninstall(self) -> None:
        if self._backward is not None:
            torch.autograd.backward = self._backward  # type: ignore[assignment]
            self._backward = None
        if self._handle is not None:
            self._handle.remove()
            self._handle = None
        if self._memmap is not None:
            memmap, own = self._memmap
            type.__setattr__(memmap, "__new__", own)
            self._memmap = None

    def _on_step(self, optimizer: Any, args: Any, kwargs: Any) -> None:
        if not self._off:
            self.optimizer_steps += 1
            self._optimizers.add(type(optimizer).__name__)
            self._check()

    def _check(self) -> None:
        if self._iterated():
            self._off = True  # a loader is in use: the meter decides from here
            return
        now = perf_counter()
        if self._first is None:
            self._first = now
        steps = max(self.backwards, self.optimizer_steps)
        took = now - self._first
        if steps >= STEPS or (steps >= MIN_STEPS and took >= SECONDS):
            self._off = True
            raise NoDataLoader(self.reason(steps, took))

    def reason(self, steps: int, took: float) -> str:
        did = f"{self.backwards} backward passes"
        if self.optimizer_steps:
            names = ", ".join(sorted(self._optimizers))
            did += f" and {self.optimizer_steps} optimizer steps ({names})"
        built = self._built()
        without = (
            f"without iterating the {built} torch DataLoader(s) it built"
            if built
            else "without iterating a torch DataLoader"
        )
        hint = (
            f" (it opened {self.memmaps} np.memmap(s): random windows of one?)"
            if self.memmaps
            else ""
        )
        if _NODES in sys.modules and not self._nodes_before:
            return (
                f"no DataLoader to tune: the script took {did} in {took:.1f} s {without}; it "
                "loads through torchdata.nodes, whose pipeline has its own knobs "
                '(ParallelMapper(num_workers=..., method="thread" or "process"), '
                "Prefetcher(prefetch_factor=...), PinMemory) that autotune does not tune yet: "
                "it tunes torch.utils.data.DataLoader settings. Time those by hand, or put "
                "the source behind a Dataset and a DataLoader to have autotune measure it"
            )
        return (
            f"no DataLoader to tune: the script took {did} in {took:.1f} s {without}; it "
            f"loads its batches another way{hint}. autotune tunes torch.utils.data.DataLoader "
            "settings (num_workers, prefetch_factor, pin_memory, persistent_workers): put the "
            "data behind a Dataset and a DataLoader to tune it"
        )
