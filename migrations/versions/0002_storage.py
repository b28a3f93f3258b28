"""Record how a variant's moves are stored: in the moves table, or derived from the rules."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002_storage"
down_revision = "0001_initial"


def upgrade() -> None:
    op.add_column("variants", sa.Column("storage", sa.String(), nullable=False, server_default="moves"))


def downgrade() -> None:
    op.drop_column("variants", "storage")
