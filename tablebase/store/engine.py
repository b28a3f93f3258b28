"""SQLAlchemy engines for tablebase files, and running the alembic migrations."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, event, inspect
from sqlalchemy.engine import Engine

from tablebase.errors import DatabaseError, SchemaVersionError
from tablebase.store.schema import HEAD, REVISIONS


def make_engine(path: str | Path) -> Engine:
    """An engine on the SQLite file ``path`` with the pragmas the tablebase relies on."""
    engine = create_engine(f"sqlite:///{path}")
    configure(engine)
    return engine


def configure(engine: Engine) -> None:
    """Install the connection pragmas (WAL, foreign keys, busy timeout) on ``engine``."""

    @event.listens_for(engine, "connect")
    def _pragmas(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA busy_timeout = 30000")
        cursor.execute("PRAGMA foreign_keys = ON")
        try:
            cursor.execute("PRAGMA journal_mode = WAL")
        except sqlite3.OperationalError:
            pass
        cursor.close()


def migrations_path() -> Path:
    """The folder of the alembic environment, located from the installed package."""
    import migrations

    return Path(migrations.__file__).resolve().parent


def alembic_config(engine: Engine) -> Any:
    """An alembic ``Config`` pointing at the packaged migrations and at ``engine``."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(migrations_path()))
    config.set_main_option("sqlalchemy.url", engine.url.render_as_string(hide_password=False).replace("%", "%%"))
    return config


def current_revision(engine: Engine) -> str | None:
    """The schema revision stored in the database, ``None`` for an empty database."""
    try:
        with engine.connect() as conn:
            tables = set(inspect(conn).get_table_names())
            if "alembic_version" not in tables:
                if tables:
                    raise DatabaseError(f"{engine.url.database!r} is not a tablebase database")
                return None
            return conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar()
    except DatabaseError:
        raise
    except Exception as exc:
        reason = getattr(exc, "orig", None) or exc  # the driver's one-line message, not SQLAlchemy's two lines
        raise DatabaseError(f"cannot read database {engine.url.database!r}: {reason}") from exc


#: The first bytes of every SQLite 3 database file.
SQLITE_HEADER = b"SQLite format 3\x00"


def check_file(path: Path) -> None:
    """Raise :class:`DatabaseError` when ``path`` is a folder, or an existing file that is not a
    tablebase (not SQLite, or SQLite tables without the tablebase schema); a missing or empty file passes."""
    if path.is_dir():
        raise DatabaseError(f"{str(path)!r} is a folder; name a database file, e.g. --db {path / 'tablebase.db'}")
    if not path.is_file() or path.stat().st_size == 0:
        return
    with path.open("rb") as f:
        if f.read(len(SQLITE_HEADER)) != SQLITE_HEADER:
            raise DatabaseError(f"{str(path)!r} is not a SQLite database file")
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise DatabaseError(f"cannot read database {str(path)!r}: {exc}") from exc
    if tables and "alembic_version" not in tables:
        raise DatabaseError(f"{str(path)!r} is a SQLite database but not a tablebase (it has other tables)")


def upgrade(engine: Engine) -> tuple[str | None, str]:
    """Bring the schema to the newest revision with alembic; returns (before, after)."""
    from alembic import command

    before = current_revision(engine)
    if before is not None and before not in REVISIONS:
        raise SchemaVersionError(
            f"database {engine.url.database!r} has schema revision {before!r}, newer than this "
            f"version of tablebase (latest {HEAD!r}); upgrade the tablebase package"
        )
    if before != HEAD:
        config = alembic_config(engine)
        with engine.begin() as conn:
            config.attributes["connection"] = conn
            command.upgrade(config, "head")
    return before, HEAD
