"""Schema revisions known to this version of the library.

Kept free of SQLAlchemy and alembic imports so that opening a database for
queries stays fast; a test checks it against the alembic scripts.
"""

from __future__ import annotations

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
