"""The datasette plugin (extra ``tablebase[datasette]``): ``datasette tablebase.db`` answers in SQL.

Registered in the ``datasette`` entry point group, it gives every connection
datasette opens the SQL functions of :mod:`tablebase.sql` (``tb_outcome``,
``tb_probe``, ...), reading the connection's own file when it is a tablebase,
else the first tablebase file datasette serves (so a table of positions in
another database, or in ``_memory`` with ``--crossdb``, can be labelled), and
offers one canned query per built variant, ``probe-VARIANT``: the position's
value and every legal move with its value, for a ``position`` typed in a form
(empty: the start). Its metadata describes each tablebase database and its
``blocks`` and ``how_to_query`` tables, so a page of blobs says what to call.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any, Awaitable, Callable

from pluggy import HookimplMarker

from tablebase.reader import table_names
from tablebase.sql import register

hookimpl = HookimplMarker("datasette")

#: The canned query of one variant (``{name}``: the variant's name as a SQL string literal).
PROBE_SQL = """WITH probe AS MATERIALIZED (
  SELECT CASE WHEN coalesce(:position, '') = '' THEN tb_probe({name}) ELSE tb_probe({name}, :position) END AS answer
)
SELECT 0 AS rank, NULL AS move, answer->>'outcome' AS outcome, answer->>'distance' AS distance,
       answer->>'position' AS position, answer->>'to_move' AS to_move,
       answer->>'error' || ': ' || (answer->>'detail') AS error
FROM probe
UNION ALL
SELECT m.key + 1, m.value->>'move', m.value->>'outcome', m.value->>'distance', m.value->>'position', NULL, NULL
FROM probe, json_each(probe.answer, '$.moves') AS m
ORDER BY rank"""

DESCRIPTION = (
    "Row 0 is the position, with its value for the side to move (or, in its error column, what is "
    "wrong with the input); then every legal move, best first, with what it "
    "achieves for the player making it and the position after it. Positions in any notation the "
    "command line accepts; empty for the start."
)


#: Descriptions of a tablebase database and of its tables that are not rows of positions.
DATABASE_DESCRIPTION = (
    "An exact endgame tablebase (the tablebase package). Variants stored as rows are in the views "
    "positions, move_values and best_moves; every variant, packed and dense ones too, answers through "
    "the SQL functions tb_outcome, tb_distance, tb_best, tb_probe and tb_predecessors (variant, position), "
    "and a canned query probe-VARIANT per variant. The view how_to_query says which variant is where."
)
TABLE_DESCRIPTIONS = {
    "blocks": (
        "Compressed positions of the packed and dense variants: blobs, not rows. Read them with the "
        "functions, e.g. SELECT tb_probe('connect4-5-5', '4453'), or see how_to_query."
    ),
    "how_to_query": "For each built variant: where SQL finds its values and moves, and a query to start from.",
}

#: ``is_tablebase`` by (path, size, modification time) of the files asked about.
_KNOWN: dict[tuple[str, int, int], bool] = {}


def is_tablebase(path: str | Path | None) -> bool:
    """Whether the SQLite file ``path`` holds a tablebase (its schema, of any revision)."""
    if not path:
        return False
    try:
        st = os.stat(path)
    except OSError:
        return False
    seen = (str(path), st.st_size, st.st_mtime_ns)
    found = _KNOWN.get(seen)
    if found is None:
        found = _KNOWN[seen] = _has_schema(path)
    return found


def _has_schema(path: str | Path) -> bool:
    try:
        tables = table_names(path)
    except sqlite3.Error:
        return False
    return {"alembic_version", "variants"} <= tables


def tablebase_file(datasette: Any, database: str) -> Path | None:
    """The tablebase file the functions of ``database``'s connections read: its own file when that is
    a tablebase, else the first tablebase file datasette serves (``None``: there is none)."""
    served = datasette.databases
    own = served.get(database)
    candidates = [own] + [db for name, db in served.items() if name != database]
    for db in candidates:
        path = getattr(db, "path", None)
        if path is not None and is_tablebase(path):
            return Path(path)
    return None


@hookimpl
def prepare_connection(conn: sqlite3.Connection, database: str, datasette: Any) -> None:
    """Add the SQL functions to every connection of a datasette that serves a tablebase file."""
    path = tablebase_file(datasette, database)
    if path is not None:
        register(conn, path)


@hookimpl
def get_metadata(datasette: Any, key: str, database: str | None, table: str | None) -> dict[str, Any]:
    """Descriptions of every tablebase database datasette serves and of its ``blocks`` and ``how_to_query``."""
    described = {
        name: {
            "description": DATABASE_DESCRIPTION,
            "tables": {table_name: {"description": text} for table_name, text in TABLE_DESCRIPTIONS.items()},
        }
        for name, db in datasette.databases.items()
        if is_tablebase(getattr(db, "path", None))
    }
    return {"databases": described} if described else {}


@hookimpl
def canned_queries(datasette: Any, database: str, actor: Any) -> Callable[[], Awaitable[dict[str, Any]]]:
    """``probe-VARIANT`` for each variant built into ``database`` (nothing for other databases)."""

    async def queries() -> dict[str, Any]:
        db = datasette.databases.get(database)
        if db is None or not is_tablebase(getattr(db, "path", None)):
            return {}
        rows = await db.execute("SELECT name FROM variants ORDER BY name")
        found: dict[str, Any] = {}
        for (name,) in rows:
            literal = "'" + name.replace("'", "''") + "'"
            found[f"probe-{name}"] = {
                "sql": PROBE_SQL.format(name=literal),
                "title": f"Probe a position of {name}",
                "description": DESCRIPTION,
                "params": ["position"],
            }
        return found

    return queries


__all__ = [
    "DATABASE_DESCRIPTION",
    "DESCRIPTION",
    "PROBE_SQL",
    "TABLE_DESCRIPTIONS",
    "canned_queries",
    "get_metadata",
    "is_tablebase",
    "prepare_connection",
    "tablebase_file",
]
