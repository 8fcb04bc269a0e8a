"""The phases of a probe: what each mode measures, in order (``phases_for``).

A phase owns its meter, when it times the script's batches, and its part of the result. The
first phase leads: its meter's windows go to the progress file (the runner prunes on them),
the tree's CPU and GPU readings bracket its measurement, and its figures are the result's main
fields. A phase that times batches (``BatchPhase``) lasts until its meter is done, and the next
one takes over from the batch after; a phase that takes none (the transport ceiling) does its
work as soon as it is reached. The session (``_session.py``) moves from one to the next and
writes the result.
"""

from __future__ import annotations

import statistics
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from time import perf_counter
from typing import TYPE_CHECKING, Any, Protocol

from autotune.contract import (
    NUM_WORKERS,
    EpochFigures,
    Mode,
    ProbeResult,
    ProbeSettings,
    Status,
    TrialConfig,
)
from autotune.probe.loader import Delivery, ReplayIterator, epoch_length, waiting_reader
from autotune.probe.measure import (
    EpochClock,
    Meter,
    TransportResult,
    charge_per_epoch,
    measure_transport,
)
from autotune.probe.session import _failure as failure

if TYPE_CHECKING:
    from autotune.probe.loader import LoaderPatch
    from autotune.probe.machine import TreeSampler


class Host(Protocol):
    """What the phases use of the session that runs them."""

    config: TrialConfig
    patch: LoaderPatch
    sampler: TreeSampler
    clock: EpochClock

    def meter(
        self, settings: ProbeSettings, *, lead: bool, extra_warmup_batches: int = 0
    ) -> Meter: ...

    def prefetch(self, it: Iterator[Any]) -> Iterator[Any]: ...

    def shutdown_workers(self) -> None: ...


def phases_for(mode: Mode, host: Host, *, multi_rank: bool) -> list[BasePhase]:
    """The phases a probe of ``mode`` runs, in order; the first leads. None for "run"."""
    if mode == "measure":
        return [MeasurePhase(host)]
    if mode == "ceiling":
        # A suspect ceiling measured again: both ceilings, one start-up for the two.
        return [ComputeCeilingPhase(host, lead=True), *_transport(host)]
    if mode == "baseline":
        if multi_rank:
            reason = "not measured: a multi-rank probe measures the baseline only"
            return [MeasurePhase(host), CeilingsSkippedPhase(reason)]
        # The script as written, then both ceilings: one start-up for the three.
        return [MeasurePhase(host), ComputeCeilingPhase(host, lead=False), *_transport(host)]
    return []  # "run" trains for real with the trial's settings


def _transport(host: Host) -> list[BasePhase]:
    return [TransportCeilingPhase(host)] if host.config.settings.transport else []


class BasePhase(ABC):
    """One part of a probe, and its part of the result."""

    # Once this phase is done and others follow, the result is written: a probe killed in
    # a later phase keeps this one's figures, and a later phase can only add to them.
    keeps = False

    def begin(self) -> None:
        """The phase is reached. One that times no batches does all its work here."""
        return None

    def finish(self) -> None:
        """The phase's work is done (a batch phase: its meter is)."""
        return None

    def cut(self, status: Status, reason: str) -> bool:
        """The script ended (status "ok") or failed during this phase, after a result was
        kept: record what there is. Returns whether the phases after it may still run."""
        return False

    def over_budget(self, rss: int, limit: int) -> bool:
        """The tree went over the host-memory budget during this phase, after a result was
        kept. True: only this phase ends, and the kept result stands; False: the probe fails."""
        return False

    def failed(self, exc: Exception) -> None:
        """``begin`` raised after a result was kept; unless the phase can say so in its own
        part of the result, the probe fails."""
        raise exc

    @abstractmethod
    def report(self, res: ProbeResult) -> None:
        """Write this phase's part of the result."""


