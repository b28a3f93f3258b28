"""Packed storage: the states of a variant in compressed blocks, one row per block."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_packed"
down_revision = "0004_views"


#: The columns of ``blocks``, in order; every one is required.
COLUMNS = (
    ("id", sa.Integer), ("variant_id", sa.Integer), ("ply", sa.Integer), ("first_state", sa.Integer),
    ("first_key", sa.String), ("count", sa.Integer), ("data", sa.LargeBinary),
)


def upgrade() -> None:
    op.create_table(
        "blocks",
        *(sa.Column(name, kind(), nullable=False) for name, kind in COLUMNS),
        sa.ForeignKeyConstraint(
            ["variant_id"], ["variants.id"], name=op.f("fk_blocks_variant_id_variants"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_blocks")),
        sa.UniqueConstraint("variant_id", "ply", "first_state", name=op.f("uq_blocks_variant_id_ply_first_state")),
    )


def downgrade() -> None:
    op.drop_table("blocks")
