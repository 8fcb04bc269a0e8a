"""initial tables

Revision ID: 0001
Revises:
Create Date: 2026-11-21 23:40:06.267359
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0001'
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('autotune_hosts',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('fingerprint', sa.String(length=64), nullable=False),
    sa.Column('cpu_model', sa.String(length=256), nullable=True),
    sa.Column('cpu_count', sa.Integer(), nullable=True),
    sa.Column('memory_gb', sa.Integer(), nullable=True),
    sa.Column('gpu_model', sa.String(length=256), nullable=True),
    sa.Column('gpu_count', sa.Integer(), nullable=False),
    sa.Column('driver', sa.String(length=64), nullable=True),
    sa.Column('cuda', sa.String(length=64), nullable=True),
    sa.Column('torch', sa.String(length=64), nullable=True),
    sa.Column('platform', sa.String(length=64), nullable=True),
    sa.Column('raw', sa.JSON(), nullable=False),
    sa.Column('first_seen', sa.Float(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_autotune_hosts')),
    sa.UniqueConstraint('fingerprint', name=op.f('uq_autotune_hosts_fingerprint'))
    )
    op.create_table('autotune_scripts',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('path', sa.String(length=1024), nullable=False),
    sa.Column('args', sa.JSON(), nullable=False),
    sa.Column('args_key', sa.Text(), nullable=False),
    sa.Column('content_hash', sa.String(length=64), nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_autotune_scripts')),
    sa.UniqueConstraint('path', 'args_key', name='uq_autotune_scripts_path_args')
    )
    op.create_table('autotune_studies',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=512), nullable=False),
    sa.Column('optuna_study_id', sa.Integer(), nullable=True),
    sa.Column('script_id', sa.Integer(), nullable=True),
    sa.Column('host_id', sa.Integer(), nullable=True),
    sa.Column('state', sa.String(length=16), nullable=False),
    sa.Column('n_trials', sa.Integer(), nullable=False),
    sa.Column('n_complete', sa.Integer(), nullable=False),
    sa.Column('n_failed', sa.Integer(), nullable=False),
    sa.Column('n_pruned', sa.Integer(), nullable=False),
    sa.Column('best_samples_per_s', sa.Float(), nullable=True),
    sa.Column('baseline_samples_per_s', sa.Float(), nullable=True),
    sa.Column('speedup', sa.Float(), nullable=True),
    sa.Column('ceiling_samples_per_s', sa.Float(), nullable=True),
    sa.Column('efficiency', sa.Float(), nullable=True),
    sa.Column('stop_reason', sa.Text(), nullable=True),
    sa.Column('diagnosis', sa.JSON(), nullable=True),
    sa.Column('summary', sa.JSON(), nullable=False),
    sa.Column('created_at', sa.Float(), nullable=True),
    sa.Column('updated_at', sa.Float(), nullable=False),
    sa.ForeignKeyConstraint(['host_id'], ['autotune_hosts.id'], name=op.f('fk_autotune_studies_host_id_autotune_hosts'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['script_id'], ['autotune_scripts.id'], name=op.f('fk_autotune_studies_script_id_autotune_scripts'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_autotune_studies')),
    sa.UniqueConstraint('name', name=op.f('uq_autotune_studies_name'))
    )
    with op.batch_alter_table('autotune_studies', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_autotune_studies_host_id'), ['host_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_autotune_studies_script_id'), ['script_id'], unique=False)

    op.create_table('autotune_recommendations',
    sa.Column('study_id', sa.Integer(), nullable=False),
    sa.Column('script_id', sa.Integer(), nullable=True),
    sa.Column('host_id', sa.Integer(), nullable=True),
    sa.Column('trial_number', sa.Integer(), nullable=False),
    sa.Column('config', sa.JSON(), nullable=False),
    sa.Column('samples_per_s', sa.Float(), nullable=True),
    sa.Column('ci95', sa.JSON(), nullable=True),
    sa.Column('baseline', sa.JSON(), nullable=True),
    sa.Column('speedup', sa.Float(), nullable=True),
    sa.Column('snippet', sa.Text(), nullable=False),
    sa.Column('updated_at', sa.Float(), nullable=False),
    sa.ForeignKeyConstraint(['study_id'], ['autotune_studies.id'], name=op.f('fk_autotune_recommendations_study_id_autotune_studies'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('study_id', name=op.f('pk_autotune_recommendations'))
    )
    op.create_table('autotune_trials',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('study_id', sa.Integer(), nullable=False),
    sa.Column('number', sa.Integer(), nullable=False),
    sa.Column('optuna_trial_id', sa.Integer(), nullable=True),
    sa.Column('state', sa.String(length=16), nullable=False),
    sa.Column('role', sa.String(length=16), nullable=True),
    sa.Column('status', sa.String(length=32), nullable=True),
    sa.Column('reason', sa.Text(), nullable=True),
    sa.Column('failure_class', sa.String(length=32), nullable=True),
    sa.Column('config', sa.JSON(), nullable=True),
    sa.Column('script_config', sa.JSON(), nullable=True),
    sa.Column('samples_per_s', sa.Float(), nullable=True),
    sa.Column('step_p50_s', sa.Float(), nullable=True),
    sa.Column('step_p95_s', sa.Float(), nullable=True),
    sa.Column('data_wait_fraction', sa.Float(), nullable=True),
    sa.Column('wait_per_batch_s', sa.Float(), nullable=True),
    sa.Column('compute_per_batch_s', sa.Float(), nullable=True),
    sa.Column('time_to_first_batch_s', sa.Float(), nullable=True),
    sa.Column('main_cpu_s', sa.Float(), nullable=True),
    sa.Column('worker_cpu_s', sa.Float(), nullable=True),
    sa.Column('peak_rss_bytes', sa.BigInteger(), nullable=True),
    sa.Column('gpu', sa.JSON(), nullable=True),
    sa.Column('batches', sa.Integer(), nullable=True),
    sa.Column('samples', sa.Integer(), nullable=True),
    sa.Column('wall_s', sa.Float(), nullable=True),
    sa.Column('partial', sa.Boolean(), nullable=False),
    sa.Column('duplicate_of', sa.Integer(), nullable=True),
    sa.Column('output_tail', sa.Text(), nullable=True),
    sa.Column('started_at', sa.Float(), nullable=True),
    sa.Column('completed_at', sa.Float(), nullable=True),
    sa.Column('source_hash', sa.String(length=64), nullable=False),
    sa.ForeignKeyConstraint(['study_id'], ['autotune_studies.id'], name=op.f('fk_autotune_trials_study_id_autotune_studies'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_autotune_trials')),
    sa.UniqueConstraint('study_id', 'number', name='uq_autotune_trials_study_number')
    )
    with op.batch_alter_table('autotune_trials', schema=None) as batch_op:
        batch_op.create_index('ix_autotune_trials_study_state_number', ['study_id', 'state', 'number'], unique=False)

    op.create_table('autotune_windows',
    sa.Column('trial_id', sa.Integer(), nullable=False),
    sa.Column('idx', sa.Integer(), nullable=False),
    sa.Column('samples_per_s', sa.Float(), nullable=False),
    sa.ForeignKeyConstraint(['trial_id'], ['autotune_trials.id'], name=op.f('fk_autotune_windows_trial_id_autotune_trials'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('trial_id', 'idx', name=op.f('pk_autotune_windows'))
    )


def downgrade() -> None:
    op.drop_table('autotune_windows')
    with op.batch_alter_table('autotune_trials', schema=None) as batch_op:
        batch_op.drop_index('ix_autotune_trials_study_state_number')

    op.drop_table('autotune_trials')
    op.drop_table('autotune_recommendations')
    with op.batch_alter_table('autotune_studies', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_autotune_studies_script_id'))
        batch_op.drop_index(batch_op.f('ix_autotune_studies_host_id'))

    op.drop_table('autotune_studies')
    op.drop_table('autotune_scripts')
    op.drop_table('autotune_hosts')
