"""Storage layouts: how a variant's solved positions are kept in the file, behind one protocol.

A variant row names its layout (``variants.storage``); :func:`layout` maps
that name to a class implementing :class:`Storage`, and everything above the
store (the query layer, ``verify``, the CLI, the HTTP server) talks to the
layout only through the protocol. A new layout is one class registered with
:func:`register`.

* ``moves`` (:class:`MovesTable`): states and moves rows; every question
  is answerable in plain SQL (the default for the seed games).
* ``states`` (:class:`StatesOnly`): states rows only; moves are derived from
  the rules at query time and their children looked up by key.
* ``packed`` (:class:`Packed`): no rows per position; the states of each ply
  sorted in compressed blocks of the ``blocks`` table, moves from the rules
  (:mod:`tablebase.store.packed`).
* ``dense`` (:class:`Dense`): no keys either; one value a slot of the game's
  dense index of its positions, in compressed blocks, solved by the layout
  itself over that index (:mod:`tablebase.store.dense`).

Readers pass an open :class:`sqlite3.Connection` (inside the read
transaction of the caller) to every read method; a storage object holds no
connection, so one object serves any number of connections. States given
to and returned by the read methods are the game's integers; lookups take
canonical states (one representative per symmetry class when the variant
has symmetry reduction) and return values as stored, for the side to move
there.

This module imports neither numpy nor SQLAlchemy at load time: opening a
database for a probe must stay fast.
"""

from __future__ import annotations

import sqlite3
from functools import cached_property
from typing import TYPE_CHECKING, Callable, ClassVar, Iterator, NamedTuple, Protocol, Sequence

from tablebase.errors import BuildError, DatabaseError
from tablebase.outcome import CODES, NAMES, NO_DISTANCE, Outcome

if TYPE_CHECKING:
    import os
    from pathlib import Path

    import numpy as np
    from sqlalchemy.engine import Engine

    from tablebase.games.base import Game
    from tablebase.solve import Progress, Solution
    from tablebase.solve.executor import Executor
    from tablebase.store.dense import DenseReader
    from tablebase.store.packed import PackedReader
    from tablebase.store.states import Layers

#: ``(outcome, distance)`` of a stored position, for its side to move.
Value = tuple[Outcome, "int | None"]
#: A row of the ``plies`` table: ``(ply, positions, classes, wins, losses, draws, terminal,
#: win_positions, loss_positions, draw_positions)``; the last three are ``None`` when not counted.
PlyRow = tuple[int, int, int, int, int, int, int, "int | None", "int | None", "int | None"]
#: A stored row: ``(ref, key, to_move, terminal, outcome, distance)``.
Row = tuple[int, str, str, bool, Outcome, "int | None"]


class Entry(NamedTuple):
    """One stored position: its value, whether the game is over there, and the layout's reference to it."""

    outcome: Outcome
    distance: int | None
    terminal: bool
    #: The layout's handle on the stored row (a row id where there is one); the ``ref`` of :class:`Row`.
    ref: int


class StateChunk(NamedTuple):
    """A chunk of stored positions as columns, in the layout's row order (what ``verify`` reads)."""

    #: The layout's reference of each row (``np.int64``), increasing.
    refs: np.ndarray
    keys: list[str]
    to_move: list[str]
    terminal: np.ndarray
    #: :class:`tablebase.outcome.Code` of each row (0 for a label outside the vocabulary).
    outcome: np.ndarray
    #: Distances (``np.int64``), :data:`tablebase.outcome.NO_DISTANCE` for none.
    distance: np.ndarray
    #: The positions as integers (``np.uint64``) when the layout stores them so; ``None``: parse ``keys``.
    states: np.ndarray | None = None


class EdgeChunk(NamedTuple):
    """A chunk of stored moves: ``from_refs[i]`` goes by ``moves[i]`` (notation text) to ``to_refs[i]``."""

    from_refs: np.ndarray
    moves: list[str]
    to_refs: np.ndarray


