"""SQL functions (``tb_outcome``, ``tb_probe``, ...) for sqlite3, SQLAlchemy and datasette.

Every variant answers through SQL, whatever its storage (rows,
``packed`` blocks, ``dense`` value arrays): the functions read through the
library, the same code as ``tablebase probe``::

    import tablebase.sql
    conn = tablebase.sql.connect("tablebase.db")
    conn.execute("SELECT tb_outcome('connect4-5-5', '4453')").fetchone()     # ('win',) or another value
    conn.execute(
        "SELECT m.value->>'move', m.value->>'outcome', m.value->>'distance'"
        " FROM json_each(tb_probe('connect4-5-5', '4453'), '$.moves') AS m"
    ).fetchall()

The functions, ``variant`` a variant name and ``position`` any notation the
command line accepts (Connect Four's column digits too; an integer is read as
its digits); the one-argument forms ask about the start position:

``tb_outcome(variant[, position])``
    ``'win'``, ``'draw'`` or ``'loss'`` for the side to move;
``tb_distance(variant[, position])``
    plies to the end under perfect play (NULL for a draw that can go on for ever);
``tb_best(variant[, position])``
    the name of the best move (NULL when the game is over);
``tb_probe(variant[, position])``
    the JSON of ``tablebase probe --json`` and of ``GET /api/{variant}``;
``tb_predecessors(variant[, position])``
    the JSON of ``tablebase predecessors --json``.

Bad input never aborts a query: the value functions (``tb_outcome``,
``tb_distance``, ``tb_best``) give NULL, the JSON ones (``tb_probe``,
``tb_predecessors``) give the HTTP API's error object
``{"error": kind, "detail": message}`` (kinds ``malformed_position``,
``unknown_variant``, ``variant_not_built``, ``unreachable_position``,
``database_error``, ...). A NULL argument gives NULL.

Where they are registered: :func:`connect` (a ``sqlite3`` connection, the
tablebase file read-only, temporary tables and attached files writable),
:func:`engine` (an SQLAlchemy engine whose every connection has them, for
``pandas.read_sql``), :func:`register` (any ``sqlite3`` connection, reading
a tablebase file named separately), and the datasette plugin
(:mod:`tablebase.datasette_plugin`). The functions of one connection share
one reader of the file and one :class:`~tablebase.variant.VariantTable` per
variant.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, TypeVar

from tablebase.errors import DatabaseError, MalformedPositionError, TablebaseError, UnknownVariantError, error_dict
from tablebase.query import DEFAULT_DB, Tablebase
from tablebase.reader import check_file

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

    from tablebase.variant import VariantTable

T = TypeVar("T")

#: The SQL functions every registration adds, each with one and two arguments.
FUNCTIONS = ("tb_outcome", "tb_distance", "tb_best", "tb_probe", "tb_predecessors")


def _text(value: object, what: str) -> str:
    """``value`` as a SQL function received it, as text (an integer as its digits)."""
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return str(value)
    kind = {float: "a real number", bytes: "a blob"}.get(type(value), type(value).__name__)
    error = UnknownVariantError if what == "variant" else MalformedPositionError
    raise error(f"{what} must be text, got {kind}: {value!r}")


def _dumps(data: Any) -> str:
    """JSON text as the HTTP API writes it (compact, UTF-8)."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def _null(exc: TablebaseError) -> None:
    """A wrong variant or position as SQL NULL."""
    return None


def _best_move(table: VariantTable, position: str | None) -> str | None:
    best = table.probe(position).best_move
    return None if best is None else best.move


class Functions:
    """The SQL functions of one connection, reading the tablebase file ``path``."""

    def __init__(self, path: str | os.PathLike[str]):
        self.path = Path(path)
        self.tablebase = Tablebase(self.path)
        self._tables: dict[str, VariantTable] = {}

    def close(self) -> None:
        """Close the reader of the file (the next call opens it again)."""
        self.tablebase.close()
        self._tables.clear()

    def table(self, variant: object) -> VariantTable:
        """The built variant ``variant``, resolved once per connection."""
        if isinstance(variant, str):
            found = self._tables.get(variant)
            if found is not None:
                return found
        name = _text(variant, "variant")
        table = self._tables[name] = self.tablebase.variant(name)
        return table

    # -- the functions: (variant, position) with position None for the start ---------------------

    def _answer(
        self,
        variant: object,
        position: object,
        answer: Callable[[VariantTable, str | None], T],
        failed: Callable[[TablebaseError], T],
    ) -> T:
        """``answer`` of the built variant and the position (``None``: the start); ``failed`` of
        the error when either is wrong."""
        try:
            table = self.table(variant)
            return answer(table, None if position is None else _text(position, "position"))
        except TablebaseError as exc:
            return failed(exc)

    def _error(self, exc: TablebaseError) -> str:
        return _dumps(error_dict(exc, self.path))

    def outcome(self, variant: object, position: object) -> str | None:
        return self._answer(variant, position, lambda table, at: table.value(at)[0], _null)

    def distance(self, variant: object, position: object) -> int | None:
        return self._answer(variant, position, lambda table, at: table.value(at)[1], _null)

    def best(self, variant: object, position: object) -> str | None:
        return self._answer(variant, position, _best_move, _null)

    def probe(self, variant: object, position: object) -> str:
        return self._answer(variant, position, lambda table, at: _dumps(table.probe(at).to_dict()), self._error)

    def predecessors(self, variant: object, position: object) -> str:
        return self._answer(variant, position, lambda table, at: _dumps(table.predecessors(at).to_dict()), self._error)

    def sql(self) -> dict[str, Callable[[object, object], Any]]:
        """Each SQL function's name and its body of two arguments."""
        return {
            "tb_outcome": self.outcome,
            "tb_distance": self.distance,
            "tb_best": self.best,
            "tb_probe": self.probe,
            "tb_predecessors": self.predecessors,
        }


