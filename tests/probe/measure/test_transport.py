"""The transport ceiling's stand-in loader moves what the real loader moves."""

from __future__ import annotations

from typing import Any

import torch
from torch.utils.data import DataLoader, Dataset

from autotune.contract import ProbeSettings
from autotune.probe.measure import measure_transport
from autotune.probe.measure._transport import CachedBatches, CachedSamples, _cache, _loader


class SlicedPool(Dataset[Any]):
    """Images already in memory; a batch of consecutive samples is one view of the pool."""

    def __init__(self) -> None:
        self.images = torch.randint(0, 256, (256, 3, 16, 16), dtype=torch.uint8)
        self.labels = torch.arange(256)

    def __len__(self) -> int:
        return 1024

    def __getitem__(self, i: int) -> tuple[torch.Tensor, torch.Tensor]:
        return self.images[i % 256], self.labels[i % 256]

    def __getitems__(self, indices: list[int]) -> tuple[torch.Tensor, torch.Tensor]:
        start = indices[0] % 256
        return self.images[start : start + len(indices)], self.labels[start : start + len(indices)]


def as_batch(batch: Any) -> Any:
    return batch


def owns_its_bytes(t: torch.Tensor) -> bool:
    return t.untyped_storage().nbytes() == t.element_size() * t.numel()


def test_a_dataset_fetching_whole_batches_is_stood_in_for_by_whole_batches() -> None:
    real = DataLoader(SlicedPool(), batch_size=16, collate_fn=as_batch)
    it = iter(real)
    cached, reason = _cache(it, 16)
    assert reason == "" and isinstance(cached, CachedBatches)
    images, labels = next(iter(_loader(it, cached, 0)))
    want_images, want_labels = next(iter(real))
    # One (images, labels) pair per batch, as the script's collate_fn gets it: never a list
    # of 16 samples that the real loader never builds.
    assert torch.equal(images, want_images) and torch.equal(labels, want_labels)
    # Each cached batch owns its bytes: through a worker it moves 16 images, not the pool.
    assert owns_its_bytes(images) and owns_its_bytes(labels)
    assert not owns_its_bytes(want_images)


def test_samples_that_view_a_larger_storage_are_cached_as_their_own() -> None:
    pool = SlicedPool()

    class PerSample(Dataset[Any]):
        def __len__(self) -> int:
            return 1024

        def __getitem__(self, i: int) -> tuple[torch.Tensor, torch.Tensor]:
            return pool[i]

    it = iter(DataLoader(PerSample(), batch_size=8))
    cached, reason = _cache(it, 8)
    assert reason == "" and isinstance(cached, CachedSamples)
    image, _ = cached.samples[0]
    assert torch.equal(image, pool.images[0]) and owns_its_bytes(image)


def test_transport_through_workers_is_measured_for_a_batch_fetching_dataset() -> None:
    it = iter(DataLoader(SlicedPool(), batch_size=16, collate_fn=as_batch))
    settings = ProbeSettings(warmup_s=0.4, window_s=0.4, windows=3, transport_workers=2)
    result = measure_transport(it, settings)
    assert result.reason == ""
    assert set(result.by_workers) == {0, 2} or set(result.by_workers) == {0, 1}
    assert all(rate > 0 for rate in result.by_workers.values())
