"""Mode "adapt": the whole training runs once while the search outside moves its loader
through configurations, each measured on the real steps as one *segment*.

The training loader is the one the patch chooses; in this mode torch's iteration of it goes
through a ``SwitchableLoader`` (``_switch.py``), so a switch changes how batches are loaded and
never which, or in what order. Segment 0 is the script as written. After each segment's
windows the result goes to ``segment-k.json`` and the run trains on with the same settings
until the order for the next segment arrives (``order-k.json``, polled every ``POLL_S``); an
order to settle keeps its config for the rest of the run. The search logic stays outside this
process: only files cross.

A segment's meter starts at the first batch the new settings loaded (the batches the old ones
had already dispatched are delivered first and belong to neither), and its time to first
batch runs from when that segment's workers were started: start-up is part of a config's
cost. A config that crashes a worker or hangs is abandoned by the switchable, which goes on
with the last proven settings; one whose process tree passes the host-memory budget is
switched back to the settings before it. Either way the segment is reported failed, with
the reason, and no batch is lost or repeated.

Once settled the run watches its own data wait (``_drift.py``); on a sustained rise it writes
``drift-k.json`` and follows orders again (a reopened search). Under torchrun each rank is
such a run, reporting in its own folder and reading the job's orders.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from time import perf_counter
from typing import TYPE_CHECKING, Any

from autotune.contract import (
    NUM_WORKERS,
    TUNED_KEYS,
    AdaptOrder,
    Drift,
    LoaderConfig,
    LoaderFound,
    ProbeResult,
    Status,
    TrialConfig,
    adapt_drift_path,
    adapt_loader_path,
    adapt_order_path,
    adapt_progress_path,
    adapt_rank_dir,
    adapt_segment_path,
    write_whole,
)
from autotune.probe.loader import (
    Delivery,
    Settings,
    SwitchableLoader,
    normalized,
)
from autotune.probe.machine import OutsideCpu
from autotune.probe.measure import Meter, count_samples
from autotune.probe.session._drift import DriftWatch
from autotune.probe.session._live_passes import LivePasses
from autotune.probe.session._progress import progress_writer

if TYPE_CHECKING:
    from autotune.probe.loader import LoaderPatch
    from autotune.probe.machine import TreeSampler

POLL_S = 0.02  # how often the run looks for the search's next order (a stat call)
# A settled run's drift windows: longer than a segment's, since nobody waits on them and a
# reopened search costs the run segments.
DRIFT_WINDOW_MIN_S = 1.0
SETTLED_POLL_S = 0.25  # how often a settled run looks for an order all the same


def switch_settings(config: LoaderConfig, script: LoaderConfig) -> Settings:
    """The four switchable settings of ``config``, the script's own where it says nothing."""
    merged = config.merged_over(script).under_torch_rules()
    return normalized({k: getattr(merged, k) for k in TUNED_KEYS})


