"""Mirror an Optuna study into our tables: idempotent, incremental, cheap after every trial."""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import optuna
import sqlalchemy
from optuna.trial import FrozenTrial, TrialState
from sqlalchemy import Connection, delete, insert, select, update

from autotune import state
from autotune._words import first_line
from autotune.answer import Answer
from autotune.contract import FAILED_STATUSES
from autotune.hardware import HOST_FIELDS
from autotune.store._engine import engine_for
from autotune.store._migrate import ensure_schema
from autotune.store._storage import open_storage
from autotune.store._tables import (
    RESULT_COLUMNS,
    hosts,
    recommendations,
    scripts,
    studies,
    trials,
    windows,
)
from autotune.store._url import StorageError, safe_url, storage_url

log = logging.getLogger("autotune.store")


def _digest(data: Any) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()


def _timestamp(value: Any) -> float | None:
    return value.timestamp() if value is not None else None


def _host_id(conn: Connection, hardware: dict[str, Any] | None) -> int | None:
    if not hardware or not hardware.get("id"):
        return None
    fp = str(hardware["id"])
    found = conn.execute(select(hosts.c.id).where(hosts.c.fingerprint == fp)).scalar()
    if found is not None:
        return int(found)
    row = {k: hardware.get(k) for k in HOST_FIELDS}
    row["gpu_count"] = int(row["gpu_count"] or 0)
    return int(
        conn.execute(
            insert(hosts)
            .values(fingerprint=fp, raw=hardware, first_seen=time.time(), **row)
            .returning(hosts.c.id)
        ).scalar_one()
    )


def _content_hash(path: str) -> str | None:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None  # the API host may not see the training machine's files


def _script_id(conn: Connection, path: str | None, args: list[str] | None) -> int | None:
    if not path:
        return None
    args = [str(a) for a in (args or [])]
    key = json.dumps(args)
    digest = _content_hash(path)
    found = conn.execute(
        select(scripts.c.id, scripts.c.content_hash).where(
            scripts.c.path == path, scripts.c.args_key == key
        )
    ).first()
    if found is not None:
        if digest is not None and digest != found.content_hash:
            conn.execute(
                update(scripts).where(scripts.c.id == found.id).values(content_hash=digest)
            )
        return int(found.id)
    return int(
        conn.execute(
            insert(scripts)
            .values(path=path, args=args, args_key=key, content_hash=digest)
            .returning(scripts.c.id)
        ).scalar_one()
    )


def _failure_class(trial: FrozenTrial) -> str | None:
    status = state.record_of(trial).status
    if status in FAILED_STATUSES or status == "pruned":
        return str(status)
    if trial.state == TrialState.FAIL:
        return str(status or "failed")
    return None


def _trial_row(trial: FrozenTrial) -> dict[str, Any]:
    record = state.record_of(trial)
    row: dict[str, Any] = record.stored(RESULT_COLUMNS)
    row.update(
        number=trial.number,
        optuna_trial_id=state.optuna_trial_id(trial),
        state=trial.state.name.lower(),
        role=record.role,
        status=record.status,
        reason=record.reason,
        failure_class=_failure_class(trial),
        config=record.config.to_dict(),
        script_config=record.script_config.to_dict(),
        samples_per_s=state.rate_of(trial),
        partial=record.partial,
        duplicate_of=record.duplicate_of,
        output_tail=record.output_tail,
        started_at=_timestamp(trial.datetime_start),
        completed_at=_timestamp(trial.datetime_complete),
    )
    # A BigInteger column: the typed figure as an int, whatever number the JSON held.
    peak = record.result.peak_rss_bytes if record.result is not None else None
    row.update(peak_rss_bytes=int(peak) if peak is not None else None)
    return row


def _trial_source(trial: FrozenTrial) -> str:
    return _digest(
        [
            trial.state.name,
            trial.value,
            state.attrs_of(state.record_of(trial)),
            trial.intermediate_values,
            trial.datetime_complete,
        ]
    )


def _windows(trial: FrozenTrial) -> list[float]:
    windows = state.record_of(trial).windows
    if windows:
        return windows
    return [float(v) for _, v in sorted(trial.intermediate_values.items())]