def _strict(body: Callable[[object, object], Any]) -> Callable[[object, object], Any]:
    """``body`` of two arguments giving NULL for a NULL argument."""

    def call(variant: object, position: object) -> Any:
        if variant is None or position is None:
            return None
        return body(variant, position)

    return call


def _start(body: Callable[[object, object], Any]) -> Callable[[object], Any]:
    """``body`` asked about the start position: the one-argument form."""

    def call(variant: object) -> Any:
        return None if variant is None else body(variant, None)

    return call


def register(conn: sqlite3.Connection, path: str | os.PathLike[str]) -> Functions:
    """Add the functions of :data:`FUNCTIONS` to ``conn``, reading the tablebase file ``path``
    (which need not be the file ``conn`` opened); returns what answers them."""
    functions = Functions(path)
    for name, body in functions.sql().items():
        conn.create_function(name, 2, _strict(body), deterministic=True)
        conn.create_function(name, 1, _start(body), deterministic=True)
    return functions


def check(path: str | os.PathLike[str]) -> Path:
    """``path`` as a :class:`~pathlib.Path` once it is known to be a tablebase file this library reads;
    raises :class:`DatabaseError` (the file is missing, not a tablebase, or of another schema
    revision: the message names the upgrade command) otherwise."""
    path = Path(path)
    check_file(path)
    with Tablebase(path) as tb:
        tb.variants()
    return path


def _uri(path: Path, read_only: bool) -> str:
    return path.resolve().as_uri() + ("?mode=ro" if read_only else "")


class Connection(sqlite3.Connection):
    """A ``sqlite3`` connection with the tablebase functions; :meth:`close` also closes their reader."""

    functions: Functions

    def close(self) -> None:
        super().close()
        functions = getattr(self, "functions", None)
        if functions is not None:
            functions.close()


def connect(path: str | os.PathLike[str] = DEFAULT_DB, *, read_only: bool = True, **options: Any) -> Connection:
    """A ``sqlite3`` connection to the tablebase file ``path`` with the functions of :data:`FUNCTIONS`.

    The file is opened read-only unless ``read_only`` is false; temporary tables and
    databases attached (``ATTACH 'games.db' AS g``) can still be written, so a table of
    positions can be joined with the functions. ``options`` go to :func:`sqlite3.connect`.
    Raises :class:`~tablebase.errors.DatabaseError` when ``path`` is not a tablebase file
    of this library's schema revision.
    """
    path = check(path)
    try:
        conn = sqlite3.connect(_uri(path, read_only), uri=True, factory=Connection, **options)
    except sqlite3.Error as exc:
        raise DatabaseError(f"cannot open database {str(path)!r}: {exc}") from exc
    conn.functions = register(conn, path)
    return conn


def engine(path: str | os.PathLike[str] = DEFAULT_DB, *, read_only: bool = True, **options: Any) -> Engine:
    """An SQLAlchemy engine on the tablebase file ``path`` whose every connection has the functions
    of :data:`FUNCTIONS` (registered by a ``connect`` event listener), read-only as in :func:`connect`;
    ``options`` go to :func:`sqlalchemy.create_engine`.

    >>> pandas.read_sql("SELECT tb_outcome('tictactoe') AS outcome", tablebase.sql.engine())  # doctest: +SKIP
    """
    from sqlalchemy import URL, create_engine, event

    path = check(path)
    query = {"uri": "true", **({"mode": "ro"} if read_only else {})}
    made = create_engine(URL.create("sqlite+pysqlite", database=path.resolve().as_uri(), query=query), **options)

    def on_connect(dbapi_connection: Any, _record: Any) -> None:
        register(dbapi_connection, path)

    event.listen(made, "connect", on_connect)
    return made


__all__ = ["FUNCTIONS", "Connection", "Functions", "check", "connect", "engine", "register"]
