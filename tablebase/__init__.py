"""tablebase: exact endgame tablebases for the tic-tac-toe family of games, in SQLite.

>>> import tablebase
>>> with tablebase.open("tablebase.db") as tb:          # doctest: +SKIP
...     tb.variant("tictactoe").probe("x.o/.x./...").best_move
"""

from __future__ import annotations

from tablebase.errors import (
    BuildError,
    DatabaseError,
    IllegalMoveError,
    MalformedPositionError,
    SchemaVersionError,
    TablebaseError,
    UnknownVariantError,
    UnreachablePositionError,
    VariantNotBuiltError,
)
from tablebase.games import catalog, names
from tablebase.query import DEFAULT_DB, Tablebase, VariantTable, count, open
from tablebase.results import (
    Line,
    MoveValue,
    PlyCount,
    Predecessor,
    Predecessors,
    Probe,
    SolveReport,
    Stats,
    VariantInfo,
    VerifyReport,
)

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_DB",
    "BuildError",
    "DatabaseError",
    "IllegalMoveError",
    "Line",
    "MalformedPositionError",
    "MoveValue",
    "PlyCount",
    "Predecessor",
    "Predecessors",
    "Probe",
    "SchemaVersionError",
    "SolveReport",
    "Stats",
    "Tablebase",
    "TablebaseError",
    "UnknownVariantError",
    "UnreachablePositionError",
    "VariantInfo",
    "VariantNotBuiltError",
    "VariantTable",
    "VerifyReport",
    "catalog",
    "count",
    "names",
    "open",
]
