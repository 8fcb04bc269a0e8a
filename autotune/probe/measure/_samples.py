"""How many samples a batch holds, whatever shape the script's collate gave it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def count_samples(batch: Any) -> int:
    """Samples in a batch: the leading dimension of its first tensor-like leaf; for a
    library's own batch object, its graph count (PyG) or its length."""
    while True:
        shape = getattr(batch, "shape", None)
        if shape is not None and len(shape) > 0:
            return int(shape[0])
        if isinstance(batch, Mapping) and batch:  # dicts, and HF's BatchEncoding
            batch = next(iter(batch.values()))
        elif isinstance(batch, (list, tuple)) and batch:
            if not hasattr(batch[0], "shape") and not isinstance(batch[0], (list, tuple, dict)):
                return len(batch)
            batch = batch[0]
        else:
            return _object_samples(batch)


def _object_samples(batch: Any) -> int:
    graphs = getattr(batch, "num_graphs", None)
    if isinstance(graphs, int):
        return max(1, graphs)
    if isinstance(batch, (str, bytes)) or not hasattr(batch, "__len__"):
        return 1
    try:
        return max(1, len(batch))
    except TypeError:
        return 1
