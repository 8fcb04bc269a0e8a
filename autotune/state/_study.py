"""The one path between a study's typed state and Optuna's study user attributes.

Every key below is the name an earlier release stored the value under, so older studies load
as they are. Writes go through one function each: a worker on another machine may write the
same study, and Optuna stores each attribute as its own row, so one value is written at once.
"""

from __future__ import annotations

import os
import time
from dataclasses import asdict, replace
from typing import Any

import optuna

from autotune import __version__
from autotune.answer import Diagnosis, OtherLoaders
from autotune.state._optuna import storage_of
from autotune.state._records import (
    Ceiling,
    Confirmation,
    Identity,
    SeedRecord,
    Shape,
    SharedOptions,
    StoredShape,
    StudyState,
    known,
)


def load(study: optuna.Study) -> StudyState:
    """The study's state as it is stored now (one read of its attributes)."""
    attrs = study.user_attrs
    ceiling = attrs.get("ceiling")
    confirmation = attrs.get("confirmation")
    seed = attrs.get("seed")
    options = attrs.get("worker_options")
    cap = attrs.get("worker_cap")
    batches = attrs.get("script_batches")
    predicted = attrs.get("predicted_workers")
    identity = Identity(**known(Identity, attrs))
    return StudyState(
        identity=replace(
            identity,
            args=list(identity.args or []),
            hardware=dict(identity.hardware or {}),
            nproc_per_node=int(identity.nproc_per_node or 1),
        ),
        ceiling=Ceiling.from_dict(ceiling) if ceiling is not None else None,
        confirmation=Confirmation.from_dict(confirmation) if confirmation else None,
        seed=SeedRecord(**known(SeedRecord, seed)) if seed else None,
        predicted_workers=int(predicted) if predicted is not None else None,
        seeded=bool(attrs.get("seeded", False)),
        worker_cap=int(cap) if cap is not None else None,
        script_batches=int(batches) if batches else None,
        extra_probe_seconds=float(attrs.get("extra_probe_seconds", 0.0)),
        verdict=attrs.get("verdict") or None,
        stop_reason=attrs.get("stop_reason") or None,
        diagnosis=Diagnosis.from_dict(attrs.get("diagnosis")),
        options=SharedOptions.from_dict(options) if options is not None else None,
        others=OtherLoaders.from_dict(attrs.get("others")),
        shape=Shape.from_dict(attrs["shape"]) if isinstance(attrs.get("shape"), dict) else None,
    )


def identify(study: optuna.Study, identity: Identity) -> None:
    """Record what a new study measures (once, when it is created)."""
    for key, value in asdict(identity).items():
        study.set_user_attr(key, value)


def new_identity(
    script: str, args: list[str], hardware: dict[str, Any], nproc: int, sha: str | None
) -> Identity:
    return Identity(
        script=script,
        args=args,
        hardware=hardware,
        nproc_per_node=nproc,
        script_sha256=sha,
        autotune_version=__version__,
        created_at=time.time(),
        host=os.uname().nodename,
    )


def set_script_sha256(study: optuna.Study, digest: str) -> None:
    study.set_user_attr("script_sha256", digest)


def save_ceiling(study: optuna.Study, ceiling: Ceiling) -> None:
    study.set_user_attr("ceiling", asdict(ceiling))


def save_confirmation(study: optuna.Study, confirmation: Confirmation) -> None:
    study.set_user_attr("confirmation", asdict(confirmation))


def save_others(study: optuna.Study, others: OtherLoaders) -> None:
    study.set_user_attr("others", asdict(others))


def save_seed(study: optuna.Study, workers: int | None, seed: SeedRecord) -> None:
    study.set_user_attr("predicted_workers", workers)
    study.set_user_attr("seed", asdict(seed))


def mark_seeded(study: optuna.Study) -> None:
    study.set_user_attr("seeded", True)


def cap_workers(study: optuna.Study, cap: int) -> None:
    study.set_user_attr("worker_cap", cap)


def save_script_batches(study: optuna.Study, batches: int) -> None:
    study.set_user_attr("script_batches", batches)


def add_probe_seconds(study: optuna.Study, seconds: float) -> None:
    """Probe time spent outside trials (ceilings, confirmation), added to what is there."""
    if seconds:
        spent = float(study.user_attrs.get("extra_probe_seconds", 0.0))
        study.set_user_attr("extra_probe_seconds", spent + seconds)


def save_verdict(study: optuna.Study, verdict: str) -> None:
    study.set_user_attr("verdict", verdict)


def save_stop(study: optuna.Study, reason: str, diagnosis: Diagnosis | None) -> None:
    """Why the search ended, and the diagnosis it ended with."""
    if diagnosis is not None:
        study.set_user_attr("diagnosis", diagnosis.to_dict())
    study.set_user_attr("stop_reason", reason)


def save_options(study: optuna.Study, options: SharedOptions) -> None:
    study.set_user_attr("worker_options", options.to_dict())


def save_shape(study: optuna.Study, shape: Shape) -> None:
    study.set_user_attr("shape", shape.to_dict())


def stored_shapes(study: optuna.Study) -> list[StoredShape]:
    """Every other study in ``study``'s storage that kept its answer's shape (one read of the
    summaries)."""
    found = []
    summaries = optuna.get_all_study_summaries(storage_of(study), include_best_trial=False)
    for summary in summaries:
        if summary.study_name == study.study_name:
            continue
        attrs = summary.user_attrs
        raw = attrs.get("shape")
        shape = Shape.from_dict(raw) if isinstance(raw, dict) else None
        if shape is None:
            continue
        hardware = attrs.get("hardware") or {}
        found.append(
            StoredShape(
                study=summary.study_name,
                script=attrs.get("script"),
                hardware_id=hardware.get("id") if isinstance(hardware, dict) else None,
                nproc_per_node=int(attrs.get("nproc_per_node") or 1),
                created_at=float(attrs.get("created_at") or 0.0),
                shape=shape,
            )
        )
    return found
