"""What a streamed dataset can feed: the shard counts the libraries state, read from their real
objects, and the idle workers a real probe sees where no library says."""

from __future__ import annotations

from pathlib import Path

import pytest

from autotune.contract import LoaderConfig
from autotune.probe.loader import IdleReading, idle_between, shards_of
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


def test_workers_that_finished_their_share_of_an_epoch_first_are_not_idle() -> None:
    # Round-robin shares differ by one batch: at an epoch's tail the workers with fewer have
    # ended, and fewer batches than workers are left to come. Idle means the same workers out
    # while more batches than workers came, in one iteration.
    start = IdleReading(iterator=1, idle=frozenset({4, 5}), received=40, workers=6)
    assert idle_between(start, IdleReading(1, frozenset({4, 5}), 400, 6)) == 2
    assert idle_between(start, IdleReading(1, frozenset({4, 5}), 44, 6)) is None  # a tail
    assert idle_between(start, IdleReading(1, frozenset({3, 4, 5}), 400, 6)) is None
    assert idle_between(start, IdleReading(2, frozenset({4, 5}), 400, 6)) is None  # next epoch
    assert idle_between(None, IdleReading(1, frozenset(), 400, 6)) is None
    busy = IdleReading(1, frozenset(), 40, 6)
    assert idle_between(busy, IdleReading(1, frozenset(), 400, 6)) == 0
