"""``autotune.recommended()``: what a training script calls to get its DataLoader settings.

Standard library only at import time: this runs inside the user's training process.
"""

from __future__ import annotations

import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from autotune._words import first_line
from autotune.contract import (
    BATCH_SIZE,
    DATALOADER_KEYS,
    NUM_WORKERS,
    PERSISTENT_WORKERS,
    WORKER_ONLY_ARGUMENTS,
    LoaderConfig,
)

URL_ENV = "AUTOTUNE_URL"
DEFAULT_URL = "http://127.0.0.1:8000"


class RecommendationWarning(UserWarning):
    """No recommendation could be fetched; the script's own settings are used."""


def _from_service(url: str, query: dict[str, Any], timeout_s: float) -> dict[str, Any] | None:
    full = f"{url.rstrip('/')}/api/v1/recommendations?{urllib.parse.urlencode(query, doseq=True)}"
    try:
        with urllib.request.urlopen(full, timeout=timeout_s) as resp:
            data: dict[str, Any] = json.loads(resp.read())
            return data
    except urllib.error.HTTPError as exc:
        try:
            detail = json.loads(exc.read()).get("detail", "")
        except (ValueError, AttributeError):
            detail = ""
        if exc.code != 404:
            detail = f"the service at {url} answered {exc.code}: {detail}"
        _warn(detail or f"no recommendation at {url}")
    except (OSError, ValueError) as exc:
        _warn(f"the autotune service at {url} cannot be reached ({exc})")
    return None


def _from_storage(storage: str, query: dict[str, Any]) -> dict[str, Any] | None:
    from autotune.store import NotFoundError, engine_for, lookup

    try:
        with engine_for(storage).connect() as conn:
            return lookup(conn, script=query["script"], host=query["host"], args=query.get("args"))
    except NotFoundError as exc:
        _warn(str(exc))
    except Exception as exc:  # any storage failure means "use the fallback"
        _warn(f"the storage {storage} cannot be read ({first_line(exc)})")
    return None


def _warn(message: str) -> None:
    warnings.warn(
        f"autotune: {message}; using the script's own DataLoader settings",
        RecommendationWarning,
        stacklevel=4,
    )


def loader_kwargs(config: dict[str, Any], fallback: dict[str, Any]) -> dict[str, Any]:
    """``fallback`` with the recommended DataLoader keys on top, valid for DataLoader.

    torch's rules win over the recommendation: a ``batch_sampler`` in ``fallback`` (or
    ``batch_size=None``, batching off) keeps the script's batching, and with no workers the
    worker-only arguments are left out. num_streams and device are not DataLoader arguments;
    `autotune run` applies them.
    """
    merged = LoaderConfig.from_dict(config).merged_over(LoaderConfig.from_dict(fallback))
    merged = merged.under_torch_rules()
    out = {k: v for k, v in fallback.items() if k not in DATALOADER_KEYS}
    for key in DATALOADER_KEYS:
        if getattr(merged, key) is not None:
            out[key] = getattr(merged, key)
    if fallback.get("batch_sampler") is not None or (
        BATCH_SIZE in fallback and fallback[BATCH_SIZE] is None
    ):
        # DataLoader refuses a batch_size beside a batch_sampler, and one given where the
        # script turned batching off would change what its loop receives.
        out.pop(BATCH_SIZE, None)
        if BATCH_SIZE in fallback:
            out[BATCH_SIZE] = fallback[BATCH_SIZE]
    if not out.get(NUM_WORKERS):
        # What torch refuses with no workers is left out, so each takes the default it
        # expects; a persistent_workers the script named stays, at that default (False).
        for key, default in WORKER_ONLY_ARGUMENTS.items():
            if key == PERSISTENT_WORKERS and key in out:
                out[key] = default
            else:
                out.pop(key, None)
    return out


def recommended(
    script: str | os.PathLike[str] | None = None,
    *,
    fallback: dict[str, Any],
    args: Sequence[str] | None = None,
    url: str | None = None,
    storage: str | None = None,
    host: str | None = None,
    timeout_s: float = 2.0,
) -> dict[str, Any]:
    """DataLoader keyword arguments measured for this script on this hardware.

    ``fallback`` is what the script would use on its own; it is returned (with a
    RecommendationWarning) when no study matches or the service is down, so training never
    stops for want of a recommendation. ``script`` defaults to the running script
    (``sys.argv[0]``); ``args`` narrows the match to one argument list (default: any).
    Asks the service at ``url`` ($AUTOTUNE_URL, default http://127.0.0.1:8000), or, when
    ``storage`` is given, reads that database directly. ``host`` is the hardware fingerprint
    id, computed for this machine by default.

        loader = DataLoader(ds, **autotune.recommended(fallback=dict(batch_size=64, num_workers=2)))
    """
    path = str(Path(script if script is not None else sys.argv[0]).resolve())
    if host is None:
        from autotune.hardware import fingerprint

        host = str(fingerprint()["id"])
    query: dict[str, Any] = {"script": path, "host": host}
    if args is not None:
        query["args"] = [str(a) for a in args]
    if storage is not None:
        found = _from_storage(storage, query)
    else:
        found = _from_service(url or os.environ.get(URL_ENV) or DEFAULT_URL, query, timeout_s)
    if found is None:
        return dict(fallback)
    return loader_kwargs(found.get("config") or {}, fallback)
