"""How many samples a batch holds, whatever shape the script's collate gave it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# Tensor-like leaves read per batch, and containers opened to find them: a batch's few first
# leaves say its size, and the per-batch cost stays in microseconds.
_LEAVES = 4
_NODES = 16


def count_samples(batch: Any) -> int:
    """Samples in a batch: the leading dimension most of its first tensor-like leaves share,
    the first leaf's where none is shared (a text collate's flat token tensor beside its
    offsets and labels: ``((tokens[35,000], offsets[64]), labels[64])`` holds 64); a list
    of plain values is a leaf as long as it is; for a library's own batch object, its graph
    count (PyG) or its length."""
    dims: list[int] = []
    stack = [batch]
    seen = 0
    while stack and len(dims) < _LEAVES and seen < _NODES:
        node = stack.pop()
        seen += 1
        shape = getattr(node, "shape", None)
        if shape is not None and len(shape) > 0:
            dims.append(int(shape[0]))
        elif isinstance(node, Mapping) and node:  # dicts, and HF's BatchEncoding
            stack.extend(reversed(list(node.values())))
        elif isinstance(node, (list, tuple)) and node:
            first = node[0]
            if hasattr(first, "shape") or isinstance(first, (list, tuple, Mapping)):
                stack.extend(reversed(node))
            else:
                dims.append(len(node))  # plain values (ids, strings): one a sample
    if not dims:
        return _object_samples(batch)
    return max(dims, key=lambda d: (dims.count(d), -dims.index(d)))


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
