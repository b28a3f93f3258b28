"""SQLAlchemy engines for tablebase files, and running the alembic migrations."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, event, inspect
from sqlalchemy.engine import Engine

from tablebase.errors import DatabaseError, SchemaVersionError, one_line
from tablebase.store.schema import HEAD, REVISIONS, apply_pragmas


def make_engine(path: str | Path) -> Engine:
    """An engine on the SQLite file ``path`` with the pragmas the tablebase relies on."""
    engine = create_engine(f"sqlite:///{path}")
    configure(engine)
    return engine


def configure(engine: Engine) -> None:
    """Install the connection pragmas (WAL, foreign keys, busy timeout) on ``engine``."""

    @event.listens_for(engine, "connect")
    def _pragmas(dbapi_connection: Any, _record: Any) -> None:
        apply_pragmas(dbapi_connection)


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
        raise DatabaseError(f"cannot read database {engine.url.database!r}: {one_line(exc)}") from exc


def upgrade(engine: Engine) -> tuple[str | None, str]:
    """Bring the schema to the newest revision with alembic; returns (before, after)."""
    before = current_revision(engine)
    if before is not None and before not in REVISIONS:
        raise SchemaVersionError(
            f"database {engine.url.database!r} has schema revision {before!r}, newer than this "
            f"version of tablebase (latest {HEAD!r}); upgrade the tablebase package"
        )
    if before != HEAD:
        from alembic import command

        config = alembic_config(engine)
        with engine.begin() as conn:
            config.attributes["connection"] = conn
            command.upgrade(config, "head")
    return before, HEAD
