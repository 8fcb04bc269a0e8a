"""Alembic scripts for autotune's own tables; shipped as ``autotune.migrations``."""
