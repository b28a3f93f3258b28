"""The block storages: no row per position, the values of a ply in compressed blocks.

``packed`` (:class:`Packed`) keeps the states of each ply sorted with their
values (:mod:`tablebase.store.packed`); ``dense`` (:class:`Dense`) keeps no
keys either, one value a slot of the game's dense index of its positions,
and solves the variant itself over that index (:mod:`tablebase.store.dense`).
Each holds a reader of its blocks; both decode the values they read with
:mod:`tablebase.store.block_codec` and make rows of them alike
(:class:`BlockStorage`). Moves and parents come from the rules
(:class:`~tablebase.store.storage.rows.RulesMoves`).
"""

from __future__ import annotations

import sqlite3
from functools import cached_property
from typing import TYPE_CHECKING, Callable, Iterator, Protocol, Sequence

from tablebase.errors import BuildError, DatabaseError
from tablebase.store.block_codec import stored_moves, stored_value, unpack, unpack_values
from tablebase.store.storage.base import BaseStorage, Entry, Row, StateChunk, Value
from tablebase.store.storage.rows import RulesMoves

if TYPE_CHECKING:
    import os
    from pathlib import Path

    import numpy as np

    from tablebase.games.base import Game
    from tablebase.solve import Progress
    from tablebase.solve.executor import Executor
    from tablebase.store.dense_reader import DenseReader
    from tablebase.store.packed_reader import PackedReader
    from tablebase.store.states import Layers


class _Values(Protocol):
    """What :class:`BlockStorage` asks of a storage's reader."""

    def values(self, conn: sqlite3.Connection, states: Sequence[int]) -> list[int | None]: ...


class BlockStorage(RulesMoves, BaseStorage):
    """What the block storages share: a reader of packed values (:attr:`reader`), rows and column
    chunks made from a state and its packed value with the rules (side to move, terminal flag,
    text). The reference of a stored position is its state (its integer encoding)."""

    if TYPE_CHECKING:

        @property
        def reader(self) -> _Values:
            """The storage's block reader, with its cache of decoded blocks."""

        def _arrays(self, conn: sqlite3.Connection) -> Iterator[tuple[np.ndarray, np.ndarray]]:
            """Every stored position as ``(states, packed values)`` arrays, in the storage's order."""

    def values(self, conn: sqlite3.Connection, states: Sequence[int]) -> list[Value | None]:
        return [stored_value(v) for v in self.reader.values(conn, states)]

    def _row(self, state: int, value: int) -> Row:
        game = self.game
        outcome, distance = unpack(value)
        return state, game.format_position(state), game.to_move(state), game.outcome(state) is not None, outcome, distance

    def rows(self, conn: sqlite3.Connection) -> Iterator[Row]:
        for states, values in self._arrays(conn):
            for state, value in zip(states.tolist(), values.tolist()):
                yield self._row(state, value)

    def state_chunks(self, conn: sqlite3.Connection, size: int) -> Iterator[StateChunk]:
        for states, values in self._arrays(conn):
            for lo in range(0, states.size, size):
                yield self._chunk(states[lo : lo + size], values[lo : lo + size])

    def _chunk(self, states: np.ndarray, values: np.ndarray) -> StateChunk:
        """A :class:`StateChunk` of states (``np.uint64``) and their packed values."""
        import numpy as np

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

    def _layer(self, ply: int, states: np.ndarray, values: np.ndarray) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
        """``(ply, states, outcome codes, distances)`` of sorted states and their packed values."""
        return (ply, states, *unpack_values(values))

    def key(self, conn: sqlite3.Connection, ref: int) -> str:
        return self.game.format_position(int(ref))


