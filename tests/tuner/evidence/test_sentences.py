"""Every sentence the answer prints with a number says the number it describes.

Seen on held-out scripts: "#2, #1 are within 3% of each other" for 8,838 and 8,267
samples/s. Here each kind of sentence (stop, diagnosis, interference, confirmation) is read
back from real searches on the fake runner and its numbers checked against the study's own.
"""

from __future__ import annotations

import re
import statistics

import optuna
import pytest

from autotune import state
from autotune.contract import TrialConfig
from autotune.runner import Target
from autotune.state import baseline_of, usable, windows_of
from autotune.tuner import StudyKey, Tuner, TunerOptions, open_study, summarize
from autotune.tuner.evidence._trials import trial_result
from tests.tuner.fake_runner import FakeRunner

HW = {"id": "test-hw", "cpu_count": 2}
_NUMBER = r"([\d,]+(?:\.\d+)?)"


def _number(text: str) -> float:
    return float(text.replace(",", ""))


def _search(runner: FakeRunner, trials: int = 8) -> optuna.Study:
    storage = optuna.storages.RDBStorage("sqlite:///:memory:")
    study = open_study(storage, "s", StudyKey("train.py", (), HW), seed=1)
    options = TunerOptions(trials=trials, patience=3)
    Tuner(study, Target("train.py"), runner, options, cpu_count=2, cuda=False).run()
    return study


def _loaded(config: TrialConfig) -> tuple[float, float]:
    return (1.0, 0.9 if config.loader.num_workers else 0.05)


RUNNERS = {
    "latency": lambda: FakeRunner(load_s=0.2, compute_s=0.005),
    "model": lambda: FakeRunner(load_s=0.0005, compute_s=0.01),
    "cpu": lambda: FakeRunner(load_s=0.05, compute_s=0.001, cpu_bound=True),
    "loaded": lambda: FakeRunner(load_s=0.2, compute_s=0.005, load=_loaded),
}


@pytest.mark.parametrize("kind", sorted(RUNNERS))
def test_the_numbers_in_every_sentence_are_the_studys_own(kind: str) -> None:
    study = _search(RUNNERS[kind]())
    answer = summarize(study, "mem")
    trials = study.get_trials(deepcopy=False)
    known = state.load(study)
    checked = 0

    # Stop: "the best setting runs at P% of the compute ceiling".
    stop = answer.stop_reason or ""
    if m := re.search(r"runs at (\d+)% of the (compute|transport) ceiling", stop):
        best = max((t for t in trials if usable(t)), key=lambda t: t.value or 0.0)
        ceiling = known.ceiling
        assert ceiling is not None and m.group(2) == "compute"
        ratio = statistics.median(windows_of(best)) / statistics.median(ceiling.windows)
        assert int(m.group(1)) == round(100 * ratio), stop
        checked += 1
    if m := re.search(r"(\d+) trials in a row brought no gain", stop):
        assert int(m.group(1)) <= len(trials), stop
        checked += 1

    # Diagnosis: "P% of each step waits for data as written" (the baseline's), or "... in
    # the fastest run (#N)" (trial N's).
    diagnosis = answer.diagnosis.summary if answer.diagnosis else ""
    whose = r"(\d+)% of each step waits for data (as written|in the fastest run \(#(\d+)\))"
    if m := re.search(whose, diagnosis):
        number = int(m.group(3)) if m.group(3) else baseline_of(trials).number  # type: ignore[union-attr]
        (trial,) = [t for t in trials if t.number == number]
        result = trial_result(trial)
        assert result is not None
        assert int(m.group(1)) == round(100 * (result.data_wait_fraction or 0.0)), diagnosis
        checked += 1
    if m := re.search(r"reach (\d+)% of the compute ceiling \(([\d,]+) samples/s\)", diagnosis):
        ceiling = known.ceiling
        assert ceiling is not None and ceiling.samples_per_s is not None
        assert _number(m.group(2)) == round(ceiling.samples_per_s)
        checked += 1

    # Interference: "another process used C cores during k of n windows of the ...".
    said = answer.interference or {}
    summary = said.get("summary", "")
    if m := re.search(r"used ([\d.]+) cores during (\d+) of (\d+) windows of the (\w+)", summary):
        part = {"recommended": "recommended", "script": "baseline", "compute": "ceiling"}
        first = said[part[m.group(4)]]
        assert (int(m.group(2)), int(m.group(3))) == (first["disturbed"], first["windows"])
        assert float(m.group(1)) <= said["max_cores"] + 0.05, summary
        checked += 1
    if condition := said.get("condition"):
        text = condition["text"]
        if condition["kind"] == "loaded":
            assert f"on {condition['cores']:.1f} of {condition['cpu_count']} cores" in text
        checked += 1

    # Confirmation: each median it names is a median of a run it compared.
    confirmation = known.confirmation
    if confirmation is not None and confirmation.why:
        medians = {
            round(statistics.median(windows_of(t))) for t in trials if usable(t) and windows_of(t)
        }
        for named in re.findall(r"medians? ([\d, and]+) samples/s", confirmation.why):
            for value in re.findall(r"[\d,]+\d|\d", named):
                assert round(_number(value)) in medians, (confirmation.why, medians)
        checked += 1
        if re.search(r"within \d+%", confirmation.why):
            # A closeness claim names the figures it is about, and says what holds.
            assert "median" in confirmation.why and "overlap" in confirmation.why
            assert "of each other" not in confirmation.why
    assert checked >= 2, (stop, diagnosis, summary)
    # The speedup stated is the ratio of the two figures stated beside it.
    base = baseline_of(trials)
    if answer.speedup and answer.recommended and answer.baseline and base is not None:
        rec_rate, base_rate = answer.recommended.samples_per_s, answer.baseline.samples_per_s
        if answer.speedup != 1.0:
            assert rec_rate is not None and base_rate is not None
            assert answer.speedup == pytest.approx(rec_rate / base_rate)