class Adapter:
    """The run's side of the exchange: meters segments, reports them, obeys orders."""

    def __init__(self, config: TrialConfig, patch: LoaderPatch, sampler: TreeSampler) -> None:
        # Under torchrun every rank follows the job's orders and reports in its own folder;
        # each keeps its own sampler shard and order, as without autotune.
        self._orders = Path(config.exchange_dir)
        world = int(os.environ.get("WORLD_SIZE", "1") or 1)
        self._dir = adapt_rank_dir(self._orders, int(os.environ.get("RANK", "0") or 0), world)
        self._dir.mkdir(exist_ok=True)
        self._settings = config.settings
        self._budget = config.settings.max_host_mem_bytes
        self._patch = patch
        self._sampler = sampler
        self.k = 0  # the segment being measured, or the last one reported
        self.meter: Meter | None = self._new_meter()
        self.config = LoaderConfig()  # the order being followed: segment 0 as written
        self._before = LoaderConfig()  # the order before it, to go back to over the budget
        self._awaiting: Settings | None = None  # a switch asked, not yet loading batches
        self._switch: SwitchableLoader | None = None
        self._abandoned = 0  # the switchable's abandon events already reported
        self._next_poll = 0.0
        self.settled = False
        self.segments_reported = 0
        # (epoch, batch) where the segment's settings took over; None: from the run's start.
        self._switched_at: list[int] | None = None
        self._over: int | None = None  # the tree's host memory, once over the budget
        self._drift: DriftWatch | None = None  # settled: watching the data wait
        self._sampling = True  # the session started the sampler; settled runs stop it
        # The other loaders' passes, timed and loaded as the search asks (``_live_passes``).
        self.passes = LivePasses(self._orders, self._dir, patch)

    # --- the hot path -----------------------------------------------------------------------
    def wrap(
        self, it: Iterator[Any], t_iter: float, delivered: Sequence[Delivery]
    ) -> Iterator[Any]:
        """Each iteration of the training loader, from its start (``t_iter``)."""
        self.passes.flush()  # an evaluation pass left open ends before training goes on
        if self.passes.training_started is None:
            self.passes.training_started = t_iter
        switch = self._patch.switchable_of(self._patch.current_loader)
        if self._switch is None:
            self._found(switch)
        self._switch = switch
        if self.meter is not None and self._awaiting is None:
            self.meter.iter_started(t_iter)
            self.meter.workers = _workers(switch, self._patch.current_loader)
        return _AdaptIterator(it, self, None if delivered else t_iter)

    def _found(self, switch: SwitchableLoader | None) -> None:
        """The training loader is known: tell the search whether and when it can switch."""
        found = LoaderFound(switchable=True, mid_epoch=switch is not None and switch.mid_epoch)
        if switch is None:
            found = LoaderFound(
                switchable=False,
                mid_epoch=False,
                why=f"{type(self._patch.current_loader).__name__} does not iterate through "
                "torch's DataLoader.__iter__: its settings cannot be switched mid-run",
            )
        write_whole(adapt_loader_path(self._dir), found.to_json())

    def batch(self, t0: float, t1: float, n: int, t_iter: float | None) -> None:
        drift = self._drift
        if drift is not None:  # settled: the only work a batch does until the wait rises
            found = drift.batch(t0, t1)
            if found is not None:
                self._reopen(found)
            elif t1 >= self._next_poll:
                # Another rank's rise reopens the job's search: a settled rank still looks
                # for an order, a stat call every SETTLED_POLL_S.
                self._next_poll = t1 + SETTLED_POLL_S
                self._poll()
            return
        meter, switch = self.meter, self._switch
        if meter is not None and switch is not None and not self._check_abandoned(switch):
            self._check_begun(meter, switch)
        if self.meter is not None and self._awaiting is None:
            if t_iter is not None:
                self.meter.first_batch(t_iter, t1)
            self.meter.record(t0, t1, n)
            if self._over is not None:
                self._over_budget(self._over)
            elif self.meter.done:
                self._report("ok")
        if t1 >= self._next_poll and not self.settled:
            self._next_poll = t1 + POLL_S
            self._poll()

    # --- segments and orders ----------------------------------------------------------------
    def _new_meter(self) -> Meter:
        path = str(adapt_progress_path(self._dir, self.k))
        return Meter(self._settings, on_window=progress_writer(path))

    def _script_config(self) -> LoaderConfig:
        return self._patch.script_config or LoaderConfig()

    def _report(self, status: Status, reason: str = "") -> None:
        meter, self.meter = self.meter, None
        res = ProbeResult(status=status, reason=reason)
        if meter is not None:
            meter.figures().fill(res)
        script = self._script_config()
        res.script_config = script
        res.applied_config = LoaderConfig(
            **{**self.config.merged_over(script).under_torch_rules().to_dict(), "device": None}
        )
        res.peak_rss_bytes = max(self._sampler.peak_host_mem, self._over or 0) or None
        if self.k == 0 and self._patch.time_to_first_batch_s is not None:
            res.time_to_first_batch_s = self._patch.time_to_first_batch_s  # before the choice
        loader = self._patch.measured_loader
        if loader is not None:
            res.measured_loader = replace(loader, switched_at=self._switched_at)
        res.write(adapt_segment_path(self._dir, self.k))
        self.segments_reported += 1

    def _check_begun(self, meter: Meter, switch: SwitchableLoader) -> None:
        """Is this batch the first the asked-for settings loaded? Their segment starts."""
        if self._awaiting is not None and switch.serving == self._awaiting:
            self._awaiting = None
            meter.iter_started(switch.serving_since)  # when their workers started
            meter.workers = _workers(switch, None)
            self._over = None
            self._sampler.rearm()  # this segment's own peak and budget from here
            switched = [e for e in switch.events if e.kind == "switched"]
            if switched:
                self._switched_at = [switched[-1].epoch, switched[-1].batch]

    def _check_abandoned(self, switch: SwitchableLoader) -> bool:
        """Whether the switchable gave up the settings on trial since the last batch."""
        if len(switch.events) == self._abandoned:
            return False
        new, self._abandoned = switch.events[self._abandoned :], len(switch.events)
        event = next((e for e in new if e.kind == "abandoned"), None)
        if event is None:
            return False
        self._awaiting = None
        self._report(
            "crashed", f"abandoned mid-run, training went on with {event.settings}: {event.reason}"
        )
        self.config, self._before = self._before, self._before
        self._patch.config = self.config
        return True

    def over_budget(self, figure: int) -> None:
        """From the sampler's thread: the tree is over the host-memory budget."""
        self._over = figure

    def _over_budget(self, figure: int) -> None:
        self._report(
            "over_memory",
            f"host memory of the process tree reached {figure / 2**30:.2f} GiB, over the "
            f"budget of {(self._budget or 0) / 2**30:.2f} GiB; switched back to the settings "
            "before",
        )
        self._over = None
        self._follow(self._before)

    def _poll(self) -> None:
        path = adapt_order_path(self._orders, self.k + 1)
        try:
            order = AdaptOrder.from_json(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return
        # An order while a segment is measured: the search pruned it and has moved on.
        self.k += 1
        if not self._sampling:  # settled until now: the search reopened
            self._drift, self.settled = None, False
            if self._switch is not None:  # events of the settled stretch are no segment's
                self._abandoned = len(self._switch.events)
            if not order.settle:
                self._sampler.rearm()
                self._sampler.start()
                self._sampling = True
        self._switched_at = None
        self._before = self.config
        self._follow(order.config)
        if order.settle:
            self.settled, self.meter = True, None
            # Memory is only watched while settings are on trial: the rest of the run pays
            # nothing for it.
            self._sampler.stop()
            self._sampling = False
            if self._switch is not None and self._switch.mid_epoch:  # else: never reopened
                window = max(2 * self._settings.window_s, DRIFT_WINDOW_MIN_S)
                self._drift = DriftWatch(window, perf_counter(), OutsideCpu())
        else:
            self.meter = self._new_meter()

    def _follow(self, config: LoaderConfig) -> None:
        self.config = config
        self._patch.config = config  # a loader built later starts with these settings
        wanted = switch_settings(config, self._script_config())
        self._awaiting = wanted
        if self._switch is not None:
            self._switch.switch(wanted)
            if self._switch.serving == wanted:
                self._awaiting = None  # nothing changes: measured from the next batch

    def _reopen(self, drift: Drift) -> None:
        """The data wait rose for good: say so, and follow the search's orders again."""
        self._drift = None
        self.settled = False  # polls every POLL_S again, as during the first search
        write_whole(adapt_drift_path(self._dir, self.k), drift.to_json())

    def finish(self, failed: tuple[Status, str] | None = None) -> None:
        """The script ended: the segment it ended inside reports what it has; ``failed``:
        the status and reason of the error that ended it."""
        self.passes.flush()
        if self.meter is None:
            return
        self.meter.close_partial()
        if failed is not None:
            self._report(*failed)
            return
        self._report("ended_early", "the training ended before this segment's windows were done")


class _AdaptIterator:
    """The training loader's iterator as the script sees it: two clock reads a batch."""

    __slots__ = ("_adapter", "_it", "_t_iter")

    def __init__(self, it: Iterator[Any], adapter: Adapter, t_iter: float | None) -> None:
        self._it, self._adapter, self._t_iter = it, adapter, t_iter

    def __iter__(self) -> _AdaptIterator:
        return self

    def __next__(self) -> Any:
        t0 = perf_counter()
        batch = next(self._it)
        t1 = perf_counter()
        t_iter, self._t_iter = self._t_iter, None
        self._adapter.batch(t0, t1, count_samples(batch), t_iter)
        return batch

    def __len__(self) -> int:
        return len(self._it)  # type: ignore[arg-type]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._it, name)


def _workers(switch: SwitchableLoader | None, loader: object) -> int:
    """Workers loading the batches a segment measures: its windows close on whole turns of
    them (``Meter``: workers in phase deliver in bursts)."""
    if switch is not None:
        return int(switch.serving.get(NUM_WORKERS) or 0)
    return int(getattr(loader, NUM_WORKERS, 0) or 0)
