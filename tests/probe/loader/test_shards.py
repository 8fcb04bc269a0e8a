"""What a streamed dataset can feed: the shard counts the libraries state, read from their real
objects, and the idle workers a real probe sees where no library says."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

import pytest
from torch.utils.data import DataLoader, IterableDataset, get_worker_info

from autotune.contract import LoaderConfig
from autotune.probe.loader import IdleWatch, shards_of
from tests.conftest import probe


def test_a_hugging_face_iterable_dataset_says_its_shards(tmp_path: Path) -> None:
    datasets = pytest.importorskip("datasets", reason="datasets is in the dev extra")
    table = datasets.Dataset.from_dict({"text": [f"t{i}" for i in range(64)]})
    stream = table.to_iterable_dataset(num_shards=4).map(lambda x: x)
    assert shards_of(stream) == (4, "datasets")
    assert shards_of(stream.with_format("torch")) == (4, "datasets")


def _tars(folder: Path, shards: int) -> list[str]:
    wds = pytest.importorskip("webdataset", reason="webdataset is in the dev extra")
    urls = []
    for s in range(shards):
        url = str(folder / f"train-{s}.tar")
        with wds.TarWriter(url) as sink:
            sink.write({"__key__": f"{s}_0", "cls": s})
        urls.append(url)
    return urls


def test_a_webdataset_pipeline_says_its_shard_list(tmp_path: Path) -> None:
    wds = pytest.importorskip("webdataset", reason="webdataset is in the dev extra")
    urls = _tars(tmp_path, 8)
    dataset = wds.WebDataset(urls, shardshuffle=False).decode().to_tuple("cls").batched(4)
    assert shards_of(dataset) == (8, "webdataset")
    # Resampled: every worker draws shards at random, so none is ever idle.
    resampled = wds.WebDataset(urls, resampled=True, shardshuffle=False).decode()
    assert shards_of(resampled) is None
    # Split by node only, not by worker: every worker reads every shard.
    whole = wds.WebDataset(urls, shardshuffle=False, workersplitter=None)
    assert shards_of(whole) is None


def test_other_datasets_say_nothing() -> None:
    from tests.scripts.tiny import Tiny

    assert shards_of(Tiny()) is None
    assert shards_of(object()) is None


def test_a_probe_sees_workers_a_sharded_stream_leaves_idle() -> None:
    # Three shards split among six workers by whole shards: three workers end at once.
    result = probe("sharded.py", "--latency", "0.002", loader=LoaderConfig(num_workers=6))
    assert result.ok, result.reason
    assert result.idle_workers == 3
    assert result.measured_loader is not None and result.measured_loader.shards is None


def test_a_stream_every_worker_feeds_has_no_idle_worker() -> None:
    result = probe("sharded.py", "--shards", "6", loader=LoaderConfig(num_workers=3))
    assert result.ok, result.reason
    assert result.idle_workers == 0


class _Split(IterableDataset):  # type: ignore[type-arg]
    """Items split among workers: by whole shards (``shards``), or one item each in turn."""

    def __init__(self, items: int, shards: int | None) -> None:
        self.items, self.shards = items, shards

    def __iter__(self):  # type: ignore[no-untyped-def]
        info = get_worker_info()
        n, me = (1, 0) if info is None else (info.num_workers, info.id)
        if self.shards is None:
            yield from range(me, self.items, n)  # round robin: every worker gets a share
            return
        per = self.items // self.shards
        for shard in range(me, self.shards, n):
            yield from range(shard * per, (shard + 1) * per)


def _idle(dataset: IterableDataset, workers: int, epochs: int = 1) -> int | None:  # type: ignore[type-arg]
    watch = IdleWatch()
    loader = DataLoader(dataset, batch_size=2, num_workers=workers, persistent_workers=True)
    try:
        for _ in range(epochs):
            it = iter(loader)
            watch.watch(it)
            for _batch in it:
                pass
        return watch.idle()
    finally:  # persistent workers end with their iterator: now, not at a later collection
        if loader._iterator is not None:
            loader._iterator._shutdown_workers()  # type: ignore[attr-defined]


def test_workers_a_shard_split_gives_nothing_are_counted_over_real_workers() -> None:
    # Two workers (this suite's machines have two cores; torch warns past them), one shard.
    assert _idle(_Split(120, shards=1), workers=2) == 1
    assert _idle(_Split(120, shards=1), workers=2, epochs=2) == 1  # persistent: one iterator


def test_workers_that_finish_their_share_of_an_epoch_first_are_not_idle() -> None:
    # Round robin, as fastai's workers split batches: the shares differ by one, and the
    # workers with fewer end first, having delivered.
    assert _idle(_Split(41, shards=None), workers=2) == 0


def test_a_worker_that_ended_with_nothing_is_idle_however_few_the_batches() -> None:
    # 3 batches an epoch, fewer than two rounds of 2 workers: the second ended empty.
    assert _idle(_Split(6, shards=1), workers=2) == 1


def test_too_few_batches_to_tell_say_nothing() -> None:
    # Round robin, the epoch not over: no worker has ended, and one batch tells nothing.
    loader = DataLoader(_Split(600, shards=None), batch_size=2, num_workers=2)
    it = iter(loader)
    watch = IdleWatch()
    watch.watch(it)
    next(it)
    try:
        assert watch.idle() is None
    finally:
        it._shutdown_workers()  # type: ignore[attr-defined]


def test_a_watched_iterator_is_freed_with_its_last_reference() -> None:
    # Its workers end when it is freed: a cycle through the counting closure would keep them
    # until a garbage collection (fastai makes a new iterator every epoch).
    loader = DataLoader(_Split(120, shards=1), batch_size=2, num_workers=2)
    it = iter(loader)
    IdleWatch().watch(it)
    next(it)
    freed = weakref.ref(it)
    gc.disable()
    try:
        del it
        assert freed() is None
    finally:
        gc.enable()
