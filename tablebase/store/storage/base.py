"""The storage protocol, the values it speaks in, and the base the storages share.

Readers pass an open :class:`sqlite3.Connection` (inside the read
transaction of the caller) to every read method; a storage object holds no
connection, so one object serves any number of connections. States given
to and returned by the read methods are the game's integers; lookups take
canonical states (one representative per symmetry class when the variant
has symmetry reduction) and return values as stored, for the side to move
there. :class:`BaseStorage` holds what the built-in storages answer alike.
"""

from __future__ import annotations

import sqlite3
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Callable, ClassVar, Iterator, NamedTuple, Protocol, Sequence

from tablebase.errors import BuildError
from tablebase.outcome import Outcome

if TYPE_CHECKING:
    import os
    from pathlib import Path

    import numpy as np
    from sqlalchemy.engine import Engine

    from tablebase.games.base import Game
    from tablebase.games.tiering import TierSearch
    from tablebase.solve import Progress, Solution
    from tablebase.solve.executor import Executor
    from tablebase.store.states import Layers

#: ``(outcome, distance)`` of a stored position, for its side to move.
Value = tuple[Outcome, "int | None"]
#: A row of the ``plies`` table: ``(ply, positions, classes, wins, losses, draws, terminal,
#: win_positions, loss_positions, draw_positions)``; the last three are ``None`` when not counted.
PlyRow = tuple[int, int, int, int, int, int, int, "int | None", "int | None", "int | None"]
#: A stored row: ``(ref, key, to_move, terminal, outcome, distance)``.
Row = tuple[int, str, str, bool, Outcome, "int | None"]


class Entry(NamedTuple):
    """One stored position: its value, whether the game is over there, and the storage's reference to it."""

    outcome: Outcome
    distance: int | None
    terminal: bool
    #: The storage's handle on the stored row (a row id where there is one); the ``ref`` of :class:`Row`.
    ref: int


class StateChunk(NamedTuple):
    """A chunk of stored positions as columns, in the storage's row order (what ``verify`` reads)."""

    #: The storage's reference of each row (``np.int64``), increasing.
    refs: np.ndarray
    keys: list[str]
    to_move: list[str]
    terminal: np.ndarray
    #: :class:`tablebase.outcome.Code` of each row (0 for a label outside the vocabulary).
    outcome: np.ndarray
    #: Distances (``np.int64``), :data:`tablebase.outcome.NO_DISTANCE` for none.
    distance: np.ndarray
    #: The positions as integers (``np.uint64``) when the storage keeps them so; ``None``: parse ``keys``.
    states: np.ndarray | None = None


class EdgeChunk(NamedTuple):
    """A chunk of stored moves: ``from_refs[i]`` goes by ``moves[i]`` (notation text) to ``to_refs[i]``."""

    from_refs: np.ndarray
    moves: list[str]
    to_refs: np.ndarray


