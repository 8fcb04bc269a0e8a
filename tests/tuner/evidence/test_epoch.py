"""The epoch in the answer: as written, with the recommendation, and a probe that saw none."""

from __future__ import annotations

from dataclasses import replace

import pytest

from autotune.answer import Answer, OtherLoaders
from autotune.contract import EpochFigures, LoaderConfig, LoaderPass, ProbeResult
from autotune.tuner.evidence._epoch import epoch_answer, with_others, with_payback

VAL = LoaderPass("DataLoader", "Val", 8, 0, 2.0, 32, 0.01, "fit.py:30")
# 12 s as written: 9.5 s of training batches, 0.4 s start-up, a 2 s validation pass.
WRITTEN = EpochFigures(
    epoch_s=12.0, train_s=9.5, startup_s=0.4, passes=[VAL], builds_s=0.02, rest_s=0.08
)


def _result(figures: EpochFigures | None) -> ProbeResult:
    return ProbeResult(windows=[100.0], samples_per_s=100.0, epoch=figures)


def test_the_recommended_epoch_measured_by_its_own_probe() -> None:
    best = EpochFigures(epoch_s=3.0, train_s=0.9, startup_s=0.05, passes=[VAL])
    epoch = epoch_answer(
        _result(WRITTEN), _result(best), base_rate=100.0, best_rate=1000.0, same=False
    )
    assert epoch is not None
    assert epoch.as_written_s == 12.0 and epoch.recommended_s == 3.0
    assert not epoch.recommended_predicted
    assert epoch.outside_share == pytest.approx(2.1 / 12.0)
    assert epoch.recommended_outside_share == pytest.approx(2.05 / 3.0)
    assert epoch.startup_s == 0.4 and epoch.recommended_startup_s == 0.05
    assert epoch.passes[0].dataset == "Val" and epoch.passes[0].seconds == 2.0


def test_without_its_own_epoch_the_training_part_scales_with_the_rate() -> None:
    unseen = EpochFigures(reason="the probe was too short to see an epoch end")
    epoch = epoch_answer(
        _result(WRITTEN), _result(unseen), base_rate=100.0, best_rate=1000.0, same=False
    )
    assert epoch is not None and epoch.recommended_predicted
    # The outside part (2.1 s) stays; the training loader's 9.9 s goes 10x faster.
    assert epoch.recommended_s == pytest.approx(2.1 + 0.99)


def test_a_probe_that_saw_no_epoch_end_says_so() -> None:
    unseen = EpochFigures(reason="the probe was too short to see an epoch end: 10000 batches")
    epoch = epoch_answer(_result(unseen), None, base_rate=1.0, best_rate=None, same=False)
    assert epoch is not None and epoch.as_written_s is None
    assert epoch.reason is not None and "too short to see an epoch end" in epoch.reason


def test_an_unseen_epoch_is_timed_at_the_recommended_rate_too() -> None:
    unseen = EpochFigures(
        reason="the probe was too short to see an epoch end: 313 batches an epoch, about "
        "66.3 s of training batches",
        epoch_batches=313,
    )
    # 25 batches, 5 of them before the loader was chosen: 640 samples in the 20 measured.
    base = ProbeResult(
        windows=[151.0], samples_per_s=151.0, epoch=unseen, batches=25, samples=640, batch_size=32
    )
    epoch = epoch_answer(base, None, base_rate=151.0, best_rate=6680.0, same=False)
    assert epoch is not None and epoch.reason is not None
    # 313 batches of 32 samples at 6,680 samples/s.
    assert epoch.reason.endswith(
        "66.3 s of training batches as written; about 1.5 s with the recommended settings"
    )
    kept = epoch_answer(base, None, base_rate=151.0, best_rate=151.0, same=True)
    assert kept is not None and kept.reason == unseen.reason


def test_older_results_have_no_epoch() -> None:
    assert epoch_answer(_result(None), None, base_rate=1.0, best_rate=2.0, same=False) is None


def test_the_epoch_survives_the_answers_json() -> None:
    epoch = epoch_answer(_result(WRITTEN), None, base_rate=1.0, best_rate=1.0, same=True)
    answer = Answer(study="s", epoch=epoch)
    again = Answer.from_dict(answer.to_dict())
    assert again.epoch == epoch and again.epoch is not None
    assert again.epoch.recommended_s == 12.0  # the script's own settings: the same epoch
    assert Answer.from_dict({"study": "old"}).epoch is None  # stored before epochs


def test_the_start_up_the_recommendation_adds_once_is_said_in_epochs_to_win_it_back() -> None:
    # 56 workers whose first batch comes 6.1 s after they start, against 0.1 s as written;
    # each epoch 1.5 s faster: a run of fewer than 4 epochs is slower with them.
    written = EpochFigures(epoch_s=4.0, train_s=3.9, startup_s=0.1)
    best = EpochFigures(epoch_s=2.5, train_s=2.4, startup_s=0.0)

    def first_batch(figures: EpochFigures, seconds: float) -> ProbeResult:
        return replace(_result(figures), time_to_first_batch_s=seconds)

    base = first_batch(written, 0.1)
    epoch = with_payback(
        epoch_answer(base, first_batch(best, 6.1), base_rate=1.0, best_rate=1.6, same=False)
    )
    assert epoch is not None and epoch.recommended_first_startup_s == 6.1
    assert epoch.payback_epochs == pytest.approx(6.0 / 1.5)
    # Little added at the start, or nothing gained an epoch: nothing to win back.
    slower = EpochFigures(epoch_s=4.5, train_s=4.4, startup_s=0.0)
    won_back = EpochFigures(epoch_s=0.5, train_s=0.4, startup_s=0.0)  # within the first epoch
    for other in (first_batch(best, 0.3), first_batch(slower, 6.1), first_batch(won_back, 2.0)):
        said = epoch_answer(base, other, base_rate=1.0, best_rate=1.0, same=False)
        assert with_payback(said) == said and said is not None and said.payback_epochs is None
    # The script's own settings: nothing added.
    kept = epoch_answer(base, base, base_rate=1.0, best_rate=1.0, same=True)
    assert kept is not None and with_payback(kept) == kept and kept.payback_epochs is None


def test_the_other_loaders_saving_is_taken_off_once() -> None:
    # The stage timed Val at 2.0 s as written and 0.5 s with 4 workers. A pick probed with
    # it as written (its epoch 3.0 s) saves 1.5 s; one the search probed once the stage had
    # run (its pass already at 4 workers, the epoch 1.5 s) saves nothing more.
    others = OtherLoaders(
        config=LoaderConfig(num_workers=4, persistent_workers=True),
        loaders=["Val at fit.py:30"],
        as_written_s=2.0,
        tuned_s=0.5,
    )
    as_written = EpochFigures(epoch_s=3.0, train_s=0.9, startup_s=0.05, passes=[VAL])
    epoch = epoch_answer(
        _result(WRITTEN), _result(as_written), base_rate=100.0, best_rate=1000.0, same=False
    )
    assert epoch is not None
    found = with_others(epoch, others, as_written)
    assert found is not None and found.recommended_s == pytest.approx(1.5)
    assert with_others(epoch, others) == found  # no probe's epoch known: as before
    tuned = EpochFigures(
        epoch_s=1.5, train_s=0.9, startup_s=0.05, passes=[replace(VAL, num_workers=4, seconds=0.5)]
    )
    epoch = epoch_answer(
        _result(WRITTEN), _result(tuned), base_rate=100.0, best_rate=1000.0, same=False
    )
    assert epoch is not None and epoch.recommended_s == 1.5
    assert with_others(epoch, others, tuned) == epoch
