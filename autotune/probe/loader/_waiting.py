"""Batches the workers have finished that the main process has not taken yet.

torch's multi-process iterator keeps up to ``workers x prefetch_factor`` batches in flight and
hands them over in order: a batch that arrives before its turn waits in ``_task_info`` (its
entry then holds the data), and finished batches wait in the result queues until read. That
store fills while the main process waits on one slow worker and drains in a burst after, by
as many batches as a window of a deep loader holds (68 workers over a storage that serves 4
requests at once: windows of 300-535 samples/s against a rate of 400 at most). The batches the
workers finished in a window are the ones handed over plus the change in this count; their
rate is the one a long run sees. Read at window edges only, never per batch.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any


def waiting_reader(it: Any) -> Callable[[], int | None] | None:
    """A reader of ``it``'s finished, untaken batches, or None where ``it`` is no torch
    multi-process iterator. The iterator is held weakly: a reader never keeps workers alive."""
    if not hasattr(it, "_task_info") or not hasattr(it, "_data_queue"):
        return None
    ref = weakref.ref(it)

    def read() -> int | None:
        live = ref()
        return None if live is None else waiting(live)

    return read


def waiting(it: Any) -> int | None:
    """Finished batches ``it`` holds back or has yet to read; None where a queue cannot say
    (``multiprocessing.Queue.qsize`` is not implemented on macOS)."""
    try:
        held = sum(1 for entry in list(it._task_info.values()) if len(entry) == 2)
        queued = it._data_queue.qsize()
        if getattr(it, "_pin_memory", False) and it._data_queue is not it._worker_result_queue:
            queued += it._worker_result_queue.qsize()  # not yet through the pinning thread
    except (AttributeError, NotImplementedError, OSError, RuntimeError):
        return None
    return held + int(queued)
