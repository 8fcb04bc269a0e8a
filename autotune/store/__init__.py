"""Where trials live: Optuna's tables plus our own (autotune_*), in SQLite or PostgreSQL."""

from __future__ import annotations

from typing import TYPE_CHECKING

from autotune.store._storage import (
    DEFAULT_STORAGE,
    STORAGE_ENV,
    StorageError,
    open_storage,
    storage_url,
)

if TYPE_CHECKING:
    import optuna


def sync_study(storage_url: str, study: optuna.Study) -> None:
    """Mirror ``study`` into the autotune_* tables; see :func:`autotune.store._sync.sync_study`."""
    # Imported on first call: the mirror uses the tuner's summary, and the tuner calls this,
    # so a module-level import would be circular.
    from autotune.store._sync import sync_study as _sync_study

    _sync_study(storage_url, study)


__all__ = [
    "DEFAULT_STORAGE",
    "STORAGE_ENV",
    "StorageError",
    "open_storage",
    "storage_url",
    "sync_study",
]
