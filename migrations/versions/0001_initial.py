"""Initial schema: variants, states, moves and the browsing views."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001_initial"
down_revision = None

OUTCOMES = "outcome IN ('win', 'loss', 'draw')"

VIEWS = {
    "positions": """
        CREATE VIEW positions AS
        SELECT v.name AS variant, s.key AS position, s.to_move, s.ply, s.terminal,
               s.outcome, s.distance, s.orbit, s.id AS state_id
        FROM states AS s JOIN variants AS v ON v.id = s.variant_id
    """,
    "move_values": """
        CREATE VIEW move_values AS
        SELECT v.name AS variant, f.key AS position, m.move, t.key AS result,
               CASE t.outcome WHEN 'loss' THEN 'win' WHEN 'win' THEN 'loss' ELSE 'draw' END AS value,
               t.distance + 1 AS distance, m.from_state, m.to_state
        FROM moves AS m
        JOIN states AS f ON f.id = m.from_state
        JOIN states AS t ON t.id = m.to_state
        JOIN variants AS v ON v.id = f.variant_id
    """,
    "best_moves": """
        CREATE VIEW best_moves AS
        SELECT variant, position, move, result, value, distance FROM (
            SELECT mv.*, ROW_NUMBER() OVER (
                PARTITION BY mv.from_state
                ORDER BY CASE mv.value WHEN 'win' THEN 0 WHEN 'draw' THEN 1 ELSE 2 END,
                         CASE mv.value WHEN 'win' THEN mv.distance
                                       ELSE -COALESCE(mv.distance, 1000000000) END,
                         mv.move
            ) AS rank
            FROM move_values AS mv
        ) WHERE rank = 1
    """,
}


def reference(table: str, column: str, target: str) -> sa.Column:
    """A required integer column of ``table`` referring to ``target.id``, deleted with it."""
    foreign_key = sa.ForeignKey(f"{target}.id", name=f"fk_{table}_{column}_{target}", ondelete="CASCADE")
    return sa.Column(column, sa.Integer(), foreign_key, nullable=False)


def value(table: str, proved: bool = True) -> tuple[sa.Column, sa.Column, sa.CheckConstraint]:
    """The value columns of ``table`` and the check of its outcome: ``outcome``, one of :data:`OUTCOMES`
    (``NULL`` allowed unless every row is ``proved``), and ``distance``, ``NULL`` for none."""
    return (
        sa.Column("outcome", sa.String(), nullable=not proved),
        sa.Column("distance", sa.Integer(), nullable=True),
        sa.CheckConstraint(OUTCOMES, name=f"ck_{table}_outcome"),
    )


def upgrade() -> None:
    op.create_table(
        "variants",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("family", sa.String(), nullable=False),
        sa.Column("rules", sa.Text(), nullable=False),
        sa.Column("parameters", sa.JSON(), nullable=False),
        sa.Column("symmetry", sa.Boolean(), nullable=False),
        sa.Column("complete", sa.Boolean(), nullable=False),
        sa.Column("root_key", sa.String(), nullable=False),
        *value("variants", proved=False),
        sa.Column("states_count", sa.Integer(), nullable=False),
        sa.Column("moves_count", sa.Integer(), nullable=False),
        sa.Column("build_seconds", sa.Float(), nullable=False),
        sa.Column("builder_version", sa.String(), nullable=False),
        sa.Column("built_at", sa.DateTime(), nullable=False),
        sa.UniqueConstraint("name", name="uq_variants_name"),
    )
    op.create_table(
        "states",
        sa.Column("id", sa.Integer(), primary_key=True),
        reference("states", "variant_id", "variants"),
        sa.Column("key", sa.String(), nullable=False),
        sa.Column("to_move", sa.String(), nullable=False),
        sa.Column("ply", sa.Integer(), nullable=False),
        sa.Column("terminal", sa.Boolean(), nullable=False),
        *value("states"),
        sa.Column("orbit", sa.Integer(), nullable=False),
        sa.Column("representative", sa.Boolean(), nullable=False),
        sa.UniqueConstraint("variant_id", "key", name="uq_states_variant_id_key"),
    )
    op.create_index("ix_states_variant_id_ply", "states", ["variant_id", "ply"])
    op.create_table(
        "moves",
        reference("moves", "from_state", "states"),
        sa.Column("move", sa.String(), nullable=False),
        reference("moves", "to_state", "states"),
        sa.PrimaryKeyConstraint("from_state", "move", name="pk_moves"),
        sqlite_with_rowid=False,
    )
    op.create_index("ix_moves_to_state", "moves", ["to_state"])
    for sql in VIEWS.values():
        op.execute(sql)


def downgrade() -> None:
    for name in reversed(list(VIEWS)):
        op.execute(f"DROP VIEW IF EXISTS {name}")
    op.drop_index("ix_moves_to_state", table_name="moves")
    op.drop_table("moves")
    op.drop_index("ix_states_variant_id_ply", table_name="states")
    op.drop_table("states")
    op.drop_table("variants")