class BatchPhase(BasePhase):
    """A phase that times the script's batches with a meter of its own."""

    meter: Meter
    # The script's own batches, not a replay: a script that ends by itself while this phase
    # leads has told its length.
    own_batches = False

    @abstractmethod
    def source(
        self, it: Iterator[Any], t_iter: float, delivered: Sequence[Delivery]
    ) -> tuple[Iterator[Any], float | None]:
        """The batches this phase times, drawn from the loader's iterator ``it`` (made at
        ``t_iter``; ``delivered``: its batches before the probe chose it), and the epoch start
        to time (None: none)."""

    def script_ended(self) -> None:
        """The script ran to its end during this phase: a window it ended inside still counts
        when it is a clean one."""
        self.meter.close_partial()


def _note_workers(meter: Meter, patch: LoaderPatch, it: Iterator[Any]) -> None:
    # The loader, not the iterator: a library subclass's own iterator is a generator.
    loader = patch.current_loader
    workers = getattr(loader, NUM_WORKERS, None) or getattr(it, "_num_workers", 0)
    meter.workers = max(meter.workers, int(workers or 0))


class MeasurePhase(BatchPhase):
    """The script's loader with the trial's settings: the figures a config is judged by.
    Always the lead."""

    keeps = True
    own_batches = True

    def __init__(self, host: Host) -> None:
        self._host = host
        self.meter = host.meter(host.config.settings, lead=True)
        self.clock = host.clock
        self.meter.clock = host.clock
        self._peak: int | None = None

    def source(
        self, it: Iterator[Any], t_iter: float, delivered: Sequence[Delivery]
    ) -> tuple[Iterator[Any], float | None]:
        # The same stream prefetcher as `autotune run` uses: what was measured is what runs.
        source = self._host.prefetch(it)
        meter = self.meter
        if not meter.measuring and not meter.done:
            _note_workers(meter, self._host.patch, it)
            meter.epoch_batches = epoch_length(it) or epoch_length(self._host.patch.current_loader)
            self.clock.epoch_batches = meter.epoch_batches
        self.clock.train_iter(t_iter)
        meter.waiting = waiting_reader(it)  # each epoch's iterator, where torch builds anew
        if delivered:  # its first batches came before the choice (uncounted by the meter)
            self.clock.train_first(delivered[0][1])
        meter.iter_started(t_iter)
        meter.add_wait(perf_counter() - t_iter)
        if delivered and source is it:
            # (Through a stream prefetcher the measured source is not what was delivered.)
            meter.prewarm(delivered)
        # An iteration that delivered batches before it was chosen is no epoch start now.
        return source, None if delivered else t_iter

    def finish(self) -> None:
        # The script's own peak: the ceilings after it may cache, or start workers of their own.
        self._peak = self._host.sampler.peak_host_mem or None

    def report(self, res: ProbeResult) -> None:
        if self._peak:
            res.peak_rss_bytes = self._peak
        res.epoch = self._epoch(res)

    def _epoch(self, res: ProbeResult) -> EpochFigures:
        """The epoch seen, and the rate charged with the start-up each epoch pays."""
        meter = self.meter
        if not res.windows or not meter.measured_batches or meter.measure_start is None:
            return self.clock.figures()
        mid = statistics.median(res.windows)
        wall = (meter.measure_end or meter.measure_start) - meter.measure_start - meter.outside_s
        # Start-ups inside the windows come out of the steady rate: they are charged per epoch.
        inside = 0 < meter.startup_s < wall and meter.epoch_starts > 0
        steady = mid * wall / (wall - meter.startup_s) if inside else mid
        size = meter.measured_samples / meter.measured_batches
        figures = self.clock.figures(size / steady)
        config = res.applied_config
        figures, scale = charge_per_epoch(
            figures,
            windows=res.windows,
            batch_size=size,
            batch_s=size / steady,
            steady=steady,
            workers=int(config.num_workers or 0),
            persistent=bool(config.persistent_workers) and not figures.rebuilt,
            startup_in_windows=meter.startup_s / meter.epoch_starts if inside else None,
        )
        if scale != 1.0:
            res.windows = [w * scale for w in res.windows]
            if res.samples_per_s is not None:
                res.samples_per_s *= scale
        return figures


