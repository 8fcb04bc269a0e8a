"""The terminal answer: the epoch on the wall clock, with the script's names as text."""

from __future__ import annotations

import dataclasses
import io
from dataclasses import replace

from rich.console import Console

from autotune.answer import Answer, Epoch, EpochPass
from autotune.cli._render import render_summary


def _rendered(answer: Answer) -> str:
    out = io.StringIO()
    render_summary(Console(file=out, width=200), answer)
    return out.getvalue()


def test_the_epoch_is_stated_as_written_and_recommended() -> None:
    epoch = Epoch(
        as_written_s=12.1,
        recommended_s=3.0,
        outside_share=0.17,
        recommended_outside_share=0.7,
        startup_s=0.7,
        recommended_startup_s=0.0,
        # A dataset name that rich would read as a closing markup tag.
        passes=[EpochPass("DataLoader", "[/Val]", 0, 2.0, 32, "fit.py:30")],
        builds_s=0.01,
        rest_s=0.1,
    )
    text = _rendered(Answer(study="s", epoch=epoch))
    assert "epoch (wall clock): 12.10 s as written, 3.00 s with the recommendation" in text
    assert "outside the training loader: 17% as written, 70% with the recommendation" in text
    assert "start-up per epoch: 0.70 s as written, 0.00 s recommended" in text
    assert "[/Val] (32 batches, 0 workers, at fit.py:30): 2.00 s" in text


def test_the_speedup_is_also_said_for_a_whole_epoch_on_the_wall_clock() -> None:
    """The loader's samples/s and the user's clock part where an epoch holds more than the
    training loader (a held-out script: 1.14x in samples/s, epochs 9.57 s -> 7.44 s)."""
    measured = Epoch(as_written_s=9.57, recommended_s=7.44)
    text = _rendered(Answer(study="s", speedup=1.14, epoch=measured))
    assert "speedup over the script as written: 1.14x in samples/s; 1.29x for a whole epoch" in text
    predicted = dataclasses.replace(measured, recommended_predicted=True)
    text = _rendered(Answer(study="s", speedup=1.14, epoch=predicted))
    assert "1.29x (predicted) for a whole epoch" in text
    unseen = _rendered(Answer(study="s", speedup=1.14, epoch=Epoch(reason="too long")))
    assert "speedup over the script as written: 1.14x\n" in unseen


def test_an_epoch_too_long_for_a_probe_says_so() -> None:
    why = "the probe was too short to see an epoch end: 10000 batches an epoch"
    text = _rendered(Answer(study="s", epoch=Epoch(reason=why)))
    assert f"epoch: {why}" in text


def test_the_other_loaders_settings_are_stated_with_their_names_as_text() -> None:
    from autotune.answer import OtherLoaders
    from autotune.contract import LoaderConfig

    others = OtherLoaders(
        config=LoaderConfig(num_workers=8, persistent_workers=True),
        loaders=["[/Val] at fit.py:30"],
        as_written_s=0.78,
        tuned_s=0.11,
    )
    text = _rendered(Answer(study="s", others=others))
    assert "other loaders ([/Val] at fit.py:30): 8 workers, persistent" in text
    assert "0.78 s an epoch as written, 0.11 s tuned" in text
    kept = OtherLoaders(loaders=["Val"], reason="no worker count made their passes faster")
    assert "other loaders (Val): as written; no worker count made" in _rendered(
        Answer(study="s", others=kept)
    )


def test_a_fastai_answer_has_no_prefetch_row_since_its_loader_takes_none() -> None:
    from autotune.answer import Recommended
    from autotune.contract import LoaderConfig, MeasuredLoader

    config = LoaderConfig(num_workers=16, prefetch_factor=2, persistent_workers=True)
    answer = Answer(study="s", recommended=Recommended(1, config, 1000.0))
    row = "│ prefetch_factor"  # the table's row, not the snippet's argument
    assert row in _rendered(answer)
    fastai = MeasuredLoader(loader="TfmdDL", framework="fastai")
    text = _rendered(dataclasses.replace(answer, measured_loader=fastai))
    assert row not in text and "│ num_workers" in text


def test_a_recommendation_that_starts_slower_says_how_many_epochs_win_it_back() -> None:
    epoch = Epoch(
        as_written_s=4.0,
        recommended_s=2.5,
        first_startup_s=0.1,
        recommended_first_startup_s=6.1,
        payback_epochs=4.0,
    )
    text = _rendered(Answer(study="s", epoch=epoch))
    assert (
        "the run's first start-up: 0.10 s as written, 6.10 s recommended: the recommendation "
        "wins it back after 4.0 epochs; a shorter run is slower with it"
    ) in text
    unsaid = _rendered(Answer(study="s", epoch=replace(epoch, payback_epochs=None)))
    assert "first start-up" not in unsaid


def test_the_choice_is_shown_whole_however_many_reasons_it_joins() -> None:
    # Three reasons made a choice of 660 characters; its last was cut from the terminal.
    knee = "#4 (6 workers) reaches the fastest, #5, re-measured interleaved beside it " * 6
    rebuilt = "persistent_workers=False: the script builds its DataLoader anew every epoch"
    text = _rendered(Answer(study="s", choice=f"{knee}; {rebuilt}"))
    assert rebuilt in text and "more characters" not in text


def test_what_workers_change_in_the_draws_is_said_as_text() -> None:
    said = "loading a batch draws from torch's generator [/a]: with 4 workers ..."
    text = _rendered(Answer(study="s", randomness=said))
    assert f"randomness: {said}" in text
