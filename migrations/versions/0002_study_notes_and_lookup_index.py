"""study notes and the recommendation lookup index

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-21 23:45:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('autotune_studies', schema=None) as batch_op:
        batch_op.add_column(sa.Column('note', sa.Text(), nullable=True))
    with op.batch_alter_table('autotune_recommendations', schema=None) as batch_op:
        batch_op.create_index(
            'ix_autotune_recommendations_lookup', ['script_id', 'host_id', 'updated_at'],
            unique=False,
        )


def downgrade() -> None:
    with op.batch_alter_table('autotune_recommendations', schema=None) as batch_op:
        batch_op.drop_index('ix_autotune_recommendations_lookup')
    with op.batch_alter_table('autotune_studies', schema=None) as batch_op:
        batch_op.drop_column('note')
