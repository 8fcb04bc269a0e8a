"""Whether loading a batch in the main process draws from the process's global generators.

A dataset that calls ``torch.rand``, ``random.random`` or ``numpy.random`` in
``__getitem__`` (or a transform or ``collate_fn`` that does) draws, with no workers, from the
generators the training step draws from too (dropout, the next epoch's shuffle seed). With
workers the same calls draw from each worker's own generator, seeded from the loader's base
seed and the worker's id, so the augmentations and everything the main process draws after
them differ from a run as written; the samples and their order do not. The answer says so
where it recommends workers for a script whose loading draws.

Read around ``next()`` of the measured iterator, only where it loads in this process (no
workers), on a few batches past each iteration's first (whose ``next()`` also runs the
sampler's own draw of its shuffle seed), then never again: a state read and a compare per
generator, 0.14 ms for the three on a busy 2-core box, in the warm-up's first batches. numpy
is read only where the script imported it.
"""

from __future__ import annotations

import random
import sys
from typing import Any

import torch

# Batches checked, over the whole probe: one draw in any of them is enough to say.
CHECKS = 4

State = tuple[Any, ...]


def _numpy_state() -> Any:
    numpy = sys.modules.get("numpy")
    if numpy is None:
        return None
    try:
        return numpy.random.get_state()
    except Exception:  # numpy in an odd state: nothing said of it
        return None


def _states() -> State:
    return (torch.random.get_rng_state(), random.getstate(), _numpy_state())


def _numpy_moved(before: Any, after: Any) -> bool:
    if before is None or after is None:
        return False
    return bool(before[2] != after[2] or (before[1] != after[1]).any())


class GlobalDraws:
    """The generators that loading a batch advanced, once ``CHECKS`` batches were read."""

    __slots__ = ("found", "left")

    def __init__(self) -> None:
        self.left = CHECKS
        self.found: set[str] = set()

    def arm(self, it: Any) -> GlobalDraws | None:
        """Itself, for an iterator that loads in this process while checks are left."""
        if self.left <= 0 or getattr(it, "_num_workers", None) != 0:
            return None
        return self

    def before(self) -> State:
        return _states()

    def after(self, before: State) -> bool:
        """Compare with ``before``; False once no checks are left (stop reading)."""
        torch_state, py_state, np_state = _states()
        if not torch.equal(before[0], torch_state):
            self.found.add("torch")
        if before[1] != py_state:
            self.found.add("random")
        if _numpy_moved(before[2], np_state):
            self.found.add("numpy")
        self.left -= 1
        return self.left > 0
