"""The read side of a tablebase file: read-only connections, snapshots, and noticing rebuilds.

:meth:`Reader.snapshot` wraps each query in a read transaction, so everything
it reads comes from one committed state of the file. Each thread reads through
a connection of its own; when another process changed the file since that
connection's last snapshot (a rebuild in place), or renamed a new file over the
path (a build into a fresh file), the connection's cache is emptied or the
connection reopened, so that variant rows are read again.

This module imports neither numpy nor SQLAlchemy.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
import weakref
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, Protocol

from tablebase.errors import DatabaseError, TablebaseError, one_line
from tablebase.results import VariantInfo
from tablebase.store.schema import UPGRADE_COMMAND, check_revision, stored_revision

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

    from tablebase.games.base import Game
    from tablebase.store.storage import Storage

#: How much of the file read-only connections map into memory.
READ_MMAP_BYTES = 1 << 30

_VARIANT_COLUMNS = (
    "id, name, family, rules, parameters, symmetry, complete, states_count, moves_count,"
    " outcome, distance, build_seconds, builder_version, built_at, storage,"
    " (SELECT group_concat(ply) FROM plies WHERE plies.variant_id = variants.id)"
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
        plies=tuple(int(p) for p in row[15].split(",")) if row[15] else (),
    )


def read_variants(conn: sqlite3.Connection) -> list[VariantInfo]:
    """Every variant row of the file, by name."""
    return [_info(r) for r in conn.execute(f"SELECT {_VARIANT_COLUMNS} FROM variants ORDER BY name")]


def read_variant(conn: sqlite3.Connection, name: str) -> tuple[int, VariantInfo] | None:
    """``(variant id, info)`` of the variant ``name``, ``None`` if it is not in the file."""
    row = conn.execute(f"SELECT {_VARIANT_COLUMNS} FROM variants WHERE name = ?", (name,)).fetchone()
    return None if row is None else (int(row[0]), _info(row))


#: Seconds a thread keeps its turn on the read side while other threads wait (see :class:`Turns`).
TURN_SECONDS = 0.005


class Turns:
    """Turns of the threads of one process at reading, each at most :data:`TURN_SECONDS` long while others wait.

    One object serves every :class:`Reader` of the process.

    Every SQLite call lets go of the interpreter lock, so threads that read at
    the same time hand it to each other several times a query, and that costs
    more than the reading. A thread that starts a snapshot waits while another
    thread's turn lasts (the other threads sleep instead of taking the lock
    from it); a thread keeps its turn across its snapshots until its time is
    up and someone waits. Waiting is bounded by the turn's length, so a turn
    never blocks anyone for longer (a thread whose turn ended in the middle of
    a long read goes on reading alongside the next one): it orders threads,
    it guards nothing.
    """

    __slots__ = ("_cond", "_owner", "_since", "_waiting", "seconds")

    def __init__(self, seconds: float = TURN_SECONDS):
        #: The length of a turn; 0 turns them off (every thread reads whenever it likes).
        self.seconds = seconds
        self.reset()

    def reset(self) -> None:
        """Forget every turn (in a child process after fork, whose other threads are gone)."""
        self._cond = threading.Condition(threading.Lock())
        self._owner = 0
        self._since = 0.0
        self._waiting = 0

    def enter(self) -> None:
        """Wait for this thread's turn (at most one turn's length)."""
        me = threading.get_ident()
        if self._owner == me:
            return
        with self._cond:
            self._waiting += 1
            try:
                while self._owner not in (0, me):
                    left = self._since + self.seconds - time.monotonic()
                    if left <= 0:
                        break
                    self._cond.wait(left)
            finally:
                self._waiting -= 1
            self._owner = me
            self._since = time.monotonic()

    def leave(self) -> None:
        """End this thread's turn if its time is up and another thread waits."""
        if not self._waiting:
            return
        with self._cond:
            if self._owner == threading.get_ident() and time.monotonic() - self._since >= self.seconds:
                self._owner = 0
                self._cond.notify()


def _file_id(path: Path) -> tuple[int, int]:
    st = os.stat(path)
    return st.st_dev, st.st_ino


class _Connection:
    """One read connection and what it has seen of the file."""

    __slots__ = ("conn", "raw", "file_id", "data_version", "generation", "depth", "closing", "cache", "__weakref__")

    def __init__(self, conn: sqlite3.Connection, raw: Any, file_id: tuple[int, int] | None, generation: int):
        self.conn = conn
        self.raw = raw
        self.file_id = file_id
        self.data_version: int = conn.execute("PRAGMA data_version").fetchone()[0]
        self.generation = generation
        #: How many snapshots of the owning thread are open on it (nested snapshots share one).
        self.depth = 0
        #: Set by :meth:`Reader.close` while a snapshot is open: the owner closes it when done.
        self.closing = False
        #: What the owner derived from the file (variant rows), dropped when the file changes.
        self.cache: dict[str, Any] = {}

    def close(self) -> None:
        if self.raw is not None:
            self.raw.close()
        else:
            self.conn.close()


