"""Where trials live: Optuna's tables plus our own (autotune_*), in SQLite or PostgreSQL.

Optuna's storage is the tuner's; our tables mirror it for the API (``sync_study``) and are
read through the query functions here, which the API's routes call.
"""

from autotune.store._engine import engine_for
from autotune.store._migrate import current_revision, head_revision, newer_schema, upgrade
from autotune.store._queries import (
    NotFoundError,
    best,
    delete_study,
    get_study,
    get_trial,
    health,
    list_studies,
    list_trials,
    lookup,
    set_note,
)
from autotune.store._storage import delete_optuna_study, open_storage
from autotune.store._sync import sync_all, sync_study, sync_study_strict
from autotune.store._url import (
    DEFAULT_STORAGE,
    STORAGE_ENV,
    StorageError,
    parse_url,
    safe_url,
    storage_url,
)

__all__ = [
    "DEFAULT_STORAGE",
    "STORAGE_ENV",
    "NotFoundError",
    "StorageError",
    "best",
    "current_revision",
    "delete_optuna_study",
    "delete_study",
    "engine_for",
    "get_study",
    "get_trial",
    "head_revision",
    "health",
    "list_studies",
    "list_trials",
    "lookup",
    "newer_schema",
    "open_storage",
    "parse_url",
    "safe_url",
    "set_note",
    "storage_url",
    "sync_all",
    "sync_study",
    "sync_study_strict",
    "upgrade",
]