class Storage(Protocol):
    """What the query layer, ``verify`` and the builder need from a layout."""

    #: The name stored in ``variants.storage``.
    name: ClassVar[str]
    #: How listings say where the moves come from when they are not stored (``"states only"``).
    label: ClassVar[str]
    #: Whether the layout stores the moves (``moves_count`` is then the number of moves rows).
    stores_moves: ClassVar[bool]
    #: Whether :meth:`write_layers` can store an out-of-core build.
    out_of_core: ClassVar[bool]
    #: Whether the layout solves a variant itself (:meth:`build`) instead of storing a solver's result.
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

    # -- whole tables ----------------------------------------------------------

    def rows(self, conn: sqlite3.Connection) -> Iterator[Row]:
        """Every stored position, in the layout's order."""
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
        distances)`` with the states sorted, when the layout keeps them so (``None`` otherwise); parts
        that cannot be read are passed to ``on_error``."""
        ...

    def sample(self, conn: sqlite3.Connection, count: int, seed: int) -> list[Row]:
        """``count`` stored rows drawn at random (repeatably for one ``seed``)."""
        ...

    def check_labels(
        self, conn: sqlite3.Connection, on_error: Callable[[str], None], progress: Progress | None
    ) -> int | None:
        """Check every stored label against its children by the layout's own means: the number of
        positions checked, disagreements passed to ``on_error``; ``None`` when the layout has no such check."""
        ...

    # -- writing ---------------------------------------------------------------

    @classmethod
    def check_game(cls, game: Game) -> None:
        """Raise :class:`BuildError` if this layout cannot store ``game``."""
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
        """Solve and store ``game`` (layouts that :attr:`solve` only), replacing an earlier build atomically:
        in this process, or in tasks run by ``executor`` with their files in ``build_dir`` (default: a
        folder next to the file)."""
        ...


_LAYOUTS: dict[str, type[Storage]] = {}


def register(cls: type[Storage]) -> type[Storage]:
    """Make a layout class known by its :attr:`Storage.name` (usable as a class decorator)."""
    _LAYOUTS[cls.name] = cls
    return cls


def names() -> list[str]:
    """The registered layout names."""
    return list(_LAYOUTS)


def layout(name: str) -> type[Storage]:
    """The layout class called ``name``; raises :class:`BuildError` for an unknown name."""
    try:
        return _LAYOUTS[name]
    except KeyError:
        known = " or ".join(repr(n) for n in _LAYOUTS)
        raise BuildError(f"unknown storage {name!r}: use {known}") from None


def layout_info(name: str) -> type[Storage]:
    """The layout class called ``name`` for describing a stored variant (a name this version does
    not know reads as a layout that stores no moves)."""
    return _LAYOUTS.get(name) or _unknown(name)


def _unknown(name: str) -> type[Storage]:
    return type(f"Unknown_{name}", (StatesTable,), {"name": name, "label": name})


def open_storage(name: str, game: Game, variant_id: int, symmetry: bool) -> Storage:
    """The storage of a variant stored with layout ``name``."""
    cls = _LAYOUTS.get(name)
    if cls is None:
        raise DatabaseError(
            f"variant {game.name!r} uses storage {name!r}, which this version of tablebase cannot read;"
            " upgrade the tablebase package"
        )
    return cls(game, variant_id, symmetry)


def read_plies(conn: sqlite3.Connection, variant_id: int) -> list[PlyRow]:
    """The variant's rows of the ``plies`` table (which every writer fills), as :meth:`Storage.plies` returns them."""
    rows: list[PlyRow] = conn.execute(
        "SELECT ply, positions, classes, wins, losses, draws, terminal, win_positions, loss_positions, draw_positions"
        " FROM plies WHERE variant_id = ? ORDER BY ply",
        (variant_id,),
    ).fetchall()
    return rows


#: How many states :meth:`RulesMoves.canonical_all` needs before it maps them on the array kernels
#: (on the 5x4 board, 8 symmetries: about 21 us for any count up to 20 against 1.0 us a state one at a time).
ARRAY_CANONICAL_FROM = 24


