"""Where trials live: Optuna's tables plus our own, in SQLite or PostgreSQL."""

from autotune.store._storage import (
    DEFAULT_STORAGE,
    STORAGE_ENV,
    StorageError,
    open_storage,
    storage_url,
)

__all__ = ["DEFAULT_STORAGE", "STORAGE_ENV", "StorageError", "open_storage", "storage_url"]
