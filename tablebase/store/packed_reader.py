"""Lookups of a packed variant: a state's block found by one indexed read, its part decoded and kept.

A lookup finds the ply of a state from the rules (every ply when they do not
tell), reads the block whose first state is the largest not above the state
and the next block's first state (one indexed read), decodes the part whose
range holds the state (:func:`tablebase.store.packed.decode_part`) and
searches it. Decoded parts stay in a least-recently-used
:class:`~tablebase.store.block_cache.BlockCache`, each answering for every
key from its first to the key before the next part's first, so a state that
is not stored is answered from the cache too.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, Callable, Iterator, Sequence

import numpy as np

from tablebase.store.block_cache import CACHE_BYTES, BlockCache
from tablebase.store.block_codec import BlockTable, CorruptBlockError
from tablebase.store.packed import MAX_STATE, KeyBlock, decode_block, decode_part

if TYPE_CHECKING:
    from tablebase.games.base import Game


class PackedReader:
    """Lookups of one packed variant through a read connection (see :class:`BlockCache`)."""

    def __init__(self, game: Game, variant_id: int, cache_bytes: int = CACHE_BYTES):
        self.game = game
        self.variant_id = variant_id
        self.cache: BlockCache[KeyBlock] = BlockCache(cache_bytes)
        self.table = BlockTable(game, variant_id)

    def ply_numbers(self, conn: sqlite3.Connection) -> list[int]:
        """The plies that have blocks, in order."""
        return self.table.plies(conn)

    def _candidate_plies(self, conn: sqlite3.Connection, state: int) -> list[int]:
        """The plies a state can lie in: the one the rules tell (:meth:`Game.plies_played`), else every ply."""
        ply = self.game.plies_played(state)
        if ply is not None:
            return [ply]
        return self.ply_numbers(conn)

    def block(self, conn: sqlite3.Connection, ply: int, key: int) -> KeyBlock | None:
        """The decoded part of a block of ``ply`` whose range would hold ``key`` (``None`` below the first block)."""
        block = self.cache.covering(ply, key)
        if block is not None:
            return block
        row = self.table.at_or_below(conn, ply, key)
        if row is None:
            return None
        first, count, data, following = row
        return self.cache.add(self.decode(ply, first, count, data, key, MAX_STATE if following is None else following - 1))

    def decode(
        self, ply: int, first: int, count: int, data: bytes, key: int | None = None, end: int | None = None
    ) -> KeyBlock:
        """A block row decoded (with ``key``, only the part whose range would hold it), answering for
        keys up to ``end`` (the key before the next block's first); raises :class:`CorruptBlockError`
        naming the variant and the block."""
        try:
            if key is None:
                keys, values = decode_block(data, ply, first, count)
            else:
                keys, values, next_part = decode_part(data, ply, first, count, key)
                if next_part is not None:
                    end = next_part - 1
        except CorruptBlockError as exc:
            raise self.table.corrupt(ply, first, exc) from exc
        return KeyBlock(ply, keys, values, end)

    def _find(self, conn: sqlite3.Connection, state: int, plies: list[int]) -> tuple[int, int] | None:
        if not 0 <= state <= MAX_STATE:
            return None
        for ply in plies:
            block = self.block(conn, ply, state)
            value = block.find(state) if block is not None else None
            if value is not None:
                return ply, value
        return None

    def values(self, conn: sqlite3.Connection, states: Sequence[int]) -> list[int | None]:
        """The packed value of each canonical state, ``None`` where it is not stored."""
        plies_played = self.game.plies_played
        covering = self.cache.covering
        found: list[int | None] = []
        for state in states:
            ply = plies_played(state)
            if ply is None or not 0 <= state <= MAX_STATE:
                hit = self._find(conn, state, self._candidate_plies(conn, state) if ply is None else [ply])
                found.append(None if hit is None else hit[1])
                continue
            block = covering(ply, state) or self.block(conn, ply, state)
            found.append(None if block is None else block.find(state))
        return found

    def locate(self, conn: sqlite3.Connection, state: int) -> tuple[int, int] | None:
        """``(ply, packed value)`` of a canonical state, ``None`` if it is not stored."""
        return self._find(conn, state, self._candidate_plies(conn, state))

    def blocks_by_ply(self, conn: sqlite3.Connection) -> Iterator[tuple[int, Iterator[KeyBlock]]]:
        """Every ply with its blocks in key order, decoded one at a time."""
        for ply in self.ply_numbers(conn):
            yield ply, self._blocks_of(conn, ply)

    def _blocks_of(self, conn: sqlite3.Connection, ply: int) -> Iterator[KeyBlock]:
        for first, count, data in self.table.of_ply(conn, ply):
            yield self.decode(ply, first, count, data)

    def layer(
        self, conn: sqlite3.Connection, ply: int, on_error: Callable[[str], None] | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(sorted states, packed values)`` of one ply; with ``on_error``, blocks that do not
        decode are passed to it and left out instead of raising."""
        keys, values = [], []
        for first, count, data in self.table.of_ply(conn, ply):
            try:
                block = self.decode(ply, first, count, data)
            except CorruptBlockError as exc:
                if on_error is None:
                    raise
                on_error(str(exc))
                continue
            keys.append(block.keys)
            values.append(block.values)
        if not keys:
            return np.empty(0, dtype=np.uint64), np.empty(0, dtype=np.uint16)
        return np.concatenate(keys), np.concatenate(values)

    def sample(self, conn: sqlite3.Connection, count: int, seed: int) -> list[tuple[int, int]]:
        """``count`` stored ``(state, packed value)`` pairs drawn at random (repeatably for one ``seed``)."""
        import random

        rows = conn.execute(
            "SELECT ply, first_state, count FROM blocks WHERE variant_id = ? ORDER BY ply, first_state",
            (self.variant_id,),
        ).fetchall()
        if not rows:
            return []
        ends = np.cumsum([r[2] for r in rows])
        rng = random.Random(seed)
        picked = []
        for _ in range(count):
            at = rng.randrange(int(ends[-1]))
            i = int(np.searchsorted(ends, at, side="right"))
            ply, first, size = rows[i]
            data = conn.execute(
                "SELECT data FROM blocks WHERE variant_id = ? AND ply = ? AND first_state = ?",
                (self.variant_id, ply, first),
            ).fetchone()[0]
            block = self.decode(ply, first, size, data)
            j = at - (int(ends[i - 1]) if i else 0)
            picked.append((int(block.keys[j]), int(block.values[j])))
        return picked
