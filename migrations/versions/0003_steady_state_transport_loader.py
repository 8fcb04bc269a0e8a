"""trial columns: steady state, the transport ceiling, the measured loader, ranks

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22 03:05:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None

_COLUMNS = (
    ('steady_state', sa.Boolean()),
    ('warmup_s_used', sa.Float()),
    ('transport_samples_per_s', sa.Float()),
    ('transport_by_workers', sa.JSON()),
    ('transport_reason', sa.Text()),
    ('measured_loader', sa.JSON()),
    ('ranks', sa.JSON()),
)


def upgrade() -> None:
    with op.batch_alter_table('autotune_trials', schema=None) as batch_op:
        for name, kind in _COLUMNS:
            batch_op.add_column(sa.Column(name, kind, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('autotune_trials', schema=None) as batch_op:
        for name, _ in reversed(_COLUMNS):
            batch_op.drop_column(name)
