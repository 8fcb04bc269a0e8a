"""A torch.profiler trace (Chrome trace format) of a few steps, taken after measurement.

The steps are profiled once the measurement windows are closed and the result is written,
so the profiler's overhead never lands in a measured window.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from autotune.probe._meter import ProbeDone


class ProfileTail:
    """Passes the timed iterator through; when it signals done, profiles ``steps`` more steps
    straight from ``source``, writes the trace, then ends the script as usual."""

    def __init__(
        self,
        timed: Iterator[Any],
        source: Iterator[Any],
        steps: int,
        path: str,
        on_written: Callable[[], None],
    ) -> None:
        self._timed = timed
        self._source = source
        self._steps = steps
        self._path = path
        self._on_written = on_written
        self._prof: Any = None
        self._taken = 0

    def __iter__(self) -> ProfileTail:
        return self

    def __next__(self) -> Any:
        if self._prof is None:
            try:
                return next(self._timed)
            except ProbeDone:
                self._start()
        if self._taken >= self._steps:
            self._finish()
        self._prof.step()
        self._taken += 1
        try:
            return next(self._source)
        except StopIteration:
            self._finish()
            raise ProbeDone from None

    def _start(self) -> None:
        import torch
        from torch.profiler import ProfilerActivity, profile

        activities = [ProfilerActivity.CPU]
        if torch.cuda.is_available() and torch.cuda.is_initialized():  # type: ignore[no-untyped-call]
            activities.append(ProfilerActivity.CUDA)
        self._prof = profile(activities=activities)
        self._prof.__enter__()

    def _finish(self) -> None:
        prof, self._prof = self._prof, None
        if prof is not None:
            prof.__exit__(None, None, None)
            prof.export_chrome_trace(self._path)
            self._on_written()
        raise ProbeDone

    def __len__(self) -> int:
        return len(self._timed)  # type: ignore[arg-type]

    def __getattr__(self, name: str) -> Any:
        if name == "_timed":
            raise AttributeError(name)
        return getattr(self._timed, name)
