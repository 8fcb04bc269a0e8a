"""The two climbs that double a worker count while each step gains beyond noise: the other
loaders' (evaluation, validation), judged by their passes' seconds, one probe a count; and a
settled live run's that reopened when its data wait rose, judged by its segments' rates.
Neither is Optuna's: each is short, and measured where the study's model of the space does not
hold (another loader's passes; conditions that changed under a live run)."""

from __future__ import annotations

from autotune.answer import OtherLoaders, PassTry
from autotune.contract import LoaderConfig

# A doubling must make the other loaders' passes this much faster to be kept: one probe a
# count, on a machine whose times swing, so less would follow noise.
PASS_GAIN = 0.10
# Worker counts tried for the other loaders, at most (each a probe).
MAX_PASS_WORKERS = 64
# A reopened run's next count must add this much to its rate to be kept: its segments are
# long and back to back in one process, so a smaller gain is past their noise.
REOPEN_GAIN = 0.05


class PassClimb:
    """The other loaders' worker count, one measurement a count: from the script's own
    (``written``, its passes ``reference`` seconds), doubling while their passes get faster
    by more than ``PASS_GAIN``; persistent, so a pass pays its workers' start-up once."""

    def __init__(self, written: int, reference: float, top: int = MAX_PASS_WORKERS) -> None:
        self.reference = self.best_s = reference
        self.chosen: LoaderConfig | None = None
        self.tried: list[PassTry] = [PassTry(written, reference)]
        self.stopped: str | None = None  # why the climb ended, once it has
        self._next = max(2, 2 * written)
        self._top = top

    def candidate(self) -> LoaderConfig | None:
        """The settings to measure next; None once the climb is over."""
        if self.stopped is None and self._next > self._top:
            self.stopped = "no worker count made their passes faster"
        if self.stopped is not None:
            return None
        return LoaderConfig(num_workers=self._next, persistent_workers=True)

    def measured(self, seconds: float | None) -> None:
        """The candidate's passes took ``seconds`` (None: not seen)."""
        candidate = self.candidate()
        if candidate is None:
            return
        self.tried.append(PassTry(self._next, seconds))
        if seconds is None or seconds > self.best_s * (1 - PASS_GAIN):
            self.stopped = "no worker count made their passes faster"
            return
        self.best_s, self.chosen = seconds, candidate
        self._next *= 2

    def failed(self, why: str) -> None:
        """The candidate failed: the climb ends below it."""
        self.tried.append(PassTry(self._next))
        self.stopped = why

    def outcome(self, names: list[str]) -> OtherLoaders:
        return OtherLoaders(
            config=self.chosen,
            loaders=names,
            as_written_s=self.reference,
            tuned_s=self.best_s,
            tried=self.tried,
            reason=None if self.chosen is not None else self.stopped,
        )


def more_workers(config: LoaderConfig, top: int) -> LoaderConfig | None:
    """A reopened run's next step: twice the workers (at least one more), within ``top``;
    None at ``top``."""
    workers = config.num_workers or 0
    more = min(top, max(workers + 1, 2 * workers))
    if more <= workers:
        return None
    return LoaderConfig(
        num_workers=more,
        prefetch_factor=config.prefetch_factor,
        persistent_workers=config.persistent_workers,
    )
