"""Per-ply counts of every variant, so that statistics need no scan of the states table."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003_plies"
down_revision = "0002_storage"

COLUMNS = ("variant_id", "ply", "positions", "classes", "wins", "losses", "draws", "terminal")


def upgrade() -> None:
    op.create_table(
        "plies",
        *(sa.Column(name, sa.Integer(), nullable=False) for name in COLUMNS),
        sa.ForeignKeyConstraint(
            ["variant_id"], ["variants.id"], name=op.f("fk_plies_variant_id_variants"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("variant_id", "ply", name=op.f("pk_plies")),
        sqlite_with_rowid=False,
    )
    op.execute(
        "INSERT INTO plies (variant_id, ply, positions, classes, wins, losses, draws, terminal)"
        " SELECT s.variant_id, s.ply,"
        " CASE WHEN v.symmetry THEN SUM(s.orbit) ELSE COUNT(*) END,"
        " CASE WHEN v.symmetry THEN COUNT(*) ELSE SUM(s.representative) END,"
        " SUM(s.outcome = 'win'), SUM(s.outcome = 'loss'), SUM(s.outcome = 'draw'), SUM(s.terminal)"
        " FROM states AS s JOIN variants AS v ON v.id = s.variant_id GROUP BY s.variant_id, s.ply"
    )


def downgrade() -> None:
    op.drop_table("plies")