class Reader:
    """Read-only connections to ``path`` (or to the database of ``engine``), opened on first use.

    Safe to share between threads: each thread reads through a connection of
    its own, so snapshots of different threads never share a transaction.
    With an engine there is one connection, and snapshots of different threads
    take turns on it. After ``fork`` the child opens connections of its own
    (the parent's are left alone). :meth:`cache` is a dictionary per
    connection for what a caller derives from the file; it is emptied when the
    file changes under that connection.
    """

    def __init__(self, path: Path, engine: Engine | None):
        self.path = path
        self.engine = engine
        self._lock = threading.Lock()
        self._serial = threading.RLock() if engine is not None else None
        self._generation = 0
        self._local = threading.local()
        self._shared: _Connection | None = None
        self._open: weakref.WeakSet[_Connection] = weakref.WeakSet()
        self._orphans: list[object] = []
        _READERS.add(self)

    def _connect(self) -> tuple[sqlite3.Connection, Any]:
        if self.engine is not None:
            try:
                raw = self.engine.raw_connection()
            except Exception as exc:
                raise DatabaseError(f"cannot open database {self.path.name!r}: {one_line(exc)}") from exc
            conn = raw.driver_connection
            if conn is None:
                raise DatabaseError(f"cannot open database {self.path.name!r}: the engine gave no connection")
            return conn, raw
        check_not_folder(self.path)
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
        return conn, None

    def _open_connection(self) -> _Connection:
        conn, raw = self._connect()
        try:
            self._check_schema(conn)
            file_id = _file_id(self.path) if raw is None else None
            opened = _Connection(conn, raw, file_id, self._generation)
        except BaseException:
            conn.close() if raw is None else raw.close()
            raise
        with self._lock:
            self._open.add(opened)
        self._set_current(opened)
        return opened

    def _set_current(self, opened: _Connection | None) -> None:
        if self.engine is not None:
            self._shared = opened
        else:
            self._local.connection = opened

    def _forked(self) -> None:
        """In a child process after fork: forget the parent's connections without closing them."""
        self._orphans.extend((self._local, self._shared, list(self._open)))
        self._lock = threading.Lock()
        self._serial = threading.RLock() if self.engine is not None else None
        self._local = threading.local()
        self._shared = None
        self._open = weakref.WeakSet()
        if self.engine is not None:
            self.engine.dispose(close=False)

    def _current(self) -> _Connection | None:
        if self._serial is not None:
            return self._shared
        return getattr(self._local, "connection", None)

    def _replaced(self, opened: _Connection) -> bool:
        """Whether another file was renamed over the path since ``opened`` opened it."""
        if opened.file_id is None:
            return False
        try:
            return _file_id(self.path) != opened.file_id
        except OSError:
            return False

    def _retire(self, opened: _Connection) -> None:
        with self._lock:
            self._open.discard(opened)
        self._set_current(None)
        opened.close()

    @contextmanager
    def snapshot(self) -> Iterator[sqlite3.Connection]:
        """A read transaction: every query inside sees the same committed state of the file.

        Snapshots nest (an inner one shares the outer one's transaction).
        Errors of the database layer come out as :class:`DatabaseError`.
        """
        serial = self._serial
        turns = None
        if serial is not None:
            serial.acquire()
        try:
            opened = self._current()
            if opened is not None and opened.depth:
                # nested in a snapshot of this thread (only the owner changes a depth above zero)
                opened.depth += 1
                try:
                    yield opened.conn
                finally:
                    opened.depth -= 1
                return
            if serial is None:
                turns = TURNS
                turns.enter()
            while True:
                if opened is not None and (opened.generation != self._generation or self._replaced(opened)):
                    self._retire(opened)
                    opened = None
                if opened is None:
                    opened = self._open_connection()
                with self._lock:
                    if opened.generation == self._generation:
                        opened.depth = 1
                        break
                # closed by another thread since the check: open a fresh one
            conn = opened.conn
            try:
                conn.execute("BEGIN")
                try:
                    version = conn.execute("PRAGMA data_version").fetchone()[0]
                    if version != opened.data_version:
                        opened.data_version = version
                        opened.cache.clear()
                    yield conn
                finally:
                    if conn.in_transaction:
                        conn.execute("COMMIT")
            except sqlite3.Error as exc:
                raise DatabaseError(f"reading {self.path.name!r} failed: {one_line(exc)}") from exc
            finally:
                with self._lock:
                    opened.depth = 0
                    closing = opened.closing
                if closing:
                    opened.close()
        finally:
            if turns is not None:
                turns.leave()
            if serial is not None:
                serial.release()

    def cached(self, key: str) -> Any:
        """``cache()[key]`` when this thread is inside a snapshot and has it, else ``None``."""
        opened = self._current()
        return opened.cache.get(key) if opened is not None and opened.depth else None

    def cache(self) -> dict[str, Any]:
        """The dictionary of this thread's connection (call inside :meth:`snapshot`)."""
        opened = self._current()
        if opened is None or not opened.depth:
            raise RuntimeError("Reader.cache() is only valid inside a snapshot")
        return opened.cache

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
        check_revision(stored_revision(conn), where)

    def close(self) -> None:
        """Close every connection; one a thread is reading through closes when its snapshot ends.

        The next use opens connections again.
        """
        with self._lock:
            self._generation += 1
            opened = list(self._open)
            self._open = weakref.WeakSet()
            busy = [c for c in opened if c.depth]
            for c in busy:
                c.closing = True
        for c in opened:
            if not c.depth and not c.closing:
                c.close()


