"""Every Optuna private autotune relies on (autotune/state/_optuna.py), checked on real studies.

Optuna may move or reshape a private in any release. When one of these tests fails, the
message names the private: adapt autotune/state/_optuna.py to the new Optuna (and only then
widen the pin in pyproject.toml), instead of finding out from a search that stopped midway.
"""

from __future__ import annotations

import importlib
import inspect
import re
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import optuna
import pytest
import tomllib
from optuna.trial import TrialState
from packaging.requirements import Requirement

from autotune import state
from autotune.state import _optuna
from autotune.state._optuna import OptunaMismatch, storage_of

ROOT = Path(__file__).resolve().parents[2]


def _changed(what: str) -> str:
    return (
        f"optuna {optuna.__version__} changed {what}, which autotune relies on: adapt "
        "autotune/state/_optuna.py to it before allowing this Optuna in pyproject.toml"
    )


@pytest.fixture(params=["sqlite", "memory"])
def storage(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[optuna.storages.BaseStorage]:
    """Optuna's storage as autotune opens it (RDB, heartbeats on), and the in-memory default."""
    if request.param == "memory":
        yield optuna.storages.InMemoryStorage()
        return
    rdb = optuna.storages.RDBStorage(f"sqlite:///{tmp_path / 'o.db'}", heartbeat_interval=1)
    yield rdb
    rdb.remove_session()
    rdb.engine.dispose()


def _ask(study: optuna.Study) -> optuna.Trial:
    # The tuner asks with heartbeats on and beats itself, so it silences this too (_tuner.py).
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Heartbeat of storage is supposed")
        return study.ask()


def test_the_pin_is_the_release_the_adapter_was_checked_against() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    pins = [Requirement(d) for d in project["dependencies"] if re.match(r"optuna\b", d)]
    assert [str(p.specifier) for p in pins] == [
        str(Requirement(f"optuna{_optuna.SUPPORTED}").specifier)
    ], "pyproject.toml pins optuna differently from autotune/state/_optuna.py's SUPPORTED"
    assert pins[0].specifier.contains(optuna.__version__), (
        f"optuna {optuna.__version__} is installed, outside optuna{_optuna.SUPPORTED}: run "
        "this file against it, adapt autotune/state/_optuna.py, then move the pin"
    )


def test_the_heartbeat_thread_is_where_and_what_it_was() -> None:
    try:
        module = importlib.import_module(_optuna.HEARTBEAT_MODULE)
    except ImportError:
        pytest.fail(_changed(f"the module {_optuna.HEARTBEAT_MODULE} (it is gone)"))
    getter = getattr(module, "get_heartbeat_thread", None)
    assert callable(getter), _changed(f"{_optuna.HEARTBEAT_MODULE}.get_heartbeat_thread")
    params = list(inspect.signature(getter).parameters)
    assert params == ["trial_id", "storage"], _changed(
        f"get_heartbeat_thread's parameters (now {params})"
    )


def test_ids_and_storage_are_the_ones_optuna_keys_its_rows_by(
    storage: optuna.storages.BaseStorage,
) -> None:
    study = optuna.create_study(storage=storage, study_name="ids", direction="maximize")
    study_id = state.optuna_study_id(study)
    assert study_id == storage.get_study_id_from_name("ids"), _changed("Study._study_id")
    # Optuna may wrap the storage it was given (a cache over RDB): the same rows, though.
    assert storage_of(study).get_study_id_from_name("ids") == study_id, _changed("Study._storage")
    asked = _ask(study)
    frozen = study.get_trials(deepcopy=False)[0]
    expected = storage.get_trial_id_from_study_id_trial_number(study_id, asked.number)
    assert state.optuna_trial_id(asked) == expected, _changed("Trial._trial_id")
    assert state.optuna_trial_id(frozen) == expected, _changed("FrozenTrial._trial_id")


def test_a_queued_trials_params_are_readable_before_it_is_asked(
    storage: optuna.storages.BaseStorage,
) -> None:
    study = optuna.create_study(storage=storage, direction="maximize")
    study.enqueue_trial({"num_workers": 4})
    waiting = study.get_trials(deepcopy=False, states=(TrialState.WAITING,))
    assert len(waiting) == 1
    # The public params stay empty until the trial is asked: only the queue's key tells.
    assert waiting[0].params == {}
    assert state.queued_params(waiting[0]) == {"num_workers": 4}, _changed(
        f"where Study.enqueue_trial keeps a queued trial's params ({_optuna.FIXED_PARAMS!r} "
        f"among its system attributes; it holds {waiting[0].system_attrs})"
    )
    trial = _ask(study)
    assert trial.suggest_int("num_workers", 0, 8) == 4  # and Optuna itself still honours it
    study.tell(trial, 1.0)
    unqueued = _ask(study)
    unqueued.suggest_int("num_workers", 0, 8)
    assert state.queued_params(study.get_trials(deepcopy=False)[-1]) is None


def test_the_heartbeat_thread_beats_for_the_trial_while_the_block_runs(
    storage: optuna.storages.BaseStorage, monkeypatch: pytest.MonkeyPatch
) -> None:
    study = optuna.create_study(storage=storage, direction="maximize")
    trial = _ask(study)
    beats: list[int] = []
    if isinstance(storage, optuna.storages.RDBStorage):
        record = storage.record_heartbeat

        def spy(trial_id: int) -> None:
            beats.append(trial_id)
            record(trial_id)  # the real write, into the real table

        monkeypatch.setattr(storage, "record_heartbeat", spy)
    with state.heartbeat_thread(study, trial):
        pass
    # The thread beats once as it starts and is joined on leaving the block.
    if isinstance(storage, optuna.storages.RDBStorage):
        assert beats == [state.optuna_trial_id(trial)], _changed("the heartbeat thread")
    else:
        assert beats == []  # no heartbeats in memory: the block runs, and nothing beats


def test_a_missing_private_is_named_with_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(OptunaMismatch, match=r"has no object\._trial_id.*pip install 'optuna>=5"):
        state.optuna_trial_id(object())  # type: ignore[arg-type]
    study = optuna.create_study()
    trial = _ask(study)
    monkeypatch.setitem(sys.modules, _optuna.HEARTBEAT_MODULE, None)  # as if it moved
    with (
        pytest.raises(OptunaMismatch, match=r"has no optuna\.storages\._heartbeat\.get_heartbeat"),
        state.heartbeat_thread(study, trial),
    ):
        pass