class Storage(Protocol):
    """What the query layer, ``verify`` and the builder need from a storage."""

    #: The name stored in ``variants.storage``.
    name: ClassVar[str]
    #: How listings say where the moves come from when they are not stored (``"states only"``).
    label: ClassVar[str]
    #: Whether the storage keeps the moves (``moves_count`` is then the number of moves rows).
    stores_moves: ClassVar[bool]
    #: Whether :meth:`write_layers` can store an out-of-core build.
    out_of_core: ClassVar[bool]
    #: Whether the storage solves a variant itself (:meth:`build`) instead of storing a solver's result.
    solves: ClassVar[bool]
    #: Whether :meth:`lookup` and :meth:`moves` take a position in any orientation (its canonical
    #: form need not be found first; the moves are then named in the orientation given).
    any_orientation: ClassVar[bool]

    game: Game
    variant_id: int
    symmetry: bool

    def __init__(self, game: Game, variant_id: int, symmetry: bool) -> None:
        """The storage of the variant row ``variant_id``, a variant of ``game`` (reduced by symmetry or not)."""
        ...

    # -- positions -------------------------------------------------------------

    def lookup(self, conn: sqlite3.Connection, state: int) -> Entry | None:
        """The stored entry of the canonical ``state``, ``None`` if it is not stored."""
        ...

    def values(self, conn: sqlite3.Connection, states: Sequence[int]) -> list[Value | None]:
        """The value of each canonical state (in the order given), ``None`` for those not stored."""
        ...

    def moves(self, conn: sqlite3.Connection, state: int, entry: Entry) -> list[tuple[int, Value | None]]:
        """Each move of the canonical, non-terminal ``state`` (its code in that orientation) with the
        stored value of the position it leads to (``None`` when that is not stored)."""
        ...

    def parents(self, conn: sqlite3.Connection, state: int, entry: Entry) -> set[tuple[int, int]]:
        """``(parent, move)`` for every stored position one move before ``state``, in the orientation
        of ``state`` (which need not be canonical; ``entry`` is its canonical form's entry)."""
        ...

    def probe(self, conn: sqlite3.Connection, state: int) -> tuple[Entry | None, list[tuple[int, Value | None]]]:
        """:meth:`lookup` of the canonical ``state`` and, unless it is missing or terminal, its :meth:`moves`."""
        ...

    def search(self, connect: Callable[[], AbstractContextManager[sqlite3.Connection]]) -> TierSearch | None:
        """A search of the positions the storage does not hold that reads what it holds, through
        connections ``connect`` opens (a variant built tier by tier: the game's
        :meth:`~tablebase.games.tiering.DenseTiers.search`); ``None`` for none."""
        ...

    # -- whole tables ----------------------------------------------------------

    def rows(self, conn: sqlite3.Connection) -> Iterator[Row]:
        """Every stored position, in the storage's order."""
        ...

    def move_rows(self, conn: sqlite3.Connection) -> Iterator[tuple[int, str, int]]:
        """Every stored move as ``(from ref, move, to ref)``; nothing when moves are not stored."""
        ...

    def plies(self, conn: sqlite3.Connection) -> list[PlyRow]:
        """The rows of the ``plies`` table, by ply."""
        ...

    # -- what verify reads -----------------------------------------------------

    def state_chunks(self, conn: sqlite3.Connection, size: int) -> Iterator[StateChunk]:
        """Every stored position as column chunks of at most ``size`` rows."""
        ...

    def edge_chunks(self, conn: sqlite3.Connection, size: int) -> Iterator[EdgeChunk] | None:
        """Every stored move in chunks, ordered by ``from_refs``; ``None`` when moves are not stored."""
        ...

    def key(self, conn: sqlite3.Connection, ref: int) -> str:
        """The key of the stored row ``ref`` (for messages)."""
        ...

    def sorted_layers(
        self, conn: sqlite3.Connection, on_error: Callable[[str], None], plies: tuple[int, int] | None = None
    ) -> Iterator[tuple[int, np.ndarray, np.ndarray, np.ndarray]] | None:
        """Per ply (only the plies ``plies``, inclusive, if given), in order: ``(ply, states, outcome codes,
        distances)`` with the states sorted, when the storage keeps them so (``None`` otherwise); parts
        that cannot be read are passed to ``on_error``."""
        ...

    def sample(self, conn: sqlite3.Connection, count: int, seed: int) -> list[Row]:
        """``count`` stored rows drawn at random (repeatably for one ``seed``)."""
        ...

    def check_labels(
        self, conn: sqlite3.Connection, on_error: Callable[[str], None], progress: Progress | None
    ) -> int | None:
        """Check every stored label against its children by the storage's own means: the number of
        positions checked, disagreements passed to ``on_error``; ``None`` when the storage has no such check."""
        ...

    # -- writing ---------------------------------------------------------------

    @classmethod
    def check_game(cls, game: Game) -> None:
        """Raise :class:`BuildError` if this storage cannot store ``game``."""
        ...

    @classmethod
    def write_solution(
        cls, solution: Solution, *, engine: Engine, path: Path | None, seconds: float, progress: Progress | None
    ) -> None:
        """Replace the variant in the file with an in-memory solution, atomically.

        ``path`` is ``None`` when the tablebase wraps an engine it was given.
        """
        ...

    @classmethod
    def write_layers(cls, layers: Layers, *, path: Path, seconds: float, progress: Progress | None) -> None:
        """Replace the variant with the finished layers of an out-of-core build, atomically."""
        ...

    @classmethod
    def build(
        cls, game: Game, *, path: Path, progress: Progress | None, executor: Executor | None = None,
        build_dir: str | os.PathLike[str] | None = None,
    ) -> None:
        """Solve and store ``game`` (storages that :attr:`solve` only), replacing an earlier build atomically:
        in this process, or in tasks run by ``executor`` with their files in ``build_dir`` (default: a
        folder next to the file)."""
        ...


