"""Copies the measured loader's batches to the GPU ahead of use, on k side streams.

Batch i is copied on stream ``i % k`` while the script still computes on batch i - k. The
consumer never synchronizes the device: its own (current) stream waits on the batch's event,
which costs the CPU nothing, and every copy is ``record_stream``-ed onto that stream so the
caching allocator does not reuse its memory while the script's queued kernels still read it.

The target device is ``cuda:<torch.cuda.current_device()>`` when the prefetcher is built,
i.e. the device the script selected with ``torch.cuda.set_device`` or, by default, the first
visible one. A script that moves batches to another index pays one extra device-to-device
copy in its own ``.to()``; the result stays correct.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import torch

from autotune.contract import GpuReading
from autotune.probe.measure import NvtxRanges, map_tensors

# torch.cuda's Stream and Event constructors carry no annotations; mypy strict refuses them.
_cuda: Any = torch.cuda


@dataclass
class CopyStats:
    """H2D copy time, and how much of it the compute stream never waited for.

    Per consumed batch three timing events: copy start and end on the side stream, and
    ``ready`` on the consumer's stream just before it waits for the copy. The compute stream
    stalled for ``end - ready`` when positive; the rest of the copy ran behind other work.
    Events are read only in :meth:`fold`, after a device synchronize at a window edge, so
    the per-batch cost stays a few event records.
    """

    active: bool = False
    copy_s: float = 0.0
    exposed_s: float = 0.0
    batches: int = 0
    _pending: list[tuple[Any, Any, Any]] = field(default_factory=list)

    def add(self, start: Any, end: Any, ready: Any) -> None:
        if self.active:
            self._pending.append((start, end, ready))

    def fold(self) -> None:
        """Read the events of consumed batches; call only after a synchronize."""
        for start, end, ready in self._pending:
            copy_s = max(0.0, start.elapsed_time(end) / 1000.0)
            stall_s = max(0.0, ready.elapsed_time(end) / 1000.0)
            self.copy_s += copy_s
            self.exposed_s += min(stall_s, copy_s)
            self.batches += 1
        self._pending.clear()

    def onto(self, reading: GpuReading) -> GpuReading:
        """``reading`` with these copies' figures."""
        return replace(
            reading,
            h2d_copy_s=self.copy_s if self.batches else None,
            h2d_exposed_s=self.exposed_s if self.batches else None,
            h2d_hidden_fraction=1.0 - self.exposed_s / self.copy_s if self.copy_s > 0 else None,
            h2d_batches=self.batches,
        )


@dataclass
class _InFlight:
    batch: Any
    copies: list[torch.Tensor]
    done: Any  # torch.cuda.Event recorded on the side stream after the last copy
    start: Any  # timing event before the first copy, or None when not timed


def make_streams(num_streams: int, device: torch.device | None = None) -> list[Any]:
    """k side streams on ``device`` (default: the current CUDA device)."""
    dev = device or torch.device("cuda", torch.cuda.current_device())
    return [_cuda.Stream(device=dev) for _ in range(num_streams)]


class StreamPrefetcher:
    """Wraps a loader iterator; yields the same batches with every tensor already on the GPU."""

    def __init__(
        self,
        it: Iterator[Any],
        streams: Sequence[Any],
        *,
        nvtx: NvtxRanges | None = None,
        stats: CopyStats | None = None,
    ) -> None:
        if not streams:
            raise ValueError("StreamPrefetcher needs at least one stream")
        self._it = it
        self._streams = list(streams)
        self._device = self._streams[0].device
        self._nvtx = nvtx
        self._stats = stats
        self._queue: deque[_InFlight] = deque()
        self._issued = 0
        self._exhausted = False

    def __iter__(self) -> StreamPrefetcher:
        return self

    def _issue(self) -> None:
        """Pull one batch from the source and start its copy on the next side stream."""
        try:
            batch = next(self._it)
        except StopIteration:
            self._exhausted = True
            return
        stream = self._streams[self._issued % len(self._streams)]
        self._issued += 1
        timed = self._stats is not None
        start = _cuda.Event(enable_timing=True) if timed else None
        done = _cuda.Event(enable_timing=timed)
        copies: list[torch.Tensor] = []
        device = self._device

        def move(t: torch.Tensor) -> torch.Tensor:
            if t.device.type != "cpu":
                return t  # already on a device: the script put it there
            # An async copy needs page-locked memory; a loader with pin_memory=True has done
            # this already in its pin thread, otherwise it costs one host memcpy here.
            src = t if t.is_pinned() else t.pin_memory()
            out = src.to(device, non_blocking=True)
            copies.append(out)
            return out

        if self._nvtx is not None:
            self._nvtx.push_copy()
        try:
            with torch.cuda.stream(stream):
                if start is not None:
                    start.record(stream)
                moved = map_tensors(move, batch)
                done.record(stream)
        finally:
            if self._nvtx is not None:
                self._nvtx.pop()
        self._queue.append(_InFlight(moved, copies, done, start))

    def __next__(self) -> Any:
        # Keep k copies in flight beyond the batch handed out now: one per side stream.
        while not self._exhausted and len(self._queue) <= len(self._streams):
            self._issue()
        if not self._queue:
            raise StopIteration
        item = self._queue.popleft()
        consumer = torch.cuda.current_stream(self._device)
        ready = None
        if self._stats is not None and self._stats.active and item.start is not None:
            ready = _cuda.Event(enable_timing=True)
            ready.record(consumer)
        consumer.wait_event(item.done)  # GPU-side wait: the CPU runs on
        for t in item.copies:
            # Allocated on the side stream, used on the consumer's: without this the
            # allocator could hand the block out again while queued kernels still read it.
            t.record_stream(consumer)
        if ready is not None and self._stats is not None:
            self._stats.add(item.start, item.done, ready)
        return item.batch

    def __len__(self) -> int:
        return len(self._it)  # type: ignore[arg-type]

    def __getattr__(self, name: str) -> Any:
        if name == "_it":  # not set yet: no recursion through the delegation below
            raise AttributeError(name)
        return getattr(self._it, name)