class RulesMoves:
    """Moves and parents derived from the rules, their values looked up by :meth:`Storage.values`: for
    layouts that store positions without their moves."""

    game: Game
    symmetry: bool

    if TYPE_CHECKING:

        def values(self, conn: sqlite3.Connection, states: Sequence[int]) -> list[Value | None]: ...

    def canonical(self, state: int) -> int:
        """The stored representative of ``state``."""
        return self.game.canonical(state)[0] if self.symmetry else state

    def canonical_all(self, states: list[int]) -> list[int]:
        """:meth:`canonical` of each state, on the array kernels when the game has them and the
        states are many (below :data:`ARRAY_CANONICAL_FROM` one at a time is quicker)."""
        kernels = self.game.vector if self.symmetry and len(states) >= ARRAY_CANONICAL_FROM else None
        if kernels is None:
            return [self.canonical(s) for s in states]
        import numpy as np

        return [int(s) for s in kernels.canonical(np.array(states, dtype=np.uint64))]

    def moves(self, conn: sqlite3.Connection, state: int, entry: Entry) -> list[tuple[int, Value | None]]:
        children = self.game.children(state)
        values = self.values(conn, self.canonical_all([child for _, child in children]))
        return [(code, value) for (code, _), value in zip(children, values)]

    def parents(self, conn: sqlite3.Connection, state: int, entry: Entry) -> set[tuple[int, int]]:
        unmoves = self.game.unmoves(state)
        stored = self.values(conn, self.canonical_all([parent for parent, _ in unmoves]))
        return {pair for pair, value in zip(unmoves, stored) if value is not None}


#: The outcome columns as codes (0 for text outside the vocabulary), no distance as NO_DISTANCE.
_CODE_COLUMNS = (
    "id, key, to_move, terminal,"
    f" CASE outcome {' '.join(f'WHEN {o!r} THEN {c}' for o, c in CODES.items())} ELSE 0 END,"
    f" COALESCE(distance, {NO_DISTANCE})"
)
_ROW_COLUMNS = "id, key, to_move, terminal, outcome, distance"
#: Keys per ``IN (...)`` lookup.
_BATCH = 500


