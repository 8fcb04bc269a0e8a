"""The patch rules, in-process with real DataLoaders (no workers started)."""

from __future__ import annotations

import pytest
import torch
from torch.utils.data import BatchSampler, DataLoader, SequentialSampler, TensorDataset

from autotune.contract import LoaderConfig, MeasuredLoader
from autotune.probe import apply_config, script_config
from autotune.probe.loader._audition import CHOOSE_AFTER
from autotune.probe.loader._classes import ORIG_INIT, ORIG_ITER
from autotune.probe.loader._patch import LoaderPatch

DATA = TensorDataset(torch.arange(64.0))


def _args(**kw: object) -> dict[str, object]:
    base: dict[str, object] = {
        "dataset": DATA,
        "batch_size": 8,
        "batch_sampler": None,
        "num_workers": 0,
        "prefetch_factor": None,
        "persistent_workers": False,
        "pin_memory": False,
        "multiprocessing_context": None,
        "timeout": 0,
    }
    base.update(kw)
    return base


def test_script_config_makes_torch_defaults_explicit() -> None:
    cfg = script_config(_args(num_workers=4))
    assert cfg == LoaderConfig(
        num_workers=4,
        prefetch_factor=2,
        pin_memory=False,
        persistent_workers=False,
        batch_size=8,
        num_streams=0,
    )
    assert script_config(_args()).prefetch_factor is None


def test_no_batch_size_with_a_batch_sampler() -> None:
    sampler = BatchSampler(SequentialSampler(DATA), 8, drop_last=False)
    new = apply_config(_args(batch_size=1, batch_sampler=sampler), LoaderConfig(batch_size=32))
    assert new["batch_size"] == 1
    assert script_config(new).batch_size is None


def test_batch_size_applies_without_a_batch_sampler() -> None:
    assert apply_config(_args(), LoaderConfig(batch_size=32))["batch_size"] == 32


def test_zero_workers_drops_worker_only_options() -> None:
    new = apply_config(
        _args(
            num_workers=4,
            prefetch_factor=4,
            persistent_workers=True,
            multiprocessing_context="spawn",
            timeout=5,
        ),
        LoaderConfig(num_workers=0, prefetch_factor=8, persistent_workers=True),
    )
    assert new["num_workers"] == 0
    assert new["prefetch_factor"] is None
    assert new["persistent_workers"] is False
    assert new["multiprocessing_context"] is None
    DataLoader(**new)  # torch accepts it


def test_worker_options_apply_with_workers() -> None:
    new = apply_config(
        _args(),
        LoaderConfig(num_workers=3, prefetch_factor=6, persistent_workers=True, pin_memory=True),
    )
    assert (
        new["num_workers"],
        new["prefetch_factor"],
        new["persistent_workers"],
        new["pin_memory"],
    ) == (3, 6, True, True)


def test_none_keeps_the_scripts_value() -> None:
    assert apply_config(_args(num_workers=5), LoaderConfig()) == _args(num_workers=5)


class Sub(DataLoader):  # type: ignore[type-arg]
    def __init__(self, dataset: TensorDataset, **kwargs: object) -> None:
        self.tag = "sub"
        super().__init__(dataset, batch_size=4, **kwargs)  # type: ignore[arg-type]


def test_first_iterated_loader_is_reconfigured_others_keep_their_own() -> None:
    seen = []

    def wrap(it, t0, delivered):  # type: ignore[no-untyped-def]
        seen.append(t0)
        return it

    patch = LoaderPatch(LoaderConfig(num_workers=0, batch_size=16), wrap)
    patch.install()
    try:
        other = DataLoader(DATA, batch_size=2)
        measured = Sub(DATA)
        assert len(list(measured)) == 4  # 64 samples / 16: an epoch, so it is chosen
        assert len(seen) == 0  # ... after its first epoch, which was warm-up
        assert len(list(other)) == 32  # untouched: still 2 per batch
        assert len(list(measured)) == 4
        assert measured.tag == "sub" and measured.batch_size == 16
        assert patch.script_config is not None and patch.script_config.batch_size == 4
        assert patch.applied_config is not None and patch.applied_config.batch_size == 16
        assert patch.measured_loader == MeasuredLoader(
            loader="Sub",
            dataset="TensorDataset",
            batch_size=4,
            # Built and iterated by no library's code, whatever this process imported (the
            # framework tests import Lightning): the script's own DataLoader(...) call.
            framework=None,
            built_by=None,
            iterable=False,  # map-style: its epoch is its length
        )
        assert len(seen) == 1
    finally:
        patch.uninstall()
    assert DataLoader.__init__ is ORIG_INIT
    assert DataLoader.__iter__ is ORIG_ITER


