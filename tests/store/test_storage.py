"""Opening the Optuna storage: a driver's error becomes one StorageError line, even a silent one."""

from __future__ import annotations

from pathlib import Path

import optuna
import pytest

from autotune.store import StorageError, open_storage


@pytest.mark.parametrize("message", ["", "\n"])
def test_an_error_with_no_message_is_named_by_its_type(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, message: str
) -> None:
    def broken(*args: object, **kwargs: object) -> object:
        raise RuntimeError(message)

    monkeypatch.setattr(optuna.storages, "RDBStorage", broken)
    with pytest.raises(StorageError, match=r"^cannot open storage sqlite:///.*: RuntimeError$"):
        open_storage(f"sqlite:///{tmp_path / 'a.db'}")
