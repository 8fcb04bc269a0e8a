"""Ranks of one multi-process probe stop together, at the same step of the measured loader.

Each rank measures on its own; ranks of a DDP job are in lock-step (every step ends in a
collective), so a rank that stopped alone would leave the others waiting in a collective
for ever. The protocol, through files in the trial's directory (``RANK_DIR_ENV``):

1. A rank whose measurement is done writes ``done.<rank>`` and keeps feeding the script
   batches, untimed.
2. Rank 0, once every rank is done, writes ``stop`` holding the step ``S = its step + 2``.
3. Every rank ends the script (``ProbeDone``) before delivering batch ``S + 1``.

Ranks check the files only after their own measurement is done, so measured batches cost one
attribute test more. In lock-step, rank 0 publishes before its step ``s + 1`` starts, and no
other rank can pass step ``s + 1`` before that, so every rank reads ``S`` in time.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from autotune.contract import RANK_DIR_ENV
from autotune.probe.measure._meter import ProbeDone

_MARGIN = 2


class RankSync:
    """One rank's view of the stop protocol."""

    def __init__(self, rank: int, world: int, directory: Path) -> None:
        self.rank = rank
        self.world = world
        self.directory = directory
        self.step = 0  # batches of the measured loader delivered to the script, all epochs
        self.done = False
        self.stop_at: int | None = None

    @classmethod
    def from_env(cls) -> RankSync | None:
        """The sync of a probe started by the multi-rank runner; None otherwise.

        Takes the variable out of the environment: the script's own subprocesses are not
        ranks of this probe.
        """
        directory = os.environ.pop(RANK_DIR_ENV, "")
        world = int(os.environ.get("WORLD_SIZE", "1") or 1)
        if not directory or world < 2:
            return None
        return cls(int(os.environ.get("RANK", "0") or 0), world, Path(directory))

    def wrap(self, measured: Iterator[Any], raw: Iterator[Any]) -> Iterator[Any]:
        return _RankIterator(self, measured, raw)

    def measured(self) -> None:
        """This rank's measurement is complete."""
        self.done = True
        (self.directory / f"done.{self.rank}").touch()

    def should_stop(self) -> bool:
        if self.stop_at is None:
            self._poll()
        return self.stop_at is not None and self.step >= self.stop_at

    def _poll(self) -> None:
        stop = self.directory / "stop"
        if self.rank == 0:
            if all((self.directory / f"done.{r}").exists() for r in range(self.world)):
                self.stop_at = self.step + _MARGIN
                tmp = stop.with_suffix(".tmp")
                tmp.write_text(str(self.stop_at))
                tmp.replace(stop)
            return
        with contextlib.suppress(FileNotFoundError, ValueError):
            self.stop_at = int(stop.read_text())


class _RankIterator:
    """The measured iterator until this rank is done, then the loader's own, to step S."""

    __slots__ = ("_cur", "_measured", "_raw", "_sync")

    def __init__(self, sync: RankSync, measured: Iterator[Any], raw: Iterator[Any]) -> None:
        self._sync = sync
        self._measured = measured
        self._raw = raw
        self._cur = measured

    def __iter__(self) -> _RankIterator:
        return self

    def __next__(self) -> Any:
        sync = self._sync
        if sync.done and sync.should_stop():
            raise ProbeDone
        try:
            batch = next(self._cur)
        except ProbeDone:
            # The meter finished (the result is written): untimed batches until step S.
            if self._cur is self._raw:
                raise
            self._cur = self._raw
            if not sync.done:
                sync.measured()
            if sync.should_stop():
                raise
            batch = next(self._cur)
        sync.step += 1
        return batch

    def __len__(self) -> int:
        return len(self._raw)  # type: ignore[arg-type]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._measured, name)