_READERS: weakref.WeakSet[Reader] = weakref.WeakSet()
#: The turns of every reader of this process (the interpreter lock they share is the process's).
TURNS = Turns()


def _after_fork_in_child() -> None:
    TURNS.reset()
    for reader in list(_READERS):
        reader._forked()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


@contextmanager
def database_errors(path: Path) -> Iterator[None]:
    """Raise the errors of SQLite and SQLAlchemy inside the block as one-line :class:`DatabaseError`."""
    try:
        yield
    except TablebaseError:
        raise
    except sqlite3.Error as exc:
        raise DatabaseError(f"database {path.name!r}: {one_line(exc)}") from exc
    except Exception as exc:
        if type(exc).__module__.startswith("sqlalchemy"):
            raise DatabaseError(f"database {path.name!r}: {one_line(exc)}") from exc
        raise


class TablebaseFile(Protocol):
    """A tablebase file as the modules below the front object read it: its path, its reader and
    read transactions on it (:class:`tablebase.query.Tablebase` is one)."""

    @property
    def path(self) -> Path: ...

    @property
    def reader(self) -> Reader:
        """The file's read-only connections (one a thread) and the variant rows they keep."""
        ...

    def snapshot(self) -> AbstractContextManager[sqlite3.Connection]:
        """A read transaction: every query inside sees the same committed state of the file."""
        ...


class StoredVariant(Protocol):
    """A built variant as the audit and the export read it: its rules, row, storage and
    snapshots (:class:`tablebase.query.VariantTable` is one)."""

    @property
    def name(self) -> str: ...

    @property
    def game(self) -> Game: ...

    @property
    def info(self) -> VariantInfo: ...

    @property
    def storage(self) -> Storage: ...

    @property
    def tablebase(self) -> TablebaseFile: ...

    def snapshot(self) -> AbstractContextManager[sqlite3.Connection]:
        """A read-only connection holding one snapshot of the file."""
        ...

    def canonical(self, state: int) -> tuple[int, int]:
        """The stored key of ``state`` and the symmetry to it."""
        ...


#: The first bytes of every SQLite 3 database file.
SQLITE_HEADER = b"SQLite format 3\x00"


def table_names(path: str | Path) -> set[str]:
    """The names of the tables of the SQLite file ``path``, read without writing; raises :class:`sqlite3.Error`."""
    conn = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True)
    try:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    finally:
        conn.close()


def check_file(path: Path) -> None:
    """Raise :class:`DatabaseError` when ``path`` is a folder, or an existing file that is not a
    tablebase (not SQLite, or SQLite tables without the tablebase schema); a missing or empty file passes."""
    check_not_folder(path)
    if not path.is_file() or path.stat().st_size == 0:
        return
    with path.open("rb") as f:
        if f.read(len(SQLITE_HEADER)) != SQLITE_HEADER:
            raise DatabaseError(f"{str(path)!r} is not a SQLite database file")
    try:
        tables = table_names(path)
    except sqlite3.Error as exc:
        raise DatabaseError(f"cannot read database {str(path)!r}: {one_line(exc)}") from exc
    if tables and "alembic_version" not in tables:
        raise DatabaseError(f"{str(path)!r} is a SQLite database but not a tablebase (it has other tables)")


def check_not_folder(path: Path) -> None:
    """Raise :class:`DatabaseError` when ``path`` names a folder instead of a database file."""
    if path.is_dir():
        raise DatabaseError(f"{str(path)!r} is a folder; name a database file, e.g. --db {path / 'tablebase.db'}")


__all__ = [
    "READ_MMAP_BYTES",
    "TURNS",
    "TURN_SECONDS",
    "Reader",
    "StoredVariant",
    "TablebaseFile",
    "Turns",
    "check_file",
    "check_not_folder",
    "database_errors",
    "one_line",
    "read_variant",
    "read_variants",
    "table_names",
]
