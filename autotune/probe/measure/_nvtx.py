"""NVTX ranges that name data wait, H2D copy and step for anyone running Nsight Systems.

Attributes are registered once; with no profiler attached a push/pop pair costs well under
a microsecond. Without the ``nvtx`` package every call is a no-op.
"""

from __future__ import annotations

from typing import Any


class NvtxRanges:
    def __init__(self) -> None:
        self._domain: Any = None
        try:
            import nvtx
        except ImportError:  # optional: measurement works without it
            return
        self._domain = nvtx.get_domain("autotune")
        self._wait = self._domain.get_event_attributes(message="data_wait", color="red")
        self._copy = self._domain.get_event_attributes(message="h2d_copy", color="yellow")
        self._step = self._domain.get_event_attributes(message="step", color="green")

    def push_wait(self) -> None:
        if self._domain is not None:
            self._domain.push_range(self._wait)

    def push_copy(self) -> None:
        if self._domain is not None:
            self._domain.push_range(self._copy)

    def push_step(self) -> None:
        if self._domain is not None:
            self._domain.push_range(self._step)

    def pop(self) -> None:
        if self._domain is not None:
            self._domain.pop_range()
