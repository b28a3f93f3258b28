"""The ``how_to_query`` view: for each built variant, where SQL finds its values and moves.

Variants stored as rows (``moves``, ``states``) are read through the views
``positions``, ``move_values`` and ``best_moves``; the others (``packed``,
``dense``) keep compressed blocks in ``blocks`` that only the SQL functions of
the Python package decode (``tb_outcome``, ``tb_probe``, ...: ``tablebase.sql``,
the datasette plugin), or ``tablebase export`` writes as rows. The view says
which, with a query to start from, so a SQL browser shows why a table holds
blobs and what to call.

Revision ID: 0007_how_to_query
Revises: 0006_ply_outcomes
"""

from __future__ import annotations

from alembic import op

revision = "0007_how_to_query"
down_revision = "0006_ply_outcomes"

#: ``v.name`` as a SQL string literal inside generated SQL text.
NAME = "'''' || v.name || ''''"

VIEW = f"""
    CREATE VIEW how_to_query AS
    SELECT v.name AS variant, v.storage,
           CASE WHEN v.storage IN ('moves', 'states') THEN 'positions'
                ELSE 'tb_outcome(), tb_distance()' END AS values_from,
           CASE WHEN v.storage = 'moves' THEN 'move_values, best_moves'
                ELSE 'tb_probe(), tb_best()' END AS moves_from,
           CASE v.storage
                WHEN 'moves' THEN 'SELECT * FROM best_moves WHERE variant = ' || {NAME} || ' LIMIT 10'
                WHEN 'states' THEN 'SELECT * FROM positions WHERE variant = ' || {NAME} || ' LIMIT 10'
                ELSE 'SELECT tb_probe(' || {NAME} || ')' END AS example,
           CASE v.storage
                WHEN 'moves' THEN 'states and moves are rows: every view lists them'
                WHEN 'states' THEN 'states are rows (view positions); moves come from the rules: tb_probe() lists them'
                ELSE 'positions are compressed blocks (table blocks): read them with the tb_* functions of the '
                     || 'Python package (tablebase.sql.connect, tablebase.sql.engine, datasette with tablebase '
                     || 'installed); tools that cannot load Python read rows written by: tablebase export '
                     || v.name || ' --to rows.db --plies 0-8' END AS note
    FROM variants AS v
"""


def upgrade() -> None:
    op.execute("DROP VIEW IF EXISTS how_to_query")
    op.execute(VIEW)


def downgrade() -> None:
    op.execute("DROP VIEW IF EXISTS how_to_query")