def read_plies(conn: sqlite3.Connection, variant_id: int) -> list[PlyRow]:
    """The variant's rows of the ``plies`` table (which every writer fills), as :meth:`Storage.plies` returns them."""
    rows: list[PlyRow] = conn.execute(
        "SELECT ply, positions, classes, wins, losses, draws, terminal, win_positions, loss_positions, draw_positions"
        " FROM plies WHERE variant_id = ? ORDER BY ply",
        (variant_id,),
    ).fetchall()
    return rows


class BaseStorage:
    """What the built-in storages share: the variant they store, the ``plies`` rows every writer
    fills, and the defaults of a storage that keeps no moves and does not solve."""

    name: ClassVar[str]
    label: ClassVar[str] = ""
    stores_moves: ClassVar[bool] = False
    out_of_core: ClassVar[bool] = False
    solves: ClassVar[bool] = False
    any_orientation: ClassVar[bool] = False
    #: Where the storage's values come from when it stores no solver's result, as a phrase after
    #: its name ("solves the variant itself"); ``None``: it stores a solution or its layers.
    written_by: ClassVar[str | None] = None

    def __init__(self, game: Game, variant_id: int, symmetry: bool):
        self.game = game
        self.variant_id = variant_id
        self.symmetry = symmetry

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.game.name!r} variant_id={self.variant_id}>"

    if TYPE_CHECKING:

        def lookup(self, conn: sqlite3.Connection, state: int) -> Entry | None: ...

        def moves(self, conn: sqlite3.Connection, state: int, entry: Entry) -> list[tuple[int, Value | None]]: ...

    def probe(self, conn: sqlite3.Connection, state: int) -> tuple[Entry | None, list[tuple[int, Value | None]]]:
        entry = self.lookup(conn, state)
        if entry is None or entry.terminal:
            return entry, []
        return entry, self.moves(conn, state, entry)

    def search(self, connect: Callable[[], AbstractContextManager[sqlite3.Connection]]) -> TierSearch | None:
        return None

    def move_rows(self, conn: sqlite3.Connection) -> Iterator[tuple[int, str, int]]:
        return iter(())

    def plies(self, conn: sqlite3.Connection) -> list[PlyRow]:
        return read_plies(conn, self.variant_id)

    def edge_chunks(self, conn: sqlite3.Connection, size: int) -> Iterator[EdgeChunk] | None:
        return None

    def sorted_layers(
        self, conn: sqlite3.Connection, on_error: Callable[[str], None], plies: tuple[int, int] | None = None
    ) -> Iterator[tuple[int, np.ndarray, np.ndarray, np.ndarray]] | None:
        return None

    def check_labels(
        self, conn: sqlite3.Connection, on_error: Callable[[str], None], progress: Progress | None
    ) -> int | None:
        return None

    @classmethod
    def check_game(cls, game: Game) -> None:
        pass

    @classmethod
    def write_solution(
        cls, solution: Solution, *, engine: Engine, path: Path | None, seconds: float, progress: Progress | None
    ) -> None:
        """The solution written as the layers of an out-of-core build (:meth:`write_layers`); refused
        by a storage whose values come from elsewhere (:attr:`written_by`)."""
        from tablebase.store.states import SolutionLayers

        cls._refuse_results(solution.game)
        if path is None:
            raise BuildError(f"{cls.name!r} builds need a database path, not an engine")
        cls.write_layers(SolutionLayers(solution), path=path, seconds=seconds, progress=progress)

    @classmethod
    def write_layers(cls, layers: Layers, *, path: Path, seconds: float, progress: Progress | None) -> None:
        """Refused here: a storage that stores layers writes them itself."""
        cls._refuse_results(layers.game)
        raise BuildError(f"{layers.game.name}: storage {cls.name!r} does not store the layers of a build")

    @classmethod
    def _refuse_results(cls, game: Game) -> None:
        """A :class:`BuildError` naming where the values come from, for a storage of :attr:`written_by`."""
        if cls.written_by is not None:
            raise BuildError(f"{game.name}: storage {cls.name!r} {cls.written_by}")

    @classmethod
    def build(
        cls, game: Game, *, path: Path, progress: Progress | None, executor: Executor | None = None,
        build_dir: str | os.PathLike[str] | None = None,
    ) -> None:
        raise BuildError(f"storage {cls.name!r} stores a solver's result; it does not solve {game.name!r} itself")
