"""Mode "adapt": the passes of the run's other loaders (evaluation, validation), timed and
reported to the search, and loaded with the settings it asks for.

Once the training loader is chosen, each other loader's pass is timed from its ``iter()`` to
its end and reported (``pass-j.json``); the search answers in one file it replaces
(``others-order.json``), read at the start of each pass: a stat call, and a parse when it
changed. A map-style loader's pass goes through its own switchable (``probe/loader/_switch``),
so the order's settings load it from its first batch, and a setting that crashes a worker or
hangs is abandoned for the script's own from the first batch not delivered: the script sees
the same batches in the same order whatever happens. An IterableDataset's loader is timed,
never changed. Per batch: a clock read and an increment.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from autotune.contract import (
    NUM_WORKERS,
    PERSISTENT_WORKERS,
    PIN_MEMORY,
    PREFETCH_FACTOR,
    TUNED_KEYS,
    LoaderConfig,
    OthersOrder,
    PassReport,
    adapt_others_path,
    adapt_pass_path,
    write_whole,
)
from autotune.probe.loader import (
    PassIterator,
    Settings,
    map_style,
    normalized,
    original,
    site_of,
)

if TYPE_CHECKING:
    from autotune.probe.loader import LoaderPatch

# Passes reported per loader, at most: the search's climb needs a handful, and a loader the
# script peeks at every step (``next(iter(aux))``) must not write a file per step.
MAX_REPORTS = 64


def other_settings(config: LoaderConfig | None, script: dict[str, Any]) -> Settings:
    """The worker settings of ``config`` over the script's own (all of them: None)."""
    own = {k: script.get(k) for k in TUNED_KEYS}
    if config is not None:
        # Its pin_memory is the training loader's: the other loaders keep their own.
        asked = {k: getattr(config, k) for k in TUNED_KEYS if k != PIN_MEMORY}
        own.update({k: v for k, v in asked.items() if v is not None})
        if config.num_workers is not None and config.prefetch_factor is None:
            own[PREFETCH_FACTOR] = None  # torch's default for the new count
    return normalized(own)


class _Pass:
    """One pass being timed."""

    __slots__ = ("batches", "ended", "events", "first", "last", "loader", "name", "order",
                 "settings", "started")  # fmt: skip

    def __init__(self, loader: Any, name: str, started: float, order: int) -> None:
        self.loader, self.name, self.started, self.order = loader, name, started, order
        self.batches = 0
        self.first: float | None = None
        self.last: float | None = None
        self.ended: float | None = None
        self.settings: Settings | None = None  # asked of its switchable; None: as built
        self.events = 0  # its switchable's events before it began


class LivePasses:
    """The run's side of the other loaders' exchange, for one rank."""

    def __init__(self, orders: Path, folder: Path, patch: LoaderPatch) -> None:
        self._path = adapt_others_path(orders)
        self._folder = folder
        self._patch = patch
        self._order = OthersOrder(0)
        self._stamp: int | None = None
        self._open: list[_Pass] = []
        self._asked: dict[int, Settings] = {}  # id(loader) -> settings given its next pass
        self._previous: dict[str, float] = {}  # each loader's last pass start
        self._reported = 0
        self._per_loader: dict[str, int] = {}
        self.training_started: float | None = None
        patch.other_settings = self.settings_for
        patch.on_other = self.timed

    def _refresh(self) -> None:
        try:
            stamp = self._path.stat().st_mtime_ns
        except FileNotFoundError:
            return
        if stamp != self._stamp:
            self._stamp = stamp
            try:
                self._order = OthersOrder.from_json(self._path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                self._stamp = None  # read again at the next pass

    def settings_for(self, loader: Any) -> Settings | None:
        """Before a map-style loader's pass: the settings the search asks for it, if any."""
        self._refresh()
        if self._order.version == 0:
            return None  # no word yet: the script's own
        settings = other_settings(self._order.config, original(loader))
        self._asked[id(loader)] = settings
        return settings

    def timed(self, loader: Any, t0: float, it: Iterator[Any]) -> Iterator[Any]:
        """A pass of another loader begins (its iterator ``it`` made at ``t0``)."""
        self.flush()
        self._refresh()  # an iterable one never asked: the order it ran under all the same
        dataset = getattr(loader, "dataset", None)
        site = site_of(loader)
        name = type(dataset).__name__ + (f" at {site}" if site else "")
        timed = _Pass(loader, name, t0, self._order.version)
        timed.settings = self._asked.pop(id(loader), None)
        switch = self._patch.switchable_of(loader)
        timed.events = len(switch.events) if switch is not None else 0
        self._open.append(timed)
        return PassIterator(it, timed, partial(self.report, timed))

    def flush(self) -> None:
        """Passes the script left open end at their last batch (a peek, a limited pass)."""
        open_, self._open = self._open, []
        for timed in open_:
            if timed.ended is None and timed.last is not None:
                timed.ended = timed.last
                self.report(timed)

    def report(self, timed: _Pass) -> None:
        if timed in self._open:
            self._open.remove(timed)
        if timed.ended is None:
            return
        count = self._per_loader.get(timed.name, 0)
        if count >= MAX_REPORTS:
            return
        self._per_loader[timed.name] = count + 1
        loader = timed.loader
        settings = timed.settings or normalized({k: getattr(loader, k, None) for k in TUNED_KEYS})
        switch = self._patch.switchable_of(loader)
        abandoned = ""
        if switch is not None:
            failed = [e for e in switch.events[timed.events :] if e.kind == "abandoned"]
            # Its error's last line (torch's worker errors carry the worker's traceback).
            lines = failed[0].reason.strip().splitlines() if failed else []
            abandoned = lines[-1].strip() if lines else ""
        # Its epoch: from its previous pass's start to this one's; the first epoch's from the
        # training's start to this pass's end.
        previous = self._previous.get(timed.name)
        self._previous[timed.name] = timed.started
        first = self.training_started
        epoch = timed.started - previous if previous is not None else (
            None if first is None else timed.ended - first
        )  # fmt: skip
        report = PassReport(
            loader=timed.name,
            iterable=not map_style(loader),
            batches=timed.batches,
            seconds=timed.ended - timed.started,
            epoch_s=epoch,
            num_workers=int(settings[NUM_WORKERS]),
            persistent_workers=bool(settings[PERSISTENT_WORKERS]),
            order=timed.order,
            abandoned=abandoned,
        )
        write_whole(adapt_pass_path(self._folder, self._reported), report.to_json())
        self._reported += 1
