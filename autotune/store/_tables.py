"""Our own tables, beside Optuna's in the same database.

They mirror what the tuner wrote into Optuna's storage, flattened so the API can answer from
indexed columns instead of decoding every trial's JSON attributes. No foreign keys point into
Optuna's tables: a study is joined by name and a trial by number, so either side can be
dropped or upgraded on its own.
"""

from __future__ import annotations

import dataclasses

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

from autotune.contract import ProbeResult

PREFIX = "autotune_"
VERSION_TABLE = "autotune_alembic_version"

# Named constraints, so migrations can drop them by name on every backend.
metadata = MetaData(
    naming_convention={
        "ix": "ix_%(table_name)s_%(column_0_N_name)s",
        "uq": "uq_%(table_name)s_%(column_0_N_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    }
)

hosts = Table(
    "autotune_hosts",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("fingerprint", String(64), nullable=False, unique=True),
    Column("cpu_model", String(256)),
    Column("cpu_count", Integer),
    Column("memory_gb", Integer),
    Column("gpu_model", String(256)),
    Column("gpu_count", Integer, nullable=False, default=0),
    Column("driver", String(64)),
    Column("cuda", String(64)),
    Column("torch", String(64)),
    Column("platform", String(64)),
    Column("raw", JSON, nullable=False),
    Column("first_seen", Float, nullable=False),
)

scripts = Table(
    "autotune_scripts",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("path", String(1024), nullable=False),
    Column("args", JSON, nullable=False),
    # The arguments as one canonical string: JSON columns cannot be compared or indexed.
    Column("args_key", Text, nullable=False),
    Column("content_hash", String(64)),
    UniqueConstraint("path", "args_key", name="uq_autotune_scripts_path_args"),
)

studies = Table(
    "autotune_studies",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(512), nullable=False, unique=True),
    Column("optuna_study_id", Integer),
    Column("script_id", ForeignKey("autotune_scripts.id", ondelete="SET NULL"), index=True),
    Column("host_id", ForeignKey("autotune_hosts.id", ondelete="SET NULL"), index=True),
    Column("state", String(16), nullable=False),
    Column("n_trials", Integer, nullable=False, default=0),
    Column("n_complete", Integer, nullable=False, default=0),
    Column("n_failed", Integer, nullable=False, default=0),
    Column("n_pruned", Integer, nullable=False, default=0),
    Column("best_samples_per_s", Float),
    Column("baseline_samples_per_s", Float),
    Column("speedup", Float),
    Column("ceiling_samples_per_s", Float),
    Column("efficiency", Float),
    Column("stop_reason", Text),
    Column("diagnosis", JSON),
    # Written by people through the API; a sync never touches it.
    Column("note", Text),
    Column("summary", JSON, nullable=False),
    Column("created_at", Float),
    Column("updated_at", Float, nullable=False),
)

trials = Table(
    "autotune_trials",
    metadata,
    Column("id", Integer, primary_key=True),
    Column(
        "study_id",
        ForeignKey("autotune_studies.id", ondelete="CASCADE"),
        nullable=False,
    ),
    Column("number", Integer, nullable=False),
    Column("optuna_trial_id", Integer),
    Column("state", String(16), nullable=False),
    Column("role", String(16)),
    Column("status", String(32)),
    Column("reason", Text),
    Column("failure_class", String(32)),
    Column("config", JSON),
    Column("script_config", JSON),
    Column("samples_per_s", Float),
    Column("step_p50_s", Float),
    Column("step_p95_s", Float),
    Column("data_wait_fraction", Float),
    Column("wait_per_batch_s", Float),
    Column("compute_per_batch_s", Float),
    Column("time_to_first_batch_s", Float),
    Column("main_cpu_s", Float),
    Column("worker_cpu_s", Float),
    Column("peak_rss_bytes", BigInteger),
    Column("gpu", JSON),
    Column("batches", Integer),
    Column("samples", Integer),
    Column("wall_s", Float),
    Column("steady_state", Boolean),
    Column("warmup_s_used", Float),
    Column("transport_samples_per_s", Float),
    Column("transport_by_workers", JSON),
    Column("transport_reason", Text),
    Column("measured_loader", JSON),
    Column("ranks", JSON),
    Column("partial", Boolean, nullable=False, default=False),
    Column("duplicate_of", Integer),
    Column("output_tail", Text),
    Column("started_at", Float),
    Column("completed_at", Float),
    # What the row was built from: a trial is rewritten only when this changes.
    Column("source_hash", String(64), nullable=False),
    UniqueConstraint("study_id", "number", name="uq_autotune_trials_study_number"),
    Index("ix_autotune_trials_study_state_number", "study_id", "state", "number"),
)

windows = Table(
    "autotune_windows",
    metadata,
    Column(
        "trial_id",
        ForeignKey("autotune_trials.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    Column("idx", Integer, primary_key=True),
    Column("samples_per_s", Float, nullable=False),
)

recommendations = Table(
    "autotune_recommendations",
    metadata,
    Column(
        "study_id",
        ForeignKey("autotune_studies.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    # Copied from the study so the lookup by script and hardware is one indexed read.
    Column("script_id", Integer),
    Column("host_id", Integer),
    Column("trial_number", Integer, nullable=False),
    Column("config", JSON, nullable=False),
    Column("samples_per_s", Float),
    Column("ci95", JSON),
    Column("baseline", JSON),
    Column("speedup", Float),
    Column("snippet", Text, nullable=False),
    Column("updated_at", Float, nullable=False),
    Index("ix_autotune_recommendations_lookup", "script_id", "host_id", "updated_at"),
)

# The trial columns that hold a field of the probe's result under the same name.
RESULT_COLUMNS = tuple(
    c.name for c in trials.columns if c.name in {f.name for f in dataclasses.fields(ProbeResult)}
)
