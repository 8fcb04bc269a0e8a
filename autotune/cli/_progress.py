"""The live bar of a search and the words it uses for a config, shared by every command that
runs trials (``probe``, ``join``, ``run --adapt``, ``show``)."""

from __future__ import annotations

import statistics
import time

from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, Task, TextColumn
from rich.text import Text

from autotune.cli._common import err, literal, say
from autotune.contract import LOADER_KEYS, LoaderConfig, ProbeResult

# LoaderConfig's fields as the progress lines name them.
_SHORT = dict(
    zip(
        LOADER_KEYS,
        ("workers", "prefetch", "pin", "persistent", "batch", "streams", "device", "threads"),
        strict=True,
    )
)


def describe_config(config: LoaderConfig) -> str:
    parts = [f"{_SHORT[k]}={v}" for k, v in config.to_dict().items() if v is not None]
    return " ".join(parts) or "as written"


def clock(seconds: float) -> str:
    minutes, secs = divmod(round(seconds), 60)
    return f"{minutes}:{secs:02d}"


class SearchClock(ProgressColumn):
    """The search's time so far, as the user's clock shows it: the re-measures after the
    last trial count too (rich's own elapsed column stops once the bar is full)."""

    def __init__(self) -> None:
        super().__init__()
        self.started = time.monotonic()
        self.stopped: float | None = None

    def seconds(self) -> float:
        end = self.stopped if self.stopped is not None else time.monotonic()
        return end - self.started

    def render(self, task: Task) -> Text:
        return Text(clock(self.seconds()), style="progress.elapsed")


class ProgressReporter:
    """A live bar on stderr (trial i of n, time spent, current settings, best so far,
    speedup, and about how long is left: ``left``)."""

    def __init__(self, total: int, budget_s: float | None = None) -> None:
        self.clock = SearchClock()
        self.progress = Progress(
            TextColumn("[bold]trial[/]"),
            MofNCompleteColumn(),
            BarColumn(bar_width=20),
            self.clock,
            TextColumn("{task.description}", markup=False),
            console=err,
            transient=False,
        )
        self.task = self.progress.add_task("starting", total=total)
        self.best_text = ""
        self.label = "starting"
        self.total, self.budget_s = total, budget_s
        self._trial_started: float | None = None
        self._took: list[float] = []

    def __enter__(self) -> ProgressReporter:
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        # The bar stays on screen: it must not end on the search's best, which confirmation
        # may not keep; the answer below it is what holds.
        self.clock.stopped = time.monotonic()
        self.progress.update(self.task, description="search over: the answer follows")
        self.progress.stop()

    def trial_started(
        self, number: int, done: int, total: int, role: str, config: LoaderConfig
    ) -> None:
        label = "the script as written" if role == "baseline" else describe_config(config)
        self.label = f"{role}: {label}"
        self.total = total
        self._trial_started = time.monotonic()
        self.progress.update(
            self.task,
            completed=done,
            total=total,
            description=f"{self.label}{self.best_text}{self.left(done)}",
        )

    def trial_finished(
        self, number: int, result: ProbeResult, best: float | None, baseline: float | None
    ) -> None:
        rate = f"{result.samples_per_s:,.0f} samples/s" if result.samples_per_s else "-"
        # The reason is the script's own error: gloo's "[/path/pair.cc:553]", ANSI colours.
        status = "" if result.ok else say(" ", (result.status, "red"), ": ", literal(result.reason))
        self.progress.console.print(
            say(
                f"  #{number} ",
                literal(describe_config(result.applied_config)),
                f": {rate}",
                status,
            ),
            soft_wrap=True,
        )
        if best:
            speed = f" ({best / baseline:.2f}x)" if baseline else ""
            self.best_text = f" | best {best:,.0f} samples/s{speed}"
        # The bar stays on screen after the search: it must not show the best as it was
        # before this trial (a 4.15x search ended on "best 173 samples/s (1.00x)").
        if self._trial_started is not None:
            self._took.append(time.monotonic() - self._trial_started)
            self._trial_started = None
        self.progress.update(self.task, description=f"{self.label}{self.best_text}")
        self.progress.advance(self.task)

    def left(self, done: int) -> str:
        budget_left = None
        if self.budget_s is not None:
            budget_left = self.budget_s - self.clock.seconds()
        return time_left(self.total - done, self._took, budget_left)

    def phase(self, text: str) -> None:
        """What the search does between trials (its own words, no script's): on the bar."""
        self.progress.update(self.task, description=f"{text}{self.best_text}")

    def note(self, text: str) -> None:
        """Plain words from the search, which may quote a script: never markup."""
        self.progress.console.print(literal(text, limit=None), soft_wrap=True)


def time_left(trials_left: int, took: list[float], budget_left: float | None) -> str:
    """The bar's " | about M:SS left": the lesser of what the budget leaves and the trials
    left at the median trial's time (the stop rules often end a search sooner); "" until a
    trial's time is known."""
    if not took:
        return ""
    bounds = [max(0, trials_left) * statistics.median(took)]
    if budget_left is not None:
        bounds.append(max(0.0, budget_left))
    return f" | about {clock(min(bounds))} left"
