"""Exceptions raised by the tablebase library.

Every error derives from :class:`TablebaseError`; errors about bad input also
derive from :class:`ValueError`, errors about missing data from
:class:`KeyError`. Messages are one line and quote what the user gave.
"""

from __future__ import annotations


class TablebaseError(Exception):
    """Base class of every error the library raises on purpose."""

    def __str__(self) -> str:
        # KeyError would otherwise repr() its message.
        return str(self.args[0]) if self.args else self.__class__.__name__


class UnknownVariantError(TablebaseError, ValueError):
    """The variant name is not registered or its parameters are out of range."""


class MalformedPositionError(TablebaseError, ValueError):
    """A position string cannot be parsed or describes an impossible board."""


class IllegalMoveError(TablebaseError, ValueError):
    """A move string cannot be parsed or is not legal in the position."""


class UnreachablePositionError(TablebaseError, KeyError):
    """A well-formed position that is not in the tablebase (not reachable from the start)."""


class VariantNotBuiltError(TablebaseError, KeyError):
    """The variant exists but has not been built into this database."""


class DatabaseError(TablebaseError):
    """The database file is missing, not a tablebase, or cannot be written."""


class SchemaVersionError(DatabaseError):
    """The database schema is older or newer than this version of the library."""


class BuildError(TablebaseError):
    """A build could not be completed; the database is left as it was."""
