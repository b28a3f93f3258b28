"""Packed storage: the states of a variant in compressed blocks, one row per block."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_packed"
down_revision = "0004_views"


def upgrade() -> None:
    op.create_table(
        "blocks",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("variant_id", sa.Integer(), nullable=False),
        sa.Column("ply", sa.Integer(), nullable=False),
        sa.Column("first_state", sa.Integer(), nullable=False),
        sa.Column("first_key", sa.String(), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(
            ["variant_id"], ["variants.id"], name=op.f("fk_blocks_variant_id_variants"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_blocks")),
        sa.UniqueConstraint("variant_id", "ply", "first_state", name=op.f("uq_blocks_variant_id_ply_first_state")),
    )


def downgrade() -> None:
    op.drop_table("blocks")