class StatesTable:
    """What both row layouts share: one row per stored position in the ``states`` table, keyed by text."""

    name: ClassVar[str]
    label: ClassVar[str] = ""
    stores_moves: ClassVar[bool] = False
    out_of_core: ClassVar[bool] = False
    solves: ClassVar[bool] = False
    any_orientation: ClassVar[bool] = False

    def __init__(self, game: Game, variant_id: int, symmetry: bool):
        self.game = game
        self.variant_id = variant_id
        self.symmetry = symmetry

    def check_labels(
        self, conn: sqlite3.Connection, on_error: Callable[[str], None], progress: Progress | None
    ) -> int | None:
        return None

    @classmethod
    def build(
        cls, game: Game, *, path: Path, progress: Progress | None, executor: Executor | None = None,
        build_dir: str | os.PathLike[str] | None = None,
    ) -> None:
        raise BuildError(f"storage {cls.name!r} stores a solver's result; it does not solve {game.name!r} itself")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.game.name!r} variant_id={self.variant_id}>"

    @classmethod
    def check_game(cls, game: Game) -> None:
        pass

    def lookup(self, conn: sqlite3.Connection, state: int) -> Entry | None:
        row = conn.execute(
            "SELECT id, outcome, distance, terminal FROM states WHERE variant_id = ? AND key = ?",
            (self.variant_id, self.game.format_position(state)),
        ).fetchone()
        if row is None:
            return None
        return Entry(row[1], row[2], bool(row[3]), row[0])

    if TYPE_CHECKING:

        def moves(self, conn: sqlite3.Connection, state: int, entry: Entry) -> list[tuple[int, Value | None]]: ...

    def probe(self, conn: sqlite3.Connection, state: int) -> tuple[Entry | None, list[tuple[int, Value | None]]]:
        entry = self.lookup(conn, state)
        if entry is None or entry.terminal:
            return entry, []
        return entry, self.moves(conn, state, entry)

    def values(self, conn: sqlite3.Connection, states: Sequence[int]) -> list[Value | None]:
        keys = [self.game.format_position(s) for s in states]
        found: dict[str, Value] = {}
        for lo in range(0, len(keys), _BATCH):
            part = keys[lo : lo + _BATCH]
            rows = conn.execute(
                f"SELECT key, outcome, distance FROM states WHERE variant_id = ? AND key IN ({','.join('?' * len(part))})",
                (self.variant_id, *part),
            ).fetchall()
            found.update((k, (o, d)) for k, o, d in rows)
        return [found.get(k) for k in keys]

    def rows(self, conn: sqlite3.Connection) -> Iterator[Row]:
        cursor = conn.execute(
            f"SELECT {_ROW_COLUMNS} FROM states WHERE variant_id = ? ORDER BY id", (self.variant_id,)
        )
        for ref, key, to_move, terminal, outcome, distance in cursor:
            yield ref, key, to_move, bool(terminal), outcome, distance

    def move_rows(self, conn: sqlite3.Connection) -> Iterator[tuple[int, str, int]]:
        return iter(())

    def plies(self, conn: sqlite3.Connection) -> list[PlyRow]:
        return read_plies(conn, self.variant_id)

    def _block(self, conn: sqlite3.Connection) -> tuple[int, int] | None:
        """``(first, last)`` when the variant's row ids form one block (as the builders write them)."""
        low, high, count = conn.execute(
            "SELECT MIN(id), MAX(id), COUNT(*) FROM states WHERE variant_id = ?", (self.variant_id,)
        ).fetchone()
        if count and high - low + 1 == count:
            return int(low), int(high)
        return None

    def state_chunks(self, conn: sqlite3.Connection, size: int) -> Iterator[StateChunk]:
        import numpy as np

        block = self._block(conn)
        if block is None:
            cursor = conn.execute(
                f"SELECT {_CODE_COLUMNS} FROM states WHERE variant_id = ? ORDER BY id", (self.variant_id,)
            )
        else:
            cursor = conn.execute(f"SELECT {_CODE_COLUMNS} FROM states WHERE id BETWEEN ? AND ? ORDER BY id", block)
        while chunk := cursor.fetchmany(size):
            columns = list(zip(*chunk))
            yield StateChunk(
                refs=np.array(columns[0], dtype=np.int64),
                keys=list(columns[1]),
                to_move=list(columns[2]),
                terminal=np.array(columns[3], dtype=bool),
                outcome=np.array(columns[4], dtype=np.int8),
                distance=np.array(columns[5], dtype=np.int64),
            )

    def edge_chunks(self, conn: sqlite3.Connection, size: int) -> Iterator[EdgeChunk] | None:
        return None

    def key(self, conn: sqlite3.Connection, ref: int) -> str:
        row = conn.execute("SELECT key FROM states WHERE id = ?", (int(ref),)).fetchone()
        return str(row[0])

    def sorted_layers(
        self, conn: sqlite3.Connection, on_error: Callable[[str], None], plies: tuple[int, int] | None = None
    ) -> Iterator[tuple[int, np.ndarray, np.ndarray, np.ndarray]] | None:
        return None

    def sample(self, conn: sqlite3.Connection, count: int, seed: int) -> list[Row]:
        import random

        # "+variant_id": walk the rowids, whatever the planner's statistics say about the indexes
        first = conn.execute(
            "SELECT id FROM states WHERE +variant_id = ? ORDER BY id LIMIT 1", (self.variant_id,)
        ).fetchone()
        last = conn.execute(
            "SELECT id FROM states WHERE +variant_id = ? ORDER BY id DESC LIMIT 1", (self.variant_id,)
        ).fetchone()
        if first is None:
            return []
        rng = random.Random(seed)
        picked = []
        for _ in range(count):
            ref, key, to_move, terminal, outcome, distance = conn.execute(
                f"SELECT {_ROW_COLUMNS} FROM states WHERE +variant_id = ? AND id >= ? ORDER BY id LIMIT 1",
                (self.variant_id, rng.randint(first[0], last[0])),
            ).fetchone()
            picked.append((ref, key, to_move, bool(terminal), outcome, distance))
        return picked


