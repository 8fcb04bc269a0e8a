"""The epoch on the wall clock: where one epoch of the script goes, timed at a few events.

The user waits for whole epochs, not for the training loader's steady rate: an untuned
validation pass, workers restarted at every epoch and loaders rebuilt between passes are all
in the epoch and none is in the rate. The clock times one epoch from the training loader's
first batch to its first batch of the next epoch, so the restart of its workers is inside it,
and splits it into the training pass, its start-up, the other loaders' passes, DataLoader
constructions and the rest. It is fed only at iterator creation, first batch and exhaustion,
never per batch: nothing here is on the hot path.

A probe is a few seconds of windows; an epoch may be longer. The probe never waits for an
epoch end it has not seen (every trial would pay the wait, and a long epoch's start-up and
other passes are a small share of it): such an epoch is reported as too long for a probe to
see its end, with its length in batches and in seconds at the measured rate. Short epochs,
where start-ups and other passes matter most, are seen: their windows already run until one
holds an epoch start (``_meter.py``).
"""

from __future__ import annotations

import itertools
import statistics
from dataclasses import dataclass, field, replace

from autotune.contract import EpochFigures, LoaderPass


@dataclass
class OtherPass:
    """One iteration of a loader that is not the training loader."""

    loader: str
    dataset: str
    batch_size: int | None
    num_workers: int
    site: str | None
    started: float
    first: float | None = None
    ended: float | None = None
    batches: int = 0
    last: float | None = None  # its last batch
    iterable: bool = False  # over an IterableDataset

    def to_pass(self, until: float, train_end: float | None = None) -> LoaderPass:
        # Left open (a peek with next(iter(...))): it took the epoch until its last batch.
        end = self.ended if self.ended is not None else min(until, self.last or self.started)
        return LoaderPass(
            loader=self.loader,
            dataset=self.dataset,
            batch_size=self.batch_size,
            num_workers=self.num_workers,
            seconds=max(0.0, end - self.started),
            batches=self.batches,
            startup_s=None if self.first is None else self.first - self.started,
            site=self.site,
            iterable=self.iterable,
            in_training=train_end is not None and self.started < train_end,
        )


@dataclass
class _Epoch:
    iter_at: float
    first_at: float | None = None
    ended_at: float | None = None


@dataclass
class EpochClock:
    """Events of the training loader and of every other loader, on ``perf_counter``."""

    epochs: list[_Epoch] = field(default_factory=list)
    passes: list[OtherPass] = field(default_factory=list)
    builds: list[tuple[float, float, bool]] = field(default_factory=list)  # (at, s, training)
    epoch_batches: int | None = None

    # --- events -----------------------------------------------------------------------------
    def train_iter(self, t: float) -> None:
        """The training loader's iteration began (an epoch starts)."""
        self.epochs.append(_Epoch(t))

    def train_first(self, t: float) -> None:
        """Its first batch."""
        if self.epochs and self.epochs[-1].first_at is None:
            self.epochs[-1].first_at = t

    def train_end(self, t: float) -> None:
        if self.epochs and self.epochs[-1].ended_at is None:
            self.epochs[-1].ended_at = t

    def other(self, p: OtherPass) -> OtherPass:
        self.passes.append(p)
        return p

    def built(self, at: float, seconds: float, training: bool) -> None:
        self.builds.append((at, seconds, training))

    # --- reading ----------------------------------------------------------------------------
    @property
    def complete(self) -> bool:
        return self._pair() is not None

    def _pair(self) -> tuple[_Epoch, _Epoch] | None:
        """The last two epochs in a row whose first batches were seen: the latest epoch is
        the most like the rest of the run (the first still has workers ramping up)."""
        for a, b in reversed(list(itertools.pairwise(self.epochs))):
            if a.first_at is not None and b.first_at is not None:
                return a, b
        return None

    def _unseen(self, batch_s: float | None) -> str:
        """Why no epoch was seen whole."""
        if self.epoch_batches is None:
            return (
                "the probe saw no epoch end, and the training loader has no length to tell "
                "how long one is"
            )
        size = f"{self.epoch_batches} batches an epoch"
        if batch_s:
            size += f", about {self.epoch_batches * batch_s:.1f} s of training batches"
        return f"the probe was too short to see an epoch end: {size}"

    def figures(self, batch_s: float | None = None) -> EpochFigures:
        """One epoch, from the training loader's first batch to its first batch of the next
        epoch; without one seen, only the reason (``batch_s``: the measured seconds a batch)
        and what is known."""
        pair = self._pair()
        if pair is None:
            first = self.epochs[0] if self.epochs else None
            startup = (
                None if first is None or first.first_at is None else first.first_at - first.iter_at
            )
            return EpochFigures(
                first_startup_s=startup,
                epoch_batches=self.epoch_batches,
                reason=self._unseen(batch_s),
            )
        a, b = pair
        assert a.first_at is not None and b.first_at is not None
        start, end = a.first_at, b.first_at
        passes = [p.to_pass(b.iter_at, a.ended_at) for p in self.passes if start <= p.started < end]
        builds = [(at, s, tr) for at, s, tr in self.builds if start <= at < end]
        # Without its end seen (the script broke out of the loop), the pass ends at the
        # first thing after it: another loader's pass, a construction, or the next epoch.
        after = [p.started for p in self.passes if start <= p.started < end]
        after += [at - s for at, s, _ in builds]
        train_end = a.ended_at if a.ended_at is not None else min(after, default=b.iter_at)
        epoch_s = end - start
        train_s = max(0.0, train_end - start)
        startup_s = end - b.iter_at
        other_s = sum(p.seconds for p in passes)
        builds_s = sum(s for _, s, _ in builds)
        return EpochFigures(
            epoch_s=epoch_s,
            train_s=train_s,
            startup_s=startup_s,
            first_startup_s=a.first_at - a.iter_at,
            passes=passes,
            builds_s=builds_s,
            rest_s=max(0.0, epoch_s - train_s - startup_s - other_s - builds_s),
            rebuilt=any(tr for _, _, tr in builds),
            epoch_batches=self.epoch_batches,
        )


