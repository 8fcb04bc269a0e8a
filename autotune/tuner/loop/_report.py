"""How the search tells a person what it is doing: the seam between the tuner and a CLI."""

from __future__ import annotations

from typing import Protocol

from autotune.contract import LoaderConfig, ProbeResult


class Reporter(Protocol):
    def trial_started(
        self, number: int, done: int, total: int, role: str, config: LoaderConfig
    ) -> None: ...

    def trial_finished(
        self, number: int, result: ProbeResult, best: float | None, baseline: float | None
    ) -> None: ...

    def phase(self, text: str) -> None:
        """What the search does between trials, as a live line shows it."""

    def note(self, text: str) -> None: ...


class NullReporter:
    def trial_started(
        self, number: int, done: int, total: int, role: str, config: LoaderConfig
    ) -> None:
        pass

    def trial_finished(
        self, number: int, result: ProbeResult, best: float | None, baseline: float | None
    ) -> None:
        pass

    def phase(self, text: str) -> None:
        pass

    def note(self, text: str) -> None:
        pass