@register
class MovesTable(StatesTable):
    """States and moves rows: the moves of a position, and the moves into it, are index lookups."""

    name = "moves"
    stores_moves = True

    def __init__(self, game: Game, variant_id: int, symmetry: bool):
        super().__init__(game, variant_id, symmetry)
        self._move_codes: dict[str, int] = {}

    def _move_code(self, state: int, text: str) -> int:
        code = self._move_codes.get(text)
        if code is None:
            code = self._move_codes[text] = self.game.parse_move(state, text)
        return code

    def moves(self, conn: sqlite3.Connection, state: int, entry: Entry) -> list[tuple[int, Value | None]]:
        rows = conn.execute(
            "SELECT m.move, t.outcome, t.distance FROM moves AS m JOIN states AS t ON t.id = m.to_state"
            " WHERE m.from_state = ?",
            (entry.ref,),
        ).fetchall()
        return [(self._move_code(state, text), (outcome, distance)) for text, outcome, distance in rows]

    def parents(self, conn: sqlite3.Connection, state: int, entry: Entry) -> set[tuple[int, int]]:
        game = self.game
        rows = conn.execute(
            "SELECT f.key, m.move FROM moves AS m JOIN states AS f ON f.id = m.from_state WHERE m.to_state = ?",
            (entry.ref,),
        ).fetchall()
        symmetries = range(game.num_symmetries) if self.symmetry else range(1)
        found: set[tuple[int, int]] = set()
        for key, text in rows:
            parent = game.parse_position(key)
            code = self._move_code(parent, text)
            child = game.apply(parent, code)
            for t in symmetries:
                if game.transform(child, t) == state:
                    found.add((game.transform(parent, t), game.transform_move(code, t)))
        return found

    def move_rows(self, conn: sqlite3.Connection) -> Iterator[tuple[int, str, int]]:
        return iter(
            conn.execute(
                "SELECT m.from_state, m.move, m.to_state FROM moves AS m JOIN states AS s ON s.id = m.from_state"
                " WHERE s.variant_id = ? ORDER BY m.from_state",
                (self.variant_id,),
            ).fetchall()
        )

    def edge_chunks(self, conn: sqlite3.Connection, size: int) -> Iterator[EdgeChunk] | None:
        return self._edges(conn, size)

    def _edges(self, conn: sqlite3.Connection, size: int) -> Iterator[EdgeChunk]:
        import numpy as np

        block = self._block(conn)
        if block is None:
            cursor = conn.execute(
                "SELECT m.from_state, m.move, m.to_state FROM moves AS m JOIN states AS s ON s.id = m.from_state"
                " WHERE s.variant_id = ? ORDER BY m.from_state",
                (self.variant_id,),
            )
        else:
            cursor = conn.execute(
                "SELECT from_state, move, to_state FROM moves WHERE from_state BETWEEN ? AND ? ORDER BY from_state",
                block,
            )
        while chunk := cursor.fetchmany(size):
            columns = list(zip(*chunk))
            yield EdgeChunk(
                np.array(columns[0], dtype=np.int64), list(columns[1]), np.array(columns[2], dtype=np.int64)
            )

    @classmethod
    def write_solution(
        cls, solution: Solution, *, engine: Engine, path: Path | None, seconds: float, progress: Progress | None
    ) -> None:
        from tablebase.store.engine import upgrade
        from tablebase.store.writer import write_solution

        upgrade(engine)
        write_solution(engine, solution, seconds, progress=progress)

    @classmethod
    def write_layers(cls, layers: Layers, *, path: Path, seconds: float, progress: Progress | None) -> None:
        raise BuildError(f"{layers.game.name}: an out-of-core build keeps no moves; store it states-only")