class Packed(BlockStorage):
    """Compressed blocks of sorted states per ply, one indexed read per lookup (:mod:`tablebase.store.packed`).

    Moves and parents come from the rules as for the ``states`` storage; side
    to move and terminal flag too.
    """

    name = "packed"
    label = "packed blocks"
    out_of_core = True

    @cached_property
    def reader(self) -> PackedReader:
        """The block reader, with its cache of decoded blocks."""
        from tablebase.store.packed_reader import PackedReader

        return PackedReader(self.game, self.variant_id)

    @classmethod
    def check_game(cls, game: Game) -> None:
        from tablebase.games.bitboard import BitboardGame

        # keys are bitboards or the ``np.uint64`` states of array kernels; predecessors come from the unmoves
        if not (game.has_unmoves and (isinstance(game, BitboardGame) or game.vector is not None)):
            usable = "'moves' or 'states'" if game.has_unmoves else "'moves'"
            raise BuildError(
                f"variant {game.name!r} cannot be stored packed (use storage {usable}): its positions do not fit"
                " the 64-bit key coding or its rules do not list the moves into a position"
            )

    def lookup(self, conn: sqlite3.Connection, state: int) -> Entry | None:
        found = self.reader.locate(conn, state)
        if found is None:
            return None
        outcome, distance = unpack(found[1])
        return Entry(outcome, distance, self.game.outcome(state) is not None, state)

    def _arrays(self, conn: sqlite3.Connection) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        for _, blocks in self.reader.blocks_by_ply(conn):
            for block in blocks:
                yield block.keys, block.values

    def sample(self, conn: sqlite3.Connection, count: int, seed: int) -> list[Row]:
        return [self._row(state, value) for state, value in self.reader.sample(conn, count, seed)]

    def sorted_layers(
        self, conn: sqlite3.Connection, on_error: Callable[[str], None], plies: tuple[int, int] | None = None
    ) -> Iterator[tuple[int, np.ndarray, np.ndarray, np.ndarray]] | None:
        def layers() -> Iterator[tuple[int, np.ndarray, np.ndarray, np.ndarray]]:
            low, high = plies if plies is not None else (0, 1 << 62)
            for ply in self.reader.ply_numbers(conn):
                if low <= ply <= high:
                    yield self._layer(ply, *self.reader.layer(conn, ply, on_error))

        return layers()

    @classmethod
    def write_layers(cls, layers: Layers, *, path: Path, seconds: float, progress: Progress | None) -> None:
        from tablebase.store.packed_writer import write_packed

        cls.check_game(layers.game)
        write_packed(path, layers, seconds, progress=progress)


class Dense(BlockStorage):
    """One value a slot of the game's dense index, in compressed blocks (:mod:`tablebase.store.dense`).

    The storage solves the variant itself, over the index. Lookups take
    positions that can arise in play (the rules' parser checks that), in any
    orientation.
    """

    name = "dense"
    label = "dense index"
    solves = True
    written_by = "solves the variant itself"
    any_orientation = True

    @cached_property
    def reader(self) -> DenseReader:
        """The block reader, with its cache of decoded blocks."""
        from tablebase.store.dense_reader import DenseReader

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
        value = stored_value(self.reader.value(conn, state))
        if value is None:
            return None
        # every stored value has a distance, and only the end of a game is 0 plies from it
        return Entry(value[0], value[1], value[1] == 0, state)

    def moves(self, conn: sqlite3.Connection, state: int, entry: Entry) -> list[tuple[int, Value | None]]:
        return stored_moves(self.reader.moves(conn, state))

    def probe(self, conn: sqlite3.Connection, state: int) -> tuple[Entry | None, list[tuple[int, Value | None]]]:
        packed, moves = self.reader.probe(conn, state)
        value = stored_value(packed)
        if value is None:
            return None, []
        return Entry(value[0], value[1], value[1] == 0, state), stored_moves(moves)

    def parents(self, conn: sqlite3.Connection, state: int, entry: Entry) -> set[tuple[int, int]]:
        reachable = self.game.can_arise
        return {(parent, move) for parent, move in self.game.unmoves(state) if reachable(parent)}

    def _positions(
        self, conn: sqlite3.Connection, plies: tuple[int, int] | None = None, on_error: Callable[[str], None] | None = None
    ) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
        reader = self.reader
        return reader.index.positions(lambda p: reader.ply(conn, p, on_error), plies)

    def _arrays(self, conn: sqlite3.Connection) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        for _, states, values in self._positions(conn):
            yield states, values

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
            value = self.reader.value(conn, state)
            if value is not None:
                picked.append(self._row(state, value))
        return picked

    def sorted_layers(
        self, conn: sqlite3.Connection, on_error: Callable[[str], None], plies: tuple[int, int] | None = None
    ) -> Iterator[tuple[int, np.ndarray, np.ndarray, np.ndarray]] | None:
        def layers() -> Iterator[tuple[int, np.ndarray, np.ndarray, np.ndarray]]:
            for ply, states, values in self._positions(conn, plies, on_error):
                order = states.argsort()
                yield self._layer(ply, states[order], values[order])

        return layers()

    def check_labels(
        self, conn: sqlite3.Connection, on_error: Callable[[str], None], progress: Progress | None
    ) -> int | None:
        reader = self.reader
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
    def build(
        cls, game: Game, *, path: Path, progress: Progress | None, executor: Executor | None = None,
        build_dir: str | os.PathLike[str] | None = None,
    ) -> None:
        from tablebase.store.dense_writer import write_dense

        cls.check_game(game)
        index = game.dense_index()
        assert index is not None
        if executor is None:
            write_dense(path, game, index, progress)
            return
        from tablebase.solve.dense_tasks import build_dense

        built = build_dense(game, build_dir or path.with_name(f"{path.name}.build-{game.name}"), executor, progress)
        write_dense(path, game, index, progress, built)
