"""Browsing views that read right and look positions up through the indexes.

``move_values`` names its columns for what they hold: ``position_after`` (was
``result``), the position a move leads to, and ``outcome`` (was ``value``),
what the move achieves for the player making it. ``best_moves`` finds a
state's best move with a subquery on that state's moves alone (the primary key
of ``moves``), so a lookup by variant and position is a few index reads
instead of a ranking of every move of the file.

Revision ID: 0004_views
Revises: 0003_plies
Create Date: 2026-11-23
"""

from __future__ import annotations

from alembic import context, op

revision = "0004_views"
down_revision = "0003_plies"
branch_labels = None
depends_on = None

#: The outcome of a move for the player making it, from the outcome of the position it leads to (``t``).
MOVER_OUTCOME = "CASE t.outcome WHEN 'loss' THEN 'win' WHEN 'win' THEN 'loss' ELSE 'draw' END"

VIEWS = {
    "move_values": f"""
        CREATE VIEW move_values AS
        SELECT v.name AS variant, f.key AS position, m.move, t.key AS position_after,
               {MOVER_OUTCOME} AS outcome, t.distance + 1 AS distance, m.from_state, m.to_state
        FROM moves AS m
        JOIN states AS f ON f.id = m.from_state
        JOIN states AS t ON t.id = m.to_state
        JOIN variants AS v ON v.id = f.variant_id
    """,
    "best_moves": f"""
        CREATE VIEW best_moves AS
        SELECT v.name AS variant, s.key AS position, m.move, t.key AS position_after,
               {MOVER_OUTCOME} AS outcome, t.distance + 1 AS distance, s.id AS from_state, m.to_state
        FROM states AS s
        JOIN variants AS v ON v.id = s.variant_id
        JOIN moves AS m ON m.from_state = s.id AND m.move = (
            SELECT b.move FROM moves AS b JOIN states AS c ON c.id = b.to_state
            WHERE b.from_state = s.id
            ORDER BY CASE c.outcome WHEN 'loss' THEN 0 WHEN 'draw' THEN 1 ELSE 2 END,
                     CASE c.outcome WHEN 'loss' THEN c.distance ELSE -COALESCE(c.distance, 1000000000) END,
                     b.move
            LIMIT 1
        )
        JOIN states AS t ON t.id = m.to_state
    """,
}


def _replace(views: dict[str, str]) -> None:
    for name in ("best_moves", "move_values"):
        op.execute(f"DROP VIEW IF EXISTS {name}")
    for name in ("move_values", "best_moves"):
        op.execute(views[name])


def upgrade() -> None:
    _replace(VIEWS)


def downgrade() -> None:
    """Restore the views of revision 0001, as that revision's script defines them."""
    _replace(context.script.get_revision("0001_initial").module.VIEWS)