@register
class StatesOnly(RulesMoves, StatesTable):
    """States rows only: the moves of a position come from the rules, their values by key lookup."""

    name = "states"
    label = "states only"
    out_of_core = True

    @classmethod
    def check_game(cls, game: Game) -> None:
        if not game.has_unmoves:
            raise BuildError(
                f"variant {game.name!r} cannot be stored states-only: its rules do not list the moves into a position"
                " (predecessors need them); build it with moves"
            )

    @classmethod
    def write_solution(
        cls, solution: Solution, *, engine: Engine, path: Path | None, seconds: float, progress: Progress | None
    ) -> None:
        from tablebase.store.states import SolutionLayers

        if path is None:
            raise BuildError(f"{cls.name!r} builds need a database path, not an engine")
        cls.write_layers(SolutionLayers(solution), path=path, seconds=seconds, progress=progress)

    @classmethod
    def write_layers(cls, layers: Layers, *, path: Path, seconds: float, progress: Progress | None) -> None:
        from tablebase.store.states import write_states

        write_states(path, layers, seconds, progress=progress)


@register
class Packed(StatesOnly):
    """Compressed blocks of sorted states per ply, one indexed read per lookup (:mod:`tablebase.store.packed`).

    Moves and parents come from the rules as for :class:`StatesOnly`; side to
    move and terminal flag too. The reference of a stored position is its
    state (its integer encoding).
    """

    name = "packed"
    label = "packed blocks"

    @cached_property
    def reader(self) -> PackedReader:
        """The block reader, with its cache of decoded blocks."""
        from tablebase.store.packed import PackedReader

        return PackedReader(self.game, self.variant_id)

    @classmethod
    def check_game(cls, game: Game) -> None:
        from tablebase.store.packed import supports

        if not supports(game):
            usable = "'moves' or 'states'" if game.has_unmoves else "'moves'"
            raise BuildError(
                f"variant {game.name!r} cannot be stored packed (use storage {usable}): its positions do not fit"
                " the 64-bit key coding or its rules do not list the moves into a position"
            )

    def lookup(self, conn: sqlite3.Connection, state: int) -> Entry | None:
        found = self.reader.locate(conn, state)
        if found is None:
            return None
        outcome, distance = _unpack(found[1])
        return Entry(outcome, distance, self.game.outcome(state) is not None, state)

    def values(self, conn: sqlite3.Connection, states: Sequence[int]) -> list[Value | None]:
        return [_value(v) for v in self.reader.values(conn, states)]

    def _row(self, state: int, value: int) -> Row:
        game = self.game
        outcome, distance = _unpack(value)
        return state, game.format_position(state), game.to_move(state), game.outcome(state) is not None, outcome, distance

    def rows(self, conn: sqlite3.Connection) -> Iterator[Row]:
        for _, blocks in self.reader.blocks_by_ply(conn):
            for block in blocks:
                for state, value in zip(block.keys.tolist(), block.values.tolist()):
                    yield self._row(state, value)

    def state_chunks(self, conn: sqlite3.Connection, size: int) -> Iterator[StateChunk]:
        for _, blocks in self.reader.blocks_by_ply(conn):
            for block in blocks:
                yield self._chunk(block.keys, block.values)

    def _chunk(self, states: np.ndarray, values: np.ndarray) -> StateChunk:
        """A :class:`StateChunk` of states (``np.uint64``) and their packed values."""
        import numpy as np

        from tablebase.store.packed import unpack_values

        kernels = self.game.vector
        outcome, distance = unpack_values(values)
        if kernels is not None:
            keys, to_move, terminal = kernels.format_positions(states), kernels.to_move(states), kernels.outcome(states) != 0
        else:
            listed = states.tolist()
            keys = [self.game.format_position(s) for s in listed]
            to_move = [self.game.to_move(s) for s in listed]
            terminal = np.array([self.game.outcome(s) is not None for s in listed], dtype=bool)
        return StateChunk(states.astype(np.int64), keys, to_move, terminal, outcome, distance.astype(np.int64), states)

    def key(self, conn: sqlite3.Connection, ref: int) -> str:
        return self.game.format_position(int(ref))

    def sample(self, conn: sqlite3.Connection, count: int, seed: int) -> list[Row]:
        return [self._row(state, value) for state, value in self.reader.sample(conn, count, seed)]

    def sorted_layers(
        self, conn: sqlite3.Connection, on_error: Callable[[str], None], plies: tuple[int, int] | None = None
    ) -> Iterator[tuple[int, np.ndarray, np.ndarray, np.ndarray]] | None:
        from tablebase.store.packed import unpack_values

        def layers() -> Iterator[tuple[int, np.ndarray, np.ndarray, np.ndarray]]:
            low, high = plies if plies is not None else (0, 1 << 62)
            for ply in self.reader.ply_numbers(conn):
                if not low <= ply <= high:
                    continue
                states, values = self.reader.layer(conn, ply, on_error)
                yield (ply, states, *unpack_values(values))

        return layers()

    @classmethod
    def write_layers(cls, layers: Layers, *, path: Path, seconds: float, progress: Progress | None) -> None:
        from tablebase.store.packed import write_packed

        cls.check_game(layers.game)
        write_packed(path, layers, seconds, progress=progress)