class ComputeCeilingPhase(BatchPhase):
    """The step with no data cost: the loader's next few batches (its raw iterator's, never
    through stream prefetch: this prices the step, not copies) loaded once, then replayed for
    as long as the meter needs, so the epoch does not end early.

    Leading (mode "ceiling"), its figures are the result's main ones. After the baseline it
    takes over from the batch after the baseline's last window and reports in ``ceiling_*``,
    its status saying why there is no figure when there is none.
    """

    def __init__(self, host: Host, *, lead: bool) -> None:
        settings = host.config.settings
        self._host = host
        self._lead = lead
        self._cached = settings.ceiling_cache_batches
        self._windows = settings.windows
        # Its warm-up must also outlast the loading of the batches it replays.
        self.meter = host.meter(
            settings.for_ceiling(beside=not lead), lead=lead, extra_warmup_batches=self._cached
        )
        self.status = "not measured: the baseline's windows were not complete"
        self._tail: float | None = None

    def source(
        self, it: Iterator[Any], t_iter: float, delivered: Sequence[Delivery]
    ) -> tuple[Iterator[Any], float | None]:
        meter = self.meter
        if not self._lead:
            # The loader's iterator is already running: no start-up, no epoch start to time.
            meter.iter_started(perf_counter())
            return ReplayIterator(it, self._cached), None
        if not meter.measuring and not meter.done:
            _note_workers(meter, self._host.patch, it)
        meter.iter_started(t_iter)
        meter.add_wait(perf_counter() - t_iter)
        # Never prewarmed by the batches delivered before the choice: see the warm-up above.
        return ReplayIterator(it, self._cached), None if delivered else t_iter

    def begin(self) -> None:
        self.status = "the probe was stopped before the compute ceiling was done"

    def finish(self) -> None:
        self.status = "ok"

    def cut(self, status: Status, reason: str) -> bool:
        meter = self.meter
        tail = meter.tail_rate()
        if status == "ok" and meter.windows:
            self.status = "ok"  # the windows the script left time for
        elif status == "ok" and tail:
            # No full window, but the replay has no ramp: its batches after the cached ones
            # loaded are the step's own rate (a fit loop that ran out of steps).
            self.status, self._tail = "ok", tail
        elif status == "ok":
            self.status = (
                f"the script ended {meter.batches} batches into the compute ceiling, before "
                f"its {self._windows} windows were complete ({len(meter.windows)} done)"
            )
        else:
            self.status = f"the script failed during the compute ceiling ({status}): {reason}"
        # A script that ended cleanly still leaves its loader for the transport ceiling.
        return status == "ok"

    def over_budget(self, rss: int, limit: int) -> bool:
        self.status = (
            f"the host-memory budget of {limit / 2**30:.2f} GiB was reached during the "
            f"ceilings ({rss / 2**30:.2f} GiB); the probe was stopped"
        )
        return True

    def report(self, res: ProbeResult) -> None:
        if self._lead:
            return  # its meter's figures are the main fields already
        figures = self.meter.figures()
        res.ceiling_status = self.status
        res.ceiling_windows = figures.windows
        res.ceiling_interference_cores = figures.interference_cores
        if self.status == "ok":
            res.ceiling_samples_per_s = figures.samples_per_s
        if self._tail:
            res.ceiling_windows = [self._tail]
            res.ceiling_interference_cores = []
            res.ceiling_samples_per_s = self._tail


class TransportCeilingPhase(BasePhase):
    """Cached real samples drained through the measured loader's own machinery with no step
    (``_transport.py``), once the phases before it are done with that loader."""

    def __init__(self, host: Host) -> None:
        self._host = host
        self._result: TransportResult | None = None

    def begin(self) -> None:
        self._host.shutdown_workers()  # the measured loader's workers would compete
        it = self._host.patch.last_iterator
        if it is not None:
            self._result = measure_transport(it, self._host.config.settings)

    def failed(self, exc: Exception) -> None:
        self._result = TransportResult(reason=f"transport failed: {failure.short(exc)}")

    def report(self, res: ProbeResult) -> None:
        if self._result is not None:
            res.transport_samples_per_s = self._result.best
            res.transport_by_workers = dict(self._result.by_workers) or None
            res.transport_reason = self._result.reason


class CeilingsSkippedPhase(BasePhase):
    """The ceilings a mode asks for but this probe cannot measure, and why."""

    def __init__(self, reason: str) -> None:
        self._reason = reason

    def report(self, res: ProbeResult) -> None:
        res.ceiling_status = self._reason
