"""Running the same command again does what a user means, and a short script gets a verdict."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import optuna

from autotune import state
from tests.conftest import SCRIPTS
from tests.store.factory import close_storages, storage_for

FAST = ["--warmup", "0.2", "--window", "0.25", "--windows", "3", "--trial-timeout", "60"]


def _probe(
    script: Path | str, url: str, *args: str, trials: int = 2
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "autotune.cli",
            "probe",
            str(script),
            "--json",
            "--storage",
            url,
            "--trials",
            str(trials),
            "--patience",
            "1",
            *FAST,
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=600,
        env=dict(os.environ),
    )


def _studies(url: str) -> dict[str, list[optuna.trial.FrozenTrial]]:
    store = storage_for(url)
    try:
        return {
            s.study_name: optuna.load_study(study_name=s.study_name, storage=store).trials
            for s in optuna.get_all_study_summaries(store)
        }
    finally:
        close_storages()


def _copy(tmp_path: Path, name: str) -> Path:
    for helper in ("tiny.py", name):
        shutil.copy(SCRIPTS / helper, tmp_path / helper)
    return tmp_path / name


def test_a_failed_baseline_is_probed_again_and_kept(tmp_path: Path) -> None:
    url, marker = f"sqlite:///{tmp_path / 'a.db'}", tmp_path / "installed"
    first = _probe(SCRIPTS / "needs_file.py", url, "--", "--needs", str(marker))
    assert first.returncode != 0
    assert "No module named 'accelerate'" in first.stderr
    marker.touch()  # the user installs what was missing
    again = _probe(SCRIPTS / "needs_file.py", url, "--", "--needs", str(marker))
    assert again.returncode == 0, again.stderr
    summary = json.loads(again.stdout)
    assert summary["recommended"] is not None
    (trials,) = _studies(url).values()
    baselines = [t for t in trials if state.role(t) == "baseline"]
    assert [state.record_of(t).status for t in baselines] == ["crashed", "ok"]
    assert summary["baseline"]["trial"] == baselines[-1].number


def _continued(proc: subprocess.CompletedProcess[str], study: str) -> str | None:
    """``proc`` continued ``study``; or, on a machine whose load changed between the two runs
    (a study measured beside another process is not continued on a quiet machine, nor the
    other way round), it said so and measured in a new study, whose name is returned."""
    assert proc.returncode == 0, proc.stderr
    assert "changed since" not in proc.stderr
    name = json.loads(proc.stdout)["study"]
    if name == study:
        return None
    assert "other processes use" in proc.stderr, proc.stderr
    return str(name)


def test_a_changed_script_is_measured_afresh_unless_resumed(tmp_path: Path) -> None:
    # Which study a run measures in is decided before any trial: the script as written is
    # the one trial each run needs.
    url = f"sqlite:///{tmp_path / 'a.db'}"
    script = _copy(tmp_path, "basic.py")
    first = json.loads(_probe(script, url, trials=1).stdout)
    beside = {n for n in [_continued(_probe(script, url, trials=1), first["study"])] if n}
    script.write_text(script.read_text() + "\n# edited: a new transform\n")
    changed = _probe(script, url, trials=1)
    assert changed.returncode == 0, changed.stderr
    assert f"changed since study {first['study']!r}" in changed.stderr
    assert "--resume" in changed.stderr
    fresh = json.loads(changed.stdout)["study"]
    number = 2 + len(beside)  # the next free number beside the first study
    assert fresh == f"{first['study']}-{number}"
    resumed = _probe(script, url, "--resume", trials=1)
    assert json.loads(resumed.stdout)["study"] == first["study"]
    assert "changed since" not in resumed.stderr
    forced = _probe(script, url, "--fresh", trials=1)
    assert json.loads(forced.stdout)["study"] == f"{first['study']}-{number + 1}"
    studies = _studies(url)
    # Nothing deleted.
    assert set(studies) == {first["study"], fresh, f"{first['study']}-{number + 1}", *beside}
    # Resumed: the old study now stands for the edited script, so a plain rerun continues it.
    _continued(_probe(script, url, trials=1), first["study"])


def test_an_edited_script_measured_afresh_starts_from_the_stored_answer(tmp_path: Path) -> None:
    script = _copy(tmp_path, "basic.py")
    for attempt in range(3):
        # Each attempt in a storage of its own: nothing stored to start from.
        url = f"sqlite:///{tmp_path / f'a{attempt}.db'}"
        first = _probe(script, url, trials=3)
        assert first.returncode == 0, first.stderr
        answer = json.loads(first.stdout)
        if not (answer.get("interference") or {}).get("comparison"):
            break
        # The neighbours' load changed between the script as written and the settings (a
        # test beside this one): the answer refuses a speedup it could not show, which is
        # right (tests/cli/test_interference.py); this test is about the stored answer.
        assert answer["recommended"]["config"]["num_workers"] == 0, answer
    assert answer["started_from"] is None
    picked = answer["recommended"]["config"]["num_workers"]
    assert picked, answer  # 8 ms of loading a batch against a 2 ms step: workers win
    study = optuna.load_study(study_name=answer["study"], storage=storage_for(url))
    kept = state.load(study).shape
    assert kept is not None and kept.config.num_workers == picked
    # Where the search found what the model predicted, a start from it changes nothing and is
    # not said; a stored answer 3x the prediction (the model was wrong on this machine) is.
    stored = 3 * kept.predicted
    state.save_shape(study, replace(kept, config=replace(kept.config, num_workers=stored)))
    close_storages()
    script.write_text(script.read_text() + "\n# edited: a new transform\n")
    again = _probe(script, url, trials=2)
    assert again.returncode == 0, again.stderr
    second = json.loads(again.stdout)
    assert second["study"] != answer["study"]
    # The same loader's shape (its load and step are sleeps): the stored answer is the first
    # guess, scaled by the two predictions, and the answer says where it started.
    assert second["started_from"] == answer["study"], again.stderr
    assert f"from study {answer['study']!r}: for a loader of like shape" in again.stderr
    trials = _studies(url)[second["study"]]
    seeded = [t for t in trials if state.role(t) == "seeded"]
    store = storage_for(url)
    now = state.load(optuna.load_study(study_name=second["study"], storage=store)).seed
    close_storages()
    assert now is not None and now.predicted and now.from_study == answer["study"]
    assert state.record_of(seeded[0]).config.num_workers == min(
        round(stored * now.predicted / kept.predicted),
        64,  # an epoch's 64 batches
    )


def test_a_short_script_gets_a_verdict_and_its_own_settings(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'a.db'}"
    done = _probe(SCRIPTS / "ends_early.py", url, "--", "--epochs", "2")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert "ends before a steady rate can be measured" in summary["verdict"]
    assert "not worth tuning" in summary["verdict"]
    assert "pass a larger --epochs" in summary["verdict"]
    assert summary["recommended"]["config"] == summary["baseline"]["config"]
    assert summary["speedup"] == 1.0
    assert summary["stop_reason"] == summary["verdict"]


def test_reading_commands_do_not_create_a_storage(tmp_path: Path) -> None:
    missing = tmp_path / "never.db"
    for args in (["studies"], ["best", "x"], ["worker", "--study", "x"]):
        done = subprocess.run(
            [sys.executable, "-m", "autotune.cli", *args, "--storage", f"sqlite:///{missing}"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode != 0, args
        assert "Traceback" not in done.stderr
        assert str(missing) in done.stderr
        assert not missing.exists(), args
    worker = done.stderr
    assert "local to the machine" in worker and "PostgreSQL" in worker
