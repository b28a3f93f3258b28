"""The read side of a tablebase file: a read-only connection, snapshots, and noticing rebuilds.

Queries read through one read-only SQLite connection (or a connection of an
engine the user passed in). :meth:`Reader.snapshot` wraps each query in a read
transaction, so everything it reads comes from one committed state of the
file; when another connection changed the file since the last snapshot (a
rebuild in place), or renamed a new file over the path (a states-only build
into an empty file), the reader reopens and calls ``on_change`` so that cached
variant rows are read again.

This module imports neither numpy nor SQLAlchemy.
"""

from __future__ import annotations

import json
import os
import sqlite3
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator

from tablebase.errors import DatabaseError
from tablebase.results import VariantInfo
from tablebase.store.schema import UPGRADE_COMMAND, check_revision

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

#: How much of the file read-only connections map into memory.
READ_MMAP_BYTES = 1 << 30

_VARIANT_COLUMNS = (
    "id, name, family, rules, parameters, symmetry, complete, states_count, moves_count,"
    " outcome, distance, build_seconds, builder_version, built_at, storage"
)


def _info(row: tuple[Any, ...]) -> VariantInfo:
    return VariantInfo(
        name=row[1],
        family=row[2],
        rules=row[3],
        parameters=json.loads(row[4]) if row[4] else {},
        symmetry=bool(row[5]),
        complete=bool(row[6]),
        states=row[7],
        moves=row[8],
        outcome=row[9],
        distance=row[10],
        build_seconds=row[11],
        builder_version=row[12],
        built_at=str(row[13]),
        storage=row[14],
    )


def read_variants(conn: sqlite3.Connection) -> list[VariantInfo]:
    """Every variant row of the file, by name."""
    return [_info(r) for r in conn.execute(f"SELECT {_VARIANT_COLUMNS} FROM variants ORDER BY name")]


def read_variant(conn: sqlite3.Connection, name: str) -> tuple[int, VariantInfo] | None:
    """``(variant id, info)`` of the variant ``name``, ``None`` if it is not in the file."""
    row = conn.execute(f"SELECT {_VARIANT_COLUMNS} FROM variants WHERE name = ?", (name,)).fetchone()
    return None if row is None else (int(row[0]), _info(row))


def _file_id(path: Path) -> tuple[int, int]:
    st = os.stat(path)
    return st.st_dev, st.st_ino


class Reader:
    """A read-only connection to ``path`` (or a connection of ``engine``), opened on first use.

    ``on_change(conn)`` is called inside the first snapshot after the file
    changed under the connection.
    """

    def __init__(self, path: Path, engine: Engine | None, on_change: Callable[[sqlite3.Connection], None]):
        self.path = path
        self.engine = engine
        self.on_change = on_change
        self._conn: sqlite3.Connection | None = None
        self._raw: Any = None
        self._data_version: int | None = None
        self._file_id: tuple[int, int] | None = None

    def connection(self) -> sqlite3.Connection:
        """The open connection (opened and its schema checked on first use)."""
        if self._conn is not None:
            return self._conn
        if self.engine is not None:
            self._raw = self.engine.raw_connection()
            conn: sqlite3.Connection = self._raw.driver_connection
        else:
            if not self.path.exists():
                raise DatabaseError(
                    f"database {str(self.path)!r} does not exist; build a variant first: "
                    f"tablebase build tictactoe --db {self.path}"
                )
            try:
                conn = sqlite3.connect(
                    f"{self.path.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False, isolation_level=None
                )
                conn.execute("PRAGMA busy_timeout = 30000")
                # probes read pages through the memory map instead of one read() call per page
                conn.execute(f"PRAGMA mmap_size = {READ_MMAP_BYTES}").fetchall()
            except sqlite3.Error as exc:
                raise DatabaseError(f"cannot open database {str(self.path)!r}: {exc}") from exc
        self._check_schema(conn)
        self._conn = conn
        self._file_id = _file_id(self.path) if self._raw is None else None
        self._data_version = conn.execute("PRAGMA data_version").fetchone()[0]
        return conn

    def _replaced(self) -> bool:
        """Whether another file was renamed over the path since the connection opened it."""
        if self._file_id is None:
            return False
        try:
            return _file_id(self.path) != self._file_id
        except OSError:
            return False

    @contextmanager
    def snapshot(self) -> Iterator[sqlite3.Connection]:
        """A read transaction: every query inside sees the same committed state of the file."""
        conn = self.connection()
        if conn.in_transaction:
            yield conn
            return
        replaced = self._replaced()
        if replaced:
            self.close()
            conn = self.connection()
        conn.execute("BEGIN")
        try:
            version = conn.execute("PRAGMA data_version").fetchone()[0]
            if replaced or version != self._data_version:
                self._data_version = version
                self.on_change(conn)
            yield conn
        finally:
            conn.execute("COMMIT")

    def _check_schema(self, conn: sqlite3.Connection) -> None:
        where = str(self.path)
        try:
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        except sqlite3.DatabaseError as exc:
            raise DatabaseError(f"{where!r} is not a tablebase database ({exc})") from exc
        if "alembic_version" not in tables:
            raise DatabaseError(
                f"{where!r} is not a tablebase database (no schema); "
                f"build a variant into it or run '{UPGRADE_COMMAND} --db {where}'"
            )
        row = conn.execute("SELECT version_num FROM alembic_version").fetchone()
        check_revision(row[0] if row else None, where)

    def close(self) -> None:
        """Close the connection (the next use opens it again)."""
        if self._conn is not None:
            if self._raw is not None:
                self._raw.close()
                self._raw = None
            else:
                self._conn.close()
            self._conn = None


__all__ = ["READ_MMAP_BYTES", "Reader", "read_variant", "read_variants"]
