"""The answer says why its recommendation is not the trial the search ranked first."""

from __future__ import annotations

from pathlib import Path

from autotune import state
from autotune.state import Confirmation, Contender, usable
from autotune.tuner import summarize
from tests.store.factory import close_storages, make_study


def test_a_pick_that_re_measures_put_ahead_of_the_searchs_best_says_so(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'a.db'}"
    try:
        study = make_study(url, "s", trials=6, failures=0)
        measured = sorted(
            (t for t in study.trials if usable(t) and t.value is not None and t.number),
            key=lambda t: t.value or 0.0,
        )
        ranked, other = measured[-1], measured[-2]
        assert summarize(study, url).choice is None or "re-measured" not in str(
            summarize(study, url).choice
        )
        state.save_confirmation(
            study,
            Confirmation(
                winner=other.number,
                median=910.0,
                candidates=[
                    Contender(trial=other.number, median=910.0),
                    Contender(trial=ranked.number, median=870.0),
                ],
            ),
        )
        answer = summarize(study, url)
        assert answer.recommended is not None and answer.recommended.trial == other.number
        assert str(answer.choice).startswith(
            f"#{other.number} and #{ranked.number} re-measured afresh, interleaved: "
            f"#{other.number} ran 910 samples/s, #{ranked.number} 870; the search's own probes "
            f"had ranked #{ranked.number} first"
        )
    finally:
        close_storages()


def test_a_rate_from_one_window_states_no_interval(tmp_path: Path) -> None:
    # A script that ended after one window of the pick: [2,577-2,577] read as certainty.
    url = f"sqlite:///{tmp_path / 'a.db'}"
    try:
        study = make_study(url, "s", trials=3, failures=0)
        best = max((t for t in study.trials if t.number), key=lambda t: t.value or 0.0)
        for interval, stated in (([900.0, 900.0], None), ([880.0, 930.0], [880.0, 930.0])):
            state.save_confirmation(
                study,
                Confirmation(winner=best.number, median=900.0, ci95=interval),
            )
            answer = summarize(study, url)
            assert answer.recommended is not None and answer.recommended.ci95 == stated
    finally:
        close_storages()
