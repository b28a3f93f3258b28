"""Exceptions raised by the tablebase library.

Every error derives from :class:`TablebaseError`; errors about bad input also
derive from :class:`ValueError`, errors about missing data from
:class:`KeyError`. Messages are one line and quote what the user gave.
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from pathlib import Path

#: The most characters of one input that an error message quotes (enough for a whole
#: position of Ultimate tic-tac-toe, 93 to 113 characters, so it can be copied from the message).
QUOTE_LIMIT = 120

#: A quoted string (a ``repr``) longer than :data:`QUOTE_LIMIT` characters inside a message.
_LONG_QUOTE = re.compile(r"'(?:[^'\\\n]|\\.){%d,}'|\"(?:[^\"\\\n]|\\.){%d,}\"" % (QUOTE_LIMIT + 1, QUOTE_LIMIT + 1))


def quote(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``repr(text)``, cut to its first ``limit`` characters when longer.

    >>> quote("x" * 100, limit=5)
    "'xxxxx'... (100 characters)"
    """
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text):,} characters)"


def shorten_quotes(message: str) -> str:
    """``message`` with every quoted string longer than :data:`QUOTE_LIMIT` characters cut by :func:`quote`."""
    return _LONG_QUOTE.sub(_shorten, message)


def _shorten(match: re.Match[str]) -> str:
    try:
        text = ast.literal_eval(match.group())
    except (ValueError, SyntaxError):
        return match.group()
    return quote(text) if isinstance(text, str) else match.group()


class TablebaseError(Exception):
    """Base class of every error the library raises on purpose.

    The message quotes at most :data:`QUOTE_LIMIT` characters of any string
    it quotes: a 60 KB position comes back as its start and its length.
    """

    #: The stable name of the error in JSON replies (``{"error": kind, "detail": message}``).
    kind: ClassVar[str] = "tablebase_error"

    def __str__(self) -> str:
        # KeyError would otherwise repr() its message.
        return shorten_quotes(str(self.args[0]) if self.args else self.__class__.__name__)


class UnknownVariantError(TablebaseError, ValueError):
    """The variant name is not registered or its parameters are out of range."""

    kind = "unknown_variant"


class MalformedPositionError(TablebaseError, ValueError):
    """A position string cannot be parsed or describes an impossible board."""

    kind = "malformed_position"


class IllegalMoveError(TablebaseError, ValueError):
    """A move string cannot be parsed or is not legal in the position."""

    kind = "illegal_move"


class UnreachablePositionError(TablebaseError, KeyError):
    """A well-formed position that is not in the tablebase (not reachable from the start)."""

    kind = "unreachable_position"


class VariantNotBuiltError(TablebaseError, KeyError):
    """The variant exists but has not been built into this database."""

    kind = "variant_not_built"


class DatabaseError(TablebaseError):
    """The database file is missing, not a tablebase, or cannot be written."""

    kind = "database_error"


class SchemaVersionError(DatabaseError):
    """The database schema is older or newer than this version of the library."""


class BuildError(TablebaseError):
    """A build could not be completed; the database is left as it was."""

    kind = "build_error"


def error_dict(exc: TablebaseError, path: Path | None = None) -> dict[str, str]:
    """The JSON of an error: ``{"error": exc.kind, "detail": message}``, the database ``path`` named
    by its file name only (the HTTP API and the SQL functions answer with it)."""
    detail = str(exc)
    if path is not None:
        for shown in sorted({str(path.resolve()), str(path.absolute()), str(path)}, key=len, reverse=True):
            detail = detail.replace(shown, path.name)
    return {"error": exc.kind, "detail": detail}


def one_line(exc: BaseException) -> str:
    """The first line of an exception's message (SQLAlchemy appends a second one with a link)."""
    text = str(getattr(exc, "orig", None) or exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
