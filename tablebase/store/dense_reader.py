"""Lookups of a dense variant: the rules asked first, then one block read and the part needed decoded.

A position that can arise in play, in any orientation, is found in the
game's dense index (:meth:`~tablebase.games.common.dense_index.DenseIndex.find`);
the rules give the value of some (the end of a game, a win with the next
move), the others are read from the block holding their slot (one indexed
read), of which only the part holding the slot is decoded
(:class:`tablebase.store.dense.SlotBlock`). Blocks and their decoded parts
stay in a least-recently-used :class:`~tablebase.store.block_cache.BlockCache`.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, Callable, Sequence

import numpy as np

from tablebase.games.common.dense_index import DRAWN_END, LOST_END, WON_END
from tablebase.store.block_cache import CACHE_BYTES, BlockCache
from tablebase.store.block_codec import BlockTable, CorruptBlockError
from tablebase.store.dense import BLOCK, PART, SlotBlock

if TYPE_CHECKING:
    from tablebase.games.base import Game
    from tablebase.games.common.dense_index import DenseIndex

#: The packed values of a game over (distance 0), which have no moves.
GAME_OVER = (LOST_END, WON_END, DRAWN_END)


class DenseReader:
    """Lookups of one dense variant through a read connection."""

    def __init__(self, game: Game, index: DenseIndex, variant_id: int, cache_bytes: int = CACHE_BYTES):
        self.game = game
        self.index = index
        self.variant_id = variant_id
        self.cache: BlockCache[SlotBlock] = BlockCache(cache_bytes)
        self.table = BlockTable(game, variant_id, index.state)

    def _blocks(self, conn: sqlite3.Connection, wanted: set[tuple[int, int]]) -> dict[tuple[int, int], SlotBlock]:
        """The blocks ``(ply, first slot)`` that are stored, from the cache or read together."""
        found: dict[tuple[int, int], SlotBlock] = {}
        missing: dict[int, list[int]] = {}
        keys = list(wanted)
        for key, block in zip(keys, self.cache.covering_each(keys)):
            if block is None:
                missing.setdefault(key[0], []).append(key[1])
            else:
                found[key] = block
        for ply, firsts in missing.items():
            rows = conn.execute(
                "SELECT first_state, count, data FROM blocks WHERE variant_id = ? AND ply = ?"
                f" AND first_state IN ({', '.join('?' * len(firsts))})",
                (self.variant_id, ply, *firsts),
            )
            for first, count, data in rows:
                found[ply, first] = self.cache.add(self.decode(ply, first, count, data))
        return found

    def decode(self, ply: int, first: int, count: int, data: bytes) -> SlotBlock:
        """A block row checked; raises :class:`CorruptBlockError` naming the variant and the block."""
        try:
            return SlotBlock(data, ply, first, count)
        except CorruptBlockError as exc:
            raise self.table.corrupt(ply, first, exc) from exc

    def value(self, conn: sqlite3.Connection, state: int) -> int | None:
        """The packed value of a position that can arise in play, in any orientation (``None``: not stored)."""
        derived, ply, slot = self.index.find(state)
        if slot < 0:
            return None
        if derived is not None:
            return derived
        return self._stored(self._blocks(conn, {(ply, slot - slot % BLOCK)}), ply, slot)

    def moves(self, conn: sqlite3.Connection, state: int) -> list[tuple[int, int | None]]:
        """``(move, packed value of the position it leads to)`` for every move of a position not over."""
        children = self.index.children(state)
        return self._moves(children, self._blocks(conn, _wanted(children)))

    def probe(self, conn: sqlite3.Connection, state: int) -> tuple[int | None, list[tuple[int, int | None]]]:
        """:meth:`value` of a position and, unless it is not stored or over, its :meth:`moves`, the
        blocks of both read together."""
        derived, ply, slot = self.index.find(state)
        if slot < 0:
            return None, []
        if derived in GAME_OVER:
            return derived, []
        children = self.index.children(state)
        wanted = _wanted(children)
        if derived is None:
            wanted.add((ply, slot - slot % BLOCK))
        blocks = self._blocks(conn, wanted)
        if derived is None:
            derived = self._stored(blocks, ply, slot)
            if derived is None:
                return None, []
        return derived, self._moves(children, blocks)

    def _stored(self, blocks: dict[tuple[int, int], SlotBlock], ply: int, slot: int) -> int | None:
        """The stored byte of a slot from the blocks read, ``None`` when nothing is stored there."""
        offset = slot % BLOCK
        block = blocks.get((ply, slot - offset))
        if block is None:
            return None
        i = offset // PART
        part = block.parts[i]
        if part is None:
            try:
                part = block.part(i)
            except CorruptBlockError as exc:
                raise self.table.corrupt(ply, slot - offset, exc) from exc
        return part[offset - i * PART] or None

    def _moves(
        self, children: list[tuple[int, int, int | None, int, int]], blocks: dict[tuple[int, int], SlotBlock]
    ) -> list[tuple[int, int | None]]:
        """``(move, packed value)`` of each of :meth:`DenseIndex.children`, from the blocks read."""
        return [
            (move, self._stored(blocks, ply, slot) if derived is None else derived)
            for move, _, derived, ply, slot in children
        ]

    def values(self, conn: sqlite3.Connection, states: Sequence[int]) -> list[int | None]:
        """:meth:`value` of each state."""
        return [self.value(conn, s) for s in states]

    def ply(self, conn: sqlite3.Connection, ply: int, on_error: Callable[[str], None] | None = None) -> np.ndarray:
        """The stored bytes of a whole ply (a block that does not decode reads as zeros, reported to
        ``on_error``, or raises without it)."""
        size = self.index.ply_sizes()[ply]
        out = np.zeros(size, dtype=np.uint8)
        for first, count, data in self.table.of_ply(conn, ply):
            try:
                out[first : first + count] = SlotBlock(data, ply, first, count).expand()
            except CorruptBlockError as exc:
                named = self.table.corrupt(ply, first, exc)
                if on_error is None:
                    raise named from exc
                on_error(str(named))
        return out


def _wanted(children: list[tuple[int, int, int | None, int, int]]) -> set[tuple[int, int]]:
    """The blocks ``(ply, first slot)`` holding the children the rules give no value for."""
    return {(ply, slot - slot % BLOCK) for _, _, derived, ply, slot in children if derived is None}
