"""The row storages: one row of the ``states`` table per stored position, keyed by its text.

``moves`` (:class:`MovesTable`) stores the moves as rows too, so every
question is answerable in plain SQL; ``states`` (:class:`StatesOnly`)
derives them from the rules (:class:`RulesMoves`) and looks their children
up by key.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, Iterator, Sequence

from tablebase.errors import BuildError
from tablebase.outcome import CODES, NO_DISTANCE
from tablebase.store.storage.base import BaseStorage, EdgeChunk, Entry, Row, StateChunk, Value

if TYPE_CHECKING:
    from pathlib import Path

    from sqlalchemy.engine import Engine

    from tablebase.games.base import Game
    from tablebase.solve import Progress, Solution
    from tablebase.store.states import Layers


#: How many states :meth:`RulesMoves.canonical_all` needs before it maps them on the array kernels: one
#: at a time a state takes about 1 us (the 5x4 board, 8 symmetries) to 6 us (Morris, 16), the array call
#: about 21 us, but the kernels' first use loads them (about 0.2 s), which a one-probe command would pay.
ARRAY_CANONICAL_FROM = 128


class RulesMoves:
    """Moves and parents derived from the rules, their values looked up by :meth:`Storage.values`: for
    storages that keep positions without their moves."""

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


class StatesTable(BaseStorage):
    """What both row storages share: one row per stored position in the ``states`` table, keyed by text."""

    def lookup(self, conn: sqlite3.Connection, state: int) -> Entry | None:
        row = conn.execute(
            "SELECT id, outcome, distance, terminal FROM states WHERE variant_id = ? AND key = ?",
            (self.variant_id, self.game.format_position(state)),
        ).fetchone()
        if row is None:
            return None
        return Entry(row[1], row[2], bool(row[3]), row[0])

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

    def key(self, conn: sqlite3.Connection, ref: int) -> str:
        row = conn.execute("SELECT key FROM states WHERE id = ?", (int(ref),)).fetchone()
        return str(row[0])

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
    def write_layers(cls, layers: Layers, *, path: Path, seconds: float, progress: Progress | None) -> None:
        from tablebase.store.states import write_states

        write_states(path, layers, seconds, progress=progress)