def _sync_trials(conn: Connection, study_id: int, all_trials: list[FrozenTrial]) -> None:
    known = {
        r.number: (r.id, r.source_hash)
        for r in conn.execute(
            select(trials.c.number, trials.c.id, trials.c.source_hash).where(
                trials.c.study_id == study_id
            )
        )
    }
    for trial in all_trials:
        source = _trial_source(trial)
        existing = known.get(trial.number)
        if existing is not None and existing[1] == source:
            continue
        row = _trial_row(trial) | {"source_hash": source, "study_id": study_id}
        if existing is None:
            trial_id = int(
                conn.execute(insert(trials).values(**row).returning(trials.c.id)).scalar_one()
            )
        else:
            trial_id = existing[0]
            conn.execute(update(trials).where(trials.c.id == trial_id).values(**row))
            conn.execute(delete(windows).where(windows.c.trial_id == trial_id))
        values = _windows(trial)
        if values:
            conn.execute(
                insert(windows),
                [
                    {"trial_id": trial_id, "idx": i, "samples_per_s": v}
                    for i, v in enumerate(values)
                ],
            )
    gone = set(known) - {t.number for t in all_trials}
    if gone:
        conn.execute(delete(trials).where(trials.c.study_id == study_id, trials.c.number.in_(gone)))


def _state(answer: Answer, all_trials: list[FrozenTrial]) -> str:
    if answer.stop_reason:
        return "finished"
    if any(t.state in (TrialState.RUNNING, TrialState.WAITING) for t in all_trials):
        return "running"
    return "stopped" if all_trials else "empty"


def _sync(conn: Connection, study: optuna.Study, url: str, answer: Answer) -> None:
    identity = state.load(study).identity
    all_trials = study.get_trials(deepcopy=False)
    summary = answer.to_dict()
    summary["storage"] = safe_url(url)
    now = time.time()
    host_id = _host_id(conn, identity.hardware)
    script_id = _script_id(conn, identity.script, identity.args)
    rec, counts = answer.recommended, answer.trials
    row = {
        "optuna_study_id": state.optuna_study_id(study),
        "script_id": script_id,
        "host_id": host_id,
        "state": _state(answer, all_trials),
        "n_trials": len(all_trials),
        "n_complete": counts.complete,
        "n_failed": counts.failed,
        "n_pruned": counts.pruned,
        "best_samples_per_s": rec.samples_per_s if rec else None,
        "baseline_samples_per_s": answer.baseline.samples_per_s if answer.baseline else None,
        "speedup": answer.speedup,
        "ceiling_samples_per_s": answer.ceiling_samples_per_s,
        "efficiency": answer.efficiency,
        "stop_reason": answer.stop_reason,
        "diagnosis": summary["diagnosis"],
        "summary": summary,
        "created_at": identity.created_at,
        "updated_at": now,
    }
    study_id = conn.execute(select(studies.c.id).where(studies.c.name == study.study_name)).scalar()
    if study_id is None:
        study_id = conn.execute(
            insert(studies).values(name=study.study_name, **row).returning(studies.c.id)
        ).scalar_one()
    else:
        conn.execute(update(studies).where(studies.c.id == study_id).values(**row))
    _sync_trials(conn, int(study_id), all_trials)
    conn.execute(delete(recommendations).where(recommendations.c.study_id == study_id))
    if rec:
        conn.execute(
            insert(recommendations).values(
                study_id=study_id,
                script_id=script_id,
                host_id=host_id,
                trial_number=rec.trial,
                config=rec.config.to_dict(),
                samples_per_s=rec.samples_per_s,
                ci95=rec.ci95,
                baseline=summary["baseline"],
                speedup=answer.speedup,
                snippet=answer.snippet(),
                updated_at=now,
            )
        )


def sync_study(storage_url_: str, study: optuna.Study, answer: Answer) -> None:
    """Mirror ``study`` and its ``answer`` (the tuner's ``summarize``) into the ``autotune_*``
    tables of the database at ``storage_url_``.

    Safe to call after every trial: it creates our tables on first use, rewrites only the
    trials that changed since the last call, and recomputes the study row and recommendation.
    A database error is logged, not raised, so a mirror hiccup never stops a search; the next
    call catches up.
    """
    try:
        sync_study_strict(storage_url_, study, answer)
    except (StorageError, sqlalchemy.exc.SQLAlchemyError) as exc:
        reason = first_line(exc)
        log.warning("autotune: could not mirror study %s: %s", study.study_name, reason)


def sync_study_strict(url: str | None, study: optuna.Study, answer: Answer) -> None:
    """Like :func:`sync_study`, but errors propagate (for the CLI and tests)."""
    resolved = storage_url(url)
    ensure_schema(resolved)
    with engine_for(resolved).begin() as conn:
        _sync(conn, study, resolved, answer)


def sync_all(answer_of: Callable[[optuna.Study], Answer], url: str | None = None) -> list[str]:
    """Mirror every study in the storage, each with ``answer_of(study)``; their names."""
    resolved = storage_url(url)
    storage = open_storage(resolved)
    try:
        names = [s.study_name for s in optuna.get_all_study_summaries(storage)]
        for name in names:
            study = optuna.load_study(study_name=name, storage=storage)
            sync_study_strict(resolved, study, answer_of(study))
        return names
    finally:
        storage.remove_session()
        storage.engine.dispose()