def charge_per_epoch(
    figures: EpochFigures,
    *,
    windows: list[float],
    batch_size: float | None,
    batch_s: float | None,
    steady: float | None,
    workers: int,
    persistent: bool,
    startup_in_windows: float | None = None,
) -> tuple[EpochFigures, float]:
    """The start-up the training loader's workers pay at every epoch, charged into its rate:
    the figures (with the charge) and the factor every window is scaled by (1: none).

    Windows are the steady rate; a run pays the start-up again at each epoch where workers
    are not persistent or the loader is rebuilt. A worker count that only pays off within an
    epoch must not win on a rate that never pays its start-up, so the rate becomes
    ``epoch samples / (epoch at the steady rate + start-up)``. ``steady``: the rate with the
    start-ups inside the windows taken out (they are charged here instead, once per epoch).
    One batch's own time is in the steady rate already: only the start-up beyond it counts.

    ``startup_in_windows``: the mean start-up of the epoch starts inside the windows, the very
    time ``steady`` left out, charged back where there is one. One epoch's own start-up, which
    the clock saw, is not that mean: where every batch of an epoch is asked for at once (128
    workers for an epoch of 128 batches) the wait for its first is most of the loading, and
    it moves from epoch to epoch with the batch that comes last. Charging 2.3 s back where the
    windows' start-ups averaged more stated 643 samples/s for a loader that storage bounds at
    500."""
    if not windows or not steady or not batch_size or not figures.epoch_batches:
        return figures, 1.0
    if startup_in_windows is not None:
        startup = startup_in_windows  # what came out of the windows, once an epoch
    elif figures.startup_s is not None:
        startup = figures.startup_s  # seen: the restart the next epoch paid
    elif workers > 0 and not persistent:
        # Not seen: the first epoch's start-up, which every epoch repeats without persistence.
        startup = figures.first_startup_s or 0.0
    else:
        startup = 0.0
    cost = max(0.0, startup - (batch_s or 0.0))
    epoch_samples = figures.epoch_batches * batch_size
    # No cost: the steady rate itself, not e / (e / steady), whose last bit can differ and
    # leave the result's windows 1 ulp off the ones the progress file already carried.
    charged = epoch_samples / (epoch_samples / steady + cost) if cost > 0 else steady
    scale = charged / statistics.median(windows)
    return replace(figures, charged_startup_s=cost, uncharged_windows=list(windows)), scale
