"""Ranges that name data wait, H2D copy and step, for Nsight (NVTX) and torch.profiler.

NVTX attributes are registered once; with no tool attached a push/pop pair costs well under a
microsecond. Without the ``nvtx`` package those calls are no-ops. torch.profiler does not
record NVTX (seen on an H200: none of these ranges in its trace), so while it records, each
range is also a torch record_function (``autotune:step``...); while it does not, that costs
one flag read.
"""

from __future__ import annotations

from typing import Any

import torch

PREFIX = "autotune:"


def _profiler_hooks() -> tuple[Any, Any, Any] | None:
    try:
        return (
            torch._C._autograd._profiler_enabled,
            torch.ops.profiler._record_function_enter_new,
            torch.ops.profiler._record_function_exit._RecordFunction,
        )
    except (AttributeError, RuntimeError):  # a torch without them: NVTX alone
        return None


class NvtxRanges:
    def __init__(self) -> None:
        self._domain: Any = None
        self._hooks = _profiler_hooks()
        # One entry per open range: the profiler's record, or None when it was not recording.
        self._open: list[Any] = []
        try:
            import nvtx
        except ImportError:  # optional: measurement works without it
            return
        self._domain = nvtx.get_domain("autotune")
        self._wait = self._domain.get_event_attributes(message="data_wait", color="red")
        self._copy = self._domain.get_event_attributes(message="h2d_copy", color="yellow")
        self._step = self._domain.get_event_attributes(message="step", color="green")

    def _record(self, name: str) -> None:
        hooks = self._hooks
        if hooks is not None and hooks[0]():
            self._open.append(hooks[1](PREFIX + name, None))
        else:
            self._open.append(None)

    def push_wait(self) -> None:
        if self._domain is not None:
            self._domain.push_range(self._wait)
        self._record("data_wait")

    def push_copy(self) -> None:
        if self._domain is not None:
            self._domain.push_range(self._copy)
        self._record("h2d_copy")

    def push_step(self) -> None:
        if self._domain is not None:
            self._domain.push_range(self._step)
        self._record("step")

    def pop(self) -> None:
        if self._domain is not None:
            self._domain.pop_range()
        if self._open:
            record = self._open.pop()
            if record is not None and self._hooks is not None:
                self._hooks[2](record)
