"""A stored answer on this hardware, for a loader of like shape, is the first guess."""

from __future__ import annotations

from pathlib import Path

from autotune import state
from autotune.contract import LoaderConfig, ProbeResult
from autotune.state import Shape, StoredShape
from autotune.tuner.workers import answer_shape, warm_start
from autotune.tuner.workers._warm import shape_now
from tests.store.factory import close_storages, hardware, make_study, storage_for

HW = hardware()["id"]
NOW = (32, 0.135, 0.015)  # batch size, load and step seconds per batch


def _stored(
    study: str,
    *,
    workers: int = 24,
    predicted: int = 12,
    shape: tuple[int, float, float] = NOW,
    script: str = "/home/me/other.py",
    hardware_id: str = HW,
    nproc: int = 1,
    created: float = 1.0,
    bound: int | None = None,
) -> StoredShape:
    batch, load, step = shape
    config = LoaderConfig(num_workers=workers, prefetch_factor=4, persistent_workers=True)
    return StoredShape(
        study,
        script,
        hardware_id,
        nproc,
        created,
        Shape(batch, load, step, predicted, config, bound),
    )


def _warm(stored: list[StoredShape], predicted: int = 12, script: str = "/home/me/train.py"):
    return warm_start(
        stored,
        own="mine",
        script=script,
        hardware_id=HW,
        nproc_per_node=1,
        now=NOW,
        predicted=predicted,
    )


def test_the_stored_count_is_corrected_by_how_the_two_predictions_differ() -> None:
    # The model predicted 12 there and the search found 24: here it predicts 6, so 12.
    warm = _warm([_stored("a")], predicted=6)
    assert warm is not None
    assert (warm.study, warm.workers) == ("a", 12)
    assert warm.config.prefetch_factor == 4 and warm.config.persistent_workers
    assert "study 'a'" in warm.note(6) and "found 24 workers where the model predicted 12" in (
        warm.note(6)
    )


def test_an_answer_held_at_its_own_datas_bound_starts_only_its_own_script() -> None:
    # 4 workers because its dataset had 4 shards, where the model predicted 60: that ratio is
    # the shards', not the model's error, so another script is not seeded with 1 worker.
    sharded = _stored("sharded", workers=4, predicted=60, bound=4)
    assert _warm([sharded], predicted=15) is None
    own = _warm([sharded], predicted=15, script="/home/me/other.py")
    assert own is not None and own.workers == 1
    free = _stored("below its bound", workers=4, predicted=60, bound=8)
    assert _warm([free], predicted=15) is not None


def test_only_this_hardware_these_ranks_and_a_like_shape_start_a_search() -> None:
    unlike = [
        _stored("other hardware", hardware_id="elsewhere"),
        _stored("two ranks", nproc=2),
        _stored("bigger batches", shape=(128, 0.135, 0.015)),
        _stored("slower loading", shape=(32, 0.5, 0.015)),
        _stored("faster step", shape=(32, 0.135, 0.005)),
        _stored("mine"),  # the study itself
        _stored("no workers", workers=0),
    ]
    assert _warm(unlike) is None
    near = _stored("near", shape=(32, 0.2, 0.02))
    warm = _warm([*unlike, near])
    assert warm is not None and warm.study == "near"


def test_the_same_script_comes_first_then_the_nearest_shape_then_the_newest() -> None:
    far = _stored("far", shape=(32, 0.25, 0.025))
    close = _stored("close", shape=(32, 0.14, 0.015))
    same = _stored("same script, farther", shape=(32, 0.25, 0.025), script="/home/me/train.py")
    assert _warm([far, close]).study == "close"  # type: ignore[union-attr]
    assert _warm([far, close, same]).study == "same script, farther"  # type: ignore[union-attr]
    old, new = _stored("old", created=1.0), _stored("new", created=2.0)
    assert _warm([old, new]).study == "new"  # type: ignore[union-attr]


def test_a_finished_study_keeps_its_shape_and_the_others_read_it(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'a.db'}"
    try:
        store = storage_for(url)
        done = make_study(store, "done")
        # The factory's baseline: 0 workers, 0.004 s load and 0.006 s step a batch of 32.
        state.save_seed(done, 4, state.SeedRecord(predicted=3))
        shape = answer_shape(done)
        assert shape is not None
        assert (shape.batch_size, shape.load_s, shape.step_s) == (32, 0.004, 0.006)
        assert shape.predicted == 3 and (shape.config.num_workers or 0) > 0
        state.save_shape(done, shape)
        unfinished = make_study(store, "unfinished", finished=False)
        assert state.load(done).shape == shape
        seen = state.stored_shapes(unfinished)
        assert [(s.study, s.shape, s.hardware_id) for s in seen] == [
            ("done", shape, hardware()["id"])
        ]
        assert state.stored_shapes(done) == []  # never its own
        # A study without a seed's prediction keeps nothing to start another from.
        assert answer_shape(unfinished) is None
    finally:
        close_storages()


def test_the_step_compared_is_the_one_the_model_takes_not_a_step_that_waited() -> None:
    # The same script's baseline read a 15 ms and a 60 ms step on two runs (the machine's
    # load): its compute ceiling's step, the shorter, is what both compare.
    waited = ProbeResult(
        applied_config=LoaderConfig(num_workers=0),
        data_wait_fraction=0.9,
        wait_per_batch_s=0.135,
        compute_per_batch_s=0.06,
        batch_size=32,
    )
    assert shape_now(waited, 12, None) == (32, 0.135, 0.06)
    assert shape_now(waited, 12, 32 / 0.003) == (32, 0.135, 0.003)
    assert shape_now(waited, None, 32 / 0.003) is None  # no prediction: nothing to scale
