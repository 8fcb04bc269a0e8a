"""Every read and write the API makes, over our tables only. Routes stay thin by calling these.

Each function takes an open connection and returns plain dicts; a missing study, trial or
recommendation raises NotFoundError with a message a person can act on.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, Row, delete, func, select, update

from autotune.answer import Answer
from autotune.hardware import HOST_FIELDS, describe
from autotune.store._tables import (
    VERSION_TABLE,
    hosts,
    recommendations,
    scripts,
    studies,
    trials,
    windows,
)

# What a trial list shows; a single trial shows every column but our bookkeeping.
_TRIAL_ITEM = (
    "number",
    "state",
    "role",
    "status",
    "reason",
    "failure_class",
    "config",
    "samples_per_s",
    "data_wait_fraction",
    "step_p50_s",
    "step_p95_s",
    "wait_per_batch_s",
    "compute_per_batch_s",
    "partial",
    "duplicate_of",
    "started_at",
    "completed_at",
)
_TRIAL_DETAIL = tuple(
    c.name
    for c in trials.columns
    if c.name not in ("id", "study_id", "optuna_trial_id", "source_hash")
)
# Read from a trial's columns rather than copied: every shape of a trial carries them.
_TRIAL_DERIVED = ("rank_rates",)


class NotFoundError(LookupError):
    """Nothing matches; str(error) says what was asked and what exists."""


def _host(row: Row[Any]) -> dict[str, Any] | None:
    if row.host_fingerprint is None:
        return None
    raw = dict(row.host_raw or {})
    raw["id"] = row.host_fingerprint
    return {
        "fingerprint": row.host_fingerprint,
        "description": describe(raw),
        **{k: raw.get(k) for k in HOST_FIELDS},
    }


def _study_select() -> Any:
    return (
        select(
            studies,
            scripts.c.path.label("script_path"),
            scripts.c.args.label("script_args"),
            scripts.c.content_hash.label("script_hash"),
            hosts.c.fingerprint.label("host_fingerprint"),
            hosts.c.raw.label("host_raw"),
        )
        .select_from(studies)
        .outerjoin(scripts, scripts.c.id == studies.c.script_id)
        .outerjoin(hosts, hosts.c.id == studies.c.host_id)
    )


def _study_item(row: Row[Any]) -> dict[str, Any]:
    return {
        "name": row.name,
        "script": row.script_path,
        "args": row.script_args or [],
        "host": _host(row),
        "state": row.state,
        "trials": {
            "total": row.n_trials,
            "complete": row.n_complete,
            "failed": row.n_failed,
            "pruned": row.n_pruned,
        },
        "best_samples_per_s": row.best_samples_per_s,
        "baseline_samples_per_s": row.baseline_samples_per_s,
        "speedup": row.speedup,
        "ceiling_samples_per_s": row.ceiling_samples_per_s,
        "efficiency": row.efficiency,
        "note": row.note,
        "updated_at": row.updated_at,
    }


def _study_row(conn: Connection, name: str) -> Row[Any]:
    row = conn.execute(_study_select().where(studies.c.name == name)).first()
    if row is None:
        raise NotFoundError(f"no study named {name!r}; list the studies with GET /api/v1/studies")
    return row


def list_studies(
    conn: Connection,
    *,
    limit: int,
    offset: int,
    script: str | None = None,
    host: str | None = None,
) -> tuple[list[dict[str, Any]], int]:
    query = _study_select()
    count = select(func.count()).select_from(studies)
    if script is not None:
        query = query.where(scripts.c.path == script)
        count = count.join(scripts, scripts.c.id == studies.c.script_id).where(
            scripts.c.path == script
        )
    if host is not None:
        query = query.where(hosts.c.fingerprint == host)
        count = count.join(hosts, hosts.c.id == studies.c.host_id).where(
            hosts.c.fingerprint == host
        )
    rows = conn.execute(
        query.order_by(studies.c.updated_at.desc(), studies.c.id).limit(limit).offset(offset)
    )
    return [_study_item(r) for r in rows], int(conn.execute(count).scalar_one())


def get_study(conn: Connection, name: str) -> dict[str, Any]:
    """The study's row and its whole answer as the tuner computed it (the row's columns win
    where both have a key: they are the same figures, counted over the mirror)."""
    row = _study_row(conn, name)
    answer = Answer.from_dict(row.summary or {"study": row.name}).to_dict()
    return (
        answer
        | _study_item(row)
        | {
            "script_hash": row.script_hash,
            "created_at": row.created_at,
        }
    )


def _rank_rates(ranks: Any) -> list[dict[str, Any]] | None:
    """Each rank's status and samples/s, from the figures a multi-rank trial keeps per rank:
    what a list of segments needs, without every rank's windows."""
    if not ranks:
        return None
    return [
        {
            "rank": r.get("rank", i),
            "status": r.get("status"),
            "samples_per_s": r.get("samples_per_s"),
        }
        for i, r in enumerate(ranks)
        if isinstance(r, dict)
    ]


def _trial_item(row: Row[Any], keys: tuple[str, ...] = _TRIAL_ITEM) -> dict[str, Any]:
    return {k: getattr(row, k) for k in keys} | {"rank_rates": _rank_rates(row.ranks)}


