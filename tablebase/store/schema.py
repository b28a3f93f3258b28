"""Schema revisions known to this version of the library, the revision a file has, and plain
SQLite connections that write to a file whose schema is current.

Kept free of SQLAlchemy and alembic imports so that opening a database for
queries, and small writes such as a first probe's, stay fast; a test checks
the revisions against the alembic scripts.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

#: Alembic revisions in order; the last one is what this library expects.
REVISIONS: tuple[str, ...] = ("0001_initial", "0002_storage", "0003_plies", "0004_views", "0005_packed", "0006_ply_outcomes", "0007_how_to_query")
HEAD = REVISIONS[-1]

UPGRADE_COMMAND = "tablebase db upgrade"


def check_revision(revision: str | None, where: str) -> None:
    """Raise :class:`SchemaVersionError` unless ``revision`` is the one this library expects."""
    from tablebase.errors import SchemaVersionError

    if revision == HEAD:
        return
    if revision in REVISIONS:
        raise SchemaVersionError(
            f"database {where!r} has schema revision {revision!r}, this version needs {HEAD!r}: "
            f"run '{UPGRADE_COMMAND} --db {where}'"
        )
    raise SchemaVersionError(
        f"database {where!r} has schema revision {revision!r}, newer than this version of "
        f"tablebase (latest {HEAD!r}); upgrade the tablebase package"
    )


def apply_pragmas(conn: sqlite3.Connection) -> None:
    """Set what every writing connection relies on: a busy timeout, foreign keys, write-ahead logging."""
    conn.execute("PRAGMA busy_timeout = 30000")
    conn.execute("PRAGMA foreign_keys = ON")
    try:
        conn.execute("PRAGMA journal_mode = WAL").fetchall()
    except sqlite3.OperationalError:
        pass


def stored_revision(conn: sqlite3.Connection) -> str | None:
    """The schema revision recorded in the database of ``conn`` (which has alembic's table)."""
    row = conn.execute("SELECT version_num FROM alembic_version").fetchone()
    return row[0] if row else None


def file_revision(path: Path) -> str | None:
    """The schema revision of the SQLite file ``path``, ``None`` when it has none or cannot be read."""
    if not path.is_file():
        return None
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            return stored_revision(conn)
        finally:
            conn.close()
    except sqlite3.Error:
        return None


def connect_writer(path: Path) -> sqlite3.Connection:
    """A plain SQLite connection to write ``path`` with (transactions begun and ended by the caller)."""
    conn = sqlite3.connect(path, isolation_level=None)
    apply_pragmas(conn)
    return conn
