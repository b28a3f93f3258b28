"""Per-ply outcomes counted in positions: every position won, lost and drawn for the side to move.

The older columns ``wins``, ``losses`` and ``draws`` count stored states
(one per symmetry class in a reduced variant). Variants with rows in
``states`` get the new counts from those rows here; a packed variant keeps
them empty until it is built again (its positions are not rows to sum).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006_ply_outcomes"
down_revision = "0005_packed"

COLUMNS = ("win_positions", "loss_positions", "draw_positions")


def upgrade() -> None:
    for name in COLUMNS:
        op.add_column("plies", sa.Column(name, sa.Integer(), nullable=True))
    for name, label in zip(COLUMNS, ("win", "loss", "draw")):
        op.execute(
            f"UPDATE plies SET {name} = ("
            f" SELECT COALESCE(SUM(CASE WHEN s.outcome = '{label}' THEN (CASE WHEN v.symmetry THEN s.orbit ELSE 1 END)"
            " ELSE 0 END), 0)"
            " FROM states AS s JOIN variants AS v ON v.id = s.variant_id"
            " WHERE s.variant_id = plies.variant_id AND s.ply = plies.ply)"
            " WHERE variant_id IN (SELECT id FROM variants WHERE storage != 'packed')"
        )


def downgrade() -> None:
    for name in COLUMNS:
        op.drop_column("plies", name)