def list_trials(
    conn: Connection, name: str, *, state: str | None, limit: int, offset: int
) -> tuple[list[dict[str, Any]], int]:
    study_id = _study_row(conn, name).id
    where = [trials.c.study_id == study_id]
    if state is not None:
        where.append(trials.c.state == state)
    rows = conn.execute(
        select(trials).where(*where).order_by(trials.c.number).limit(limit).offset(offset)
    )
    total = conn.execute(select(func.count()).select_from(trials).where(*where)).scalar_one()
    return [_trial_item(r) for r in rows], int(total)


def get_trial(conn: Connection, name: str, number: int) -> dict[str, Any]:
    study_id = _study_row(conn, name).id
    row = conn.execute(
        select(trials).where(trials.c.study_id == study_id, trials.c.number == number)
    ).first()
    if row is None:
        last = conn.execute(
            select(func.max(trials.c.number)).where(trials.c.study_id == study_id)
        ).scalar()
        span = f"trials are numbered 0 to {last}" if last is not None else "it has no trials yet"
        raise NotFoundError(f"study {name!r} has no trial {number}; {span}")
    values = (
        conn.execute(
            select(windows.c.samples_per_s)
            .where(windows.c.trial_id == row.id)
            .order_by(windows.c.idx)
        )
        .scalars()
        .all()
    )
    return _trial_item(row, _TRIAL_DETAIL) | {"windows": list(values)}


def _recommendation(row: Row[Any], study: str) -> dict[str, Any]:
    return {
        "study": study,
        "trial": row.trial_number,
        "config": row.config,
        "samples_per_s": row.samples_per_s,
        "ci95": row.ci95,
        "baseline": row.baseline,
        "speedup": row.speedup,
        "snippet": row.snippet,
        "updated_at": row.updated_at,
    }


def best(conn: Connection, name: str) -> dict[str, Any]:
    row = conn.execute(
        select(studies.c.id, studies.c.n_trials, recommendations)
        .outerjoin(recommendations, recommendations.c.study_id == studies.c.id)
        .where(studies.c.name == name)
    ).first()
    if row is None:
        raise NotFoundError(f"no study named {name!r}; list the studies with GET /api/v1/studies")
    if row.trial_number is None:
        raise NotFoundError(
            f"study {name!r} has no recommendation yet: none of its {row.n_trials} trials was "
            "measured in full; let the probe run longer or see its failures at "
            f"/api/v1/studies/{name}"
        )
    return _recommendation(row, name)


def lookup(
    conn: Connection, *, script: str, host: str, args: Sequence[str] | None = None
) -> dict[str, Any]:
    """The newest recommendation for ``script`` (and ``args`` when given) measured on ``host``."""
    query = (
        select(recommendations, studies.c.name.label("study_name"))
        .join(scripts, scripts.c.id == recommendations.c.script_id)
        .join(hosts, hosts.c.id == recommendations.c.host_id)
        .join(studies, studies.c.id == recommendations.c.study_id)
        .where(scripts.c.path == script, hosts.c.fingerprint == host)
    )
    if args is not None:
        query = query.where(scripts.c.args_key == json.dumps([str(a) for a in args]))
    row = conn.execute(query.order_by(recommendations.c.updated_at.desc()).limit(1)).first()
    if row is not None:
        return _recommendation(row, row.study_name)
    seen = conn.execute(
        select(hosts.c.fingerprint, hosts.c.raw)
        .distinct()
        .join(studies, studies.c.host_id == hosts.c.id)
        .join(scripts, scripts.c.id == studies.c.script_id)
        .where(scripts.c.path == script)
        .limit(5)
    ).all()
    what = f"script {script!r}" + (f" with arguments {list(args)}" if args is not None else "")
    if not seen:
        raise NotFoundError(
            f"no study matches {what}: it was never probed here; run `autotune probe {script}` "
            "on the machine that will train"
        )
    hardware = "; ".join(describe(dict(r.raw or {}) | {"id": r.fingerprint}) for r in seen)
    raise NotFoundError(
        f"no study matches {what} on hardware {host}: it was measured only on {hardware}. "
        "Settings do not transfer between machines; probe it on this one"
    )


def set_note(conn: Connection, name: str, note: str) -> dict[str, Any]:
    _study_row(conn, name)
    conn.execute(update(studies).where(studies.c.name == name).values(note=note))
    return get_study(conn, name)


def delete_study(conn: Connection, name: str) -> None:
    """Our mirror of the study; the caller deletes Optuna's copy so no sync brings it back."""
    study_id = _study_row(conn, name).id
    # Explicit, not only ON DELETE CASCADE: SQLite enforces it only with foreign_keys=ON.
    trial_ids = select(trials.c.id).where(trials.c.study_id == study_id)
    conn.execute(delete(windows).where(windows.c.trial_id.in_(trial_ids)))
    conn.execute(delete(trials).where(trials.c.study_id == study_id))
    conn.execute(delete(recommendations).where(recommendations.c.study_id == study_id))
    conn.execute(delete(studies).where(studies.c.id == study_id))


def health(conn: Connection) -> dict[str, Any]:
    """Our schema's revision and how many studies the mirror holds."""
    from alembic.runtime.migration import MigrationContext

    revision = MigrationContext.configure(
        conn, opts={"version_table": VERSION_TABLE}
    ).get_current_revision()
    count = conn.execute(select(func.count()).select_from(studies)).scalar_one()
    return {"schema_revision": revision, "studies": int(count)}
