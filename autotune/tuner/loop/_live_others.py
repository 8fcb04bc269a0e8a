"""``autotune run --adapt``: the run's other loaders (evaluation, validation) tuned on their
own passes, beside the training loader's segments.

The run reports each pass of a loader other than the training loader
(``probe/session/_live_passes.py``); this side reads them as they come, on a thread of its
own (a pass comes once an epoch, whenever the script runs it, while the training loader's
search waits on its segments). The first map-style loader whose pass as written takes at
least ``UNTUNED_SHARE`` of its epoch leads: the other loaders' worker count climbs as in
`autotune probe` (``workers.PassClimb``), one of its passes a count, and the word goes to every
map-style loader but the training one. A setting that fails in a pass is abandoned by the
run for the script's own, without a batch lost or repeated, and ends the climb. An
IterableDataset's loader is timed, never changed: its order would change with its workers.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from autotune.answer import UNTUNED_SHARE, LivePass, OtherLoaders
from autotune.contract import (
    LoaderConfig,
    OthersOrder,
    PassReport,
    adapt_others_path,
    adapt_pass_path,
    write_whole,
)
from autotune.tuner.workers import MAX_PASS_WORKERS, PassClimb

ITERABLE = "an IterableDataset's loader is timed, never changed in a live run"


class LiveOthers:
    """Reads the passes rank ``folder`` reports, and writes the word for the next ones."""

    def __init__(
        self,
        folder: Path,
        orders: Path,
        *,
        top: int | None = None,
        note: Callable[[str], None] = lambda _: None,
        poll_s: float = 0.2,
    ) -> None:
        self._folder, self._orders = folder, orders
        self._top = min(top, MAX_PASS_WORKERS) if top else MAX_PASS_WORKERS
        self._note = note
        self._poll_s = poll_s
        self._started = time.monotonic()
        self._read = 0  # the next pass report to read
        self._version = 0  # the last word written
        self._done = False  # the climb is over: its last word stands
        self._lead: str | None = None
        self._climb: PassClimb | None = None
        self.passes: list[LivePass] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="autotune-others", daemon=True)

    def start(self) -> LiveOthers:
        self._thread.start()
        return self

    def stop(self) -> None:
        """No more word: the passes reported so far are read, the last word stands."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()
        self.poll()

    def _loop(self) -> None:
        while not self._stop.wait(self._poll_s):
            self.poll()

    def poll(self) -> None:
        while True:
            path = adapt_pass_path(self._folder, self._read)
            try:
                report = PassReport.from_json(path.read_text(encoding="utf-8"))
            except FileNotFoundError:
                return
            self._read += 1
            self._seen(report)

    def _seen(self, report: PassReport) -> None:
        self.passes.append(
            LivePass(
                loader=report.loader,
                at_s=round(time.monotonic() - self._started, 3),
                seconds=report.seconds,
                batches=report.batches,
                num_workers=report.num_workers,
                persistent_workers=report.persistent_workers,
                abandoned=report.abandoned or None,
                iterable=report.iterable,
            )
        )
        if report.iterable:
            return
        if self._climb is None:
            share = report.seconds / report.epoch_s if report.epoch_s else None
            if report.order != 0 or share is None or share < UNTUNED_SHARE:
                return
            self._lead = report.loader
            self._climb = PassClimb(report.num_workers, report.seconds, self._top)
            self._note(
                f"autotune: {report.loader}'s pass takes {share:.0%} of its epoch "
                f"({report.seconds:.2f} s): tuning the other loaders on their own passes"
            )
            self._word()
            return
        if self._done or report.loader != self._lead or report.order != self._version:
            return  # another loader's, or a pass that began before the last word
        candidate = self._climb.candidate()
        if candidate is None:
            return
        workers = candidate.num_workers
        if report.abandoned:
            self._climb.failed(
                f"{workers} workers for them failed in a pass ({report.abandoned}); the pass "
                "went on with the script's settings, as the rest of the run does"
            )
        else:
            self._climb.measured(report.seconds)
        self._note(
            f"autotune: {report.loader}: {workers} workers, pass "
            + ("failed" if report.abandoned else f"{report.seconds:.2f} s")
            + f" (as written {self._climb.reference:.2f} s)"
        )
        self._word()

    def _word(self) -> None:
        climb = self._climb
        assert climb is not None
        config: LoaderConfig | None = climb.candidate()
        if config is None:
            self._done, config = True, climb.chosen
        self._version += 1
        write_whole(adapt_others_path(self._orders), OthersOrder(self._version, config).to_json())

    def outcome(self) -> OtherLoaders | None:
        """What the run's other loaders got; None when it iterated none."""
        if not self.passes:
            return None
        names = sorted({p.loader for p in self.passes})
        if self._climb is None:
            reason = (
                f"no map-style pass took {UNTUNED_SHARE:.0%} of its epoch as written: "
                "they were left as the script has them"
            )
            if all(p.iterable for p in self.passes):
                reason = ITERABLE
            return OtherLoaders(loaders=names, reason=reason, passes=self.passes)
        found = self._climb.outcome(names)
        if not self._done and found.reason is None and found.config is None:
            found = replace(found, reason="the training ended before their climb was done")
        return replace(found, passes=self.passes)
