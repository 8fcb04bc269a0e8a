"""A batch as the script's collate gave it, whatever its shape: how many samples it holds, and
the same batch with each of its tensors mapped (copied to the GPU, made to own its bytes)."""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, MutableMapping
from typing import Any

import torch

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


def map_tensors(fn: Callable[[torch.Tensor], torch.Tensor], batch: Any) -> Any:
    """``batch`` with ``fn`` applied to every tensor, keeping its structure and types.

    Tuples (named ones too), lists and mappings are walked; anything else (ints, strings,
    ``None``) is passed through unchanged, as ``default_collate`` and ``pin_memory`` do.
    """
    if isinstance(batch, torch.Tensor):
        return fn(batch)
    if isinstance(batch, (str, bytes)):
        return batch
    if isinstance(batch, MutableMapping):
        # copy.copy keeps the mapping's own type (OrderedDict, defaultdict, BatchEncoding-like).
        clone = copy.copy(batch)
        clone.update({k: map_tensors(fn, v) for k, v in batch.items()})
        return clone
    if isinstance(batch, Mapping):
        return {k: map_tensors(fn, v) for k, v in batch.items()}
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):  # a namedtuple
        return type(batch)(*(map_tensors(fn, v) for v in batch))
    if isinstance(batch, tuple):
        return tuple(map_tensors(fn, v) for v in batch)
    if isinstance(batch, list):
        return [map_tensors(fn, v) for v in batch]
    return batch