def test_uninstall_restores_even_when_the_script_raises() -> None:
    patch = LoaderPatch(LoaderConfig(), lambda it, t0, delivered: it)
    patch.install()
    with pytest.raises(RuntimeError):
        try:
            raise RuntimeError("script failed")
        finally:
            patch.uninstall()
    assert DataLoader.__iter__ is ORIG_ITER


BIG = TensorDataset(torch.arange(640.0))


class Recorder:
    def __init__(self) -> None:
        self.wrapped = 0
        self.delivered: list[tuple[float, float, int]] = []

    def __call__(self, it, t0, delivered):  # type: ignore[no-untyped-def]
        self.wrapped += 1
        self.delivered = list(delivered)
        return it


def test_a_short_first_iteration_is_not_the_training_loader() -> None:
    # Lightning's order: a 2-batch sanity check of the val loader, then training.
    rec = Recorder()
    patch = LoaderPatch(LoaderConfig(num_workers=0, batch_size=16), rec)
    patch.install()
    try:
        val = DataLoader(TensorDataset(torch.arange(64.0)), batch_size=4)
        train = DataLoader(BIG, batch_size=8, shuffle=True)
        it = iter(val)
        assert [len(next(it)[0]) for _ in range(3)] == [16, 16, 16]  # a candidate, for now
        assert len(list(train)) == 40  # 640 / 16: chosen after CHOOSE_AFTER batches
        assert rec.wrapped == 1
        # The meter is handed the chosen iteration's own batches (its warm-up), in order;
        # not the val loader's.
        assert len(rec.delivered) == CHOOSE_AFTER + 1
        assert all(n == 16 and t0 <= t1 for t0, t1, n in rec.delivered)
        assert [t1 for _, t1, _ in rec.delivered] == sorted(t1 for _, t1, _ in rec.delivered)
        assert val.batch_size == 4 and len(list(val)) == 16  # the script's own again
        assert train.batch_size == 16
        assert patch.script_config is not None and patch.script_config.batch_size == 8
        assert patch.measured_loader is not None
        assert patch.measured_loader.batch_size == 8
    finally:
        patch.uninstall()


def test_a_peek_at_one_batch_then_the_loop() -> None:
    rec = Recorder()
    patch = LoaderPatch(LoaderConfig(batch_size=16), rec)
    patch.install()
    try:
        train = DataLoader(BIG, batch_size=8)
        assert len(next(iter(train))[0]) == 16
        assert len(list(train)) == 40
        assert rec.wrapped == 1 and train.batch_size == 16
    finally:
        patch.uninstall()


def test_a_loader_recreated_over_the_same_dataset_is_measured() -> None:
    rec = Recorder()
    patch = LoaderPatch(LoaderConfig(batch_size=16), rec)
    patch.install()
    try:
        for _ in range(2):  # built elsewhere (a framework adding a sampler) each epoch
            loader = DataLoader(BIG, batch_size=8, sampler=SequentialSampler(BIG))
            assert len(list(loader)) == 40
        same_data_other_size = DataLoader(BIG, batch_size=32)
        assert len(list(same_data_other_size)) == 20
        assert rec.wrapped == 2  # chosen in the first epoch, measured from there on
    finally:
        patch.uninstall()


def test_evaluation_after_the_choice_keeps_its_settings() -> None:
    rec = Recorder()
    patch = LoaderPatch(LoaderConfig(batch_size=16), rec)
    patch.install()
    try:
        train = DataLoader(BIG, batch_size=8)
        val = DataLoader(TensorDataset(torch.arange(640.0)), batch_size=8)
        for _ in range(2):
            assert len(list(train)) == 40
            assert len(list(val)) == 80
        assert rec.wrapped == 2 and val.batch_size == 8
    finally:
        patch.uninstall()