@register
class Dense(Packed):
    """One value a slot of the game's dense index, in compressed blocks (:mod:`tablebase.store.dense`).

    The layout solves the variant itself, over the index. Lookups take
    positions that can arise in play (the rules' parser checks that), in any
    orientation; the reference of a stored position is its state.
    """

    name = "dense"
    label = "dense index"
    out_of_core = False
    solves = True
    any_orientation = True

    @cached_property
    def dense(self) -> DenseReader:
        """The block reader, with its cache of decoded blocks."""
        from tablebase.store.dense import DenseReader

        index = self.game.dense_index()
        if index is None:
            raise DatabaseError(f"variant {self.game.name!r} is stored with a dense index its rules do not give")
        return DenseReader(self.game, index, self.variant_id)

    @classmethod
    def check_game(cls, game: Game) -> None:
        if game.dense_index() is None:
            raise BuildError(
                f"variant {game.name!r} cannot be stored dense: its rules give no dense index of its positions;"
                " use storage 'packed'"
            )
        try:
            import numba  # noqa: F401
        except ImportError:
            raise BuildError(
                f"variant {game.name!r}: a dense build needs numba (pip install 'tablebase[fast]'); or use storage 'packed'"
            ) from None

    def lookup(self, conn: sqlite3.Connection, state: int) -> Entry | None:
        value = _value(self.dense.value(conn, state))
        if value is None:
            return None
        # every stored value has a distance, and only the end of a game is 0 plies from it
        return Entry(value[0], value[1], value[1] == 0, state)

    def values(self, conn: sqlite3.Connection, states: Sequence[int]) -> list[Value | None]:
        return [_value(v) for v in self.dense.values(conn, states)]

    def moves(self, conn: sqlite3.Connection, state: int, entry: Entry) -> list[tuple[int, Value | None]]:
        return [(code, _value(v)) for code, v in self.dense.moves(conn, state)]

    def probe(self, conn: sqlite3.Connection, state: int) -> tuple[Entry | None, list[tuple[int, Value | None]]]:
        packed, moves = self.dense.probe(conn, state)
        value = _value(packed)
        if value is None:
            return None, []
        # the table first, as in _value, without a call a move
        return Entry(value[0], value[1], value[1] == 0, state), [
            (code, _UNPACKED.get(v) or _value(v)) for code, v in moves
        ]

    def parents(self, conn: sqlite3.Connection, state: int, entry: Entry) -> set[tuple[int, int]]:
        reachable = self.game.can_arise
        return {(parent, move) for parent, move in self.game.unmoves(state) if reachable(parent)}

    def _positions(
        self, conn: sqlite3.Connection, plies: tuple[int, int] | None = None, on_error: Callable[[str], None] | None = None
    ) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
        reader = self.dense
        return reader.index.positions(lambda p: reader.ply(conn, p, on_error), plies)

    def rows(self, conn: sqlite3.Connection) -> Iterator[Row]:
        for _, states, values in self._positions(conn):
            for state, value in zip(states.tolist(), values.tolist()):
                yield self._row(state, value)

    def state_chunks(self, conn: sqlite3.Connection, size: int) -> Iterator[StateChunk]:
        for _, states, values in self._positions(conn):
            for lo in range(0, states.size, size):
                yield self._chunk(states[lo : lo + size], values[lo : lo + size])

    def sample(self, conn: sqlite3.Connection, count: int, seed: int) -> list[Row]:
        import random

        game, rng = self.game, random.Random(seed)
        picked: list[Row] = []
        while len(picked) < count:
            state = game.initial_state()
            for _ in range(rng.randrange((game.max_plies(state) or 0) + 1)):
                moves = game.legal_moves(state)
                if not moves:
                    break
                state = game.apply(state, rng.choice(moves))
            state = self.canonical(state)
            value = self.dense.value(conn, state)
            if value is not None:
                picked.append(self._row(state, value))
        return picked

    def sorted_layers(
        self, conn: sqlite3.Connection, on_error: Callable[[str], None], plies: tuple[int, int] | None = None
    ) -> Iterator[tuple[int, np.ndarray, np.ndarray, np.ndarray]] | None:
        from tablebase.store.packed import unpack_values

        def layers() -> Iterator[tuple[int, np.ndarray, np.ndarray, np.ndarray]]:
            for ply, states, values in self._positions(conn, plies, on_error):
                order = states.argsort()
                yield (ply, states[order], *unpack_values(values[order]))

        return layers()

    def check_labels(
        self, conn: sqlite3.Connection, on_error: Callable[[str], None], progress: Progress | None
    ) -> int | None:
        reader = self.dense
        checked = 0
        for ply, count, bad in reader.index.check(lambda p: reader.ply(conn, p, on_error), progress):
            checked += count
            for slot in bad[:10].tolist():
                key = self.game.format_position(reader.index.state(ply, slot))
                on_error(f"{key}: the stored label does not follow from its children's")
            if bad.size > 10:
                on_error(f"ply {ply}: {bad.size - 10} more height vectors hold a label that does not follow from its children's")
        return checked

    @classmethod
    def write_solution(
        cls, solution: Solution, *, engine: Engine, path: Path | None, seconds: float, progress: Progress | None
    ) -> None:
        raise BuildError(f"{solution.game.name}: storage 'dense' solves the variant itself")

    @classmethod
    def write_layers(cls, layers: Layers, *, path: Path, seconds: float, progress: Progress | None) -> None:
        raise BuildError(f"{layers.game.name}: storage 'dense' solves the variant itself")

    @classmethod
    def build(
        cls, game: Game, *, path: Path, progress: Progress | None, executor: Executor | None = None,
        build_dir: str | os.PathLike[str] | None = None,
    ) -> None:
        from tablebase.store.dense import write_dense

        cls.check_game(game)
        index = game.dense_index()
        assert index is not None
        if executor is None:
            write_dense(path, game, index, progress)
            return
        from tablebase.solve.dense_tasks import build_dense

        built = build_dense(game, build_dir or path.with_name(f"{path.name}.build-{game.name}"), executor, progress)
        write_dense(path, game, index, progress, built)


def _unpack(value: int) -> Value:
    """``(outcome, distance)`` of a packed value (see :func:`tablebase.store.packed.pack_values`)."""
    distance = (value >> 2) - 1
    return NAMES[value & 3], None if distance < 0 else distance


#: :func:`_unpack` of the packed values of distances up to 254.
_UNPACKED: dict[int | None, Value] = {v: _unpack(v) for v in range(1 << 10) if v & 3 in NAMES}


def _value(packed: int | None) -> Value | None:
    """:func:`_unpack` of a stored value (from a table for the usual ones), ``None`` for none."""
    if packed is None:
        return None
    return _UNPACKED.get(packed) or _unpack(packed)


__all__ = [
    "Dense",
    "EdgeChunk",
    "Entry",
    "MovesTable",
    "Packed",
    "PlyRow",
    "Row",
    "RulesMoves",
    "StateChunk",
    "StatesOnly",
    "StatesTable",
    "Storage",
    "Value",
    "layout",
    "layout_info",
    "names",
    "open_storage",
    "read_plies",
    "register",
]
