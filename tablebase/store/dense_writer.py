"""Writing a dense variant: solved here over the game's dense index, or the blocks of a build in
tasks, stored as rows of ``blocks`` (:func:`tablebase.store.dense.encode_block`) with the ``plies``
rows counted by the index."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, Callable, Iterator, Protocol

import numpy as np

from tablebase.store.block_codec import BlockRow, encode_rows, insert_rows, ply_sums, unpack, write_blocks
from tablebase.store.dense import BLOCK, decode_block, encode_block

if TYPE_CHECKING:
    import os

    from tablebase.games.base import Game
    from tablebase.games.common.dense_index import DenseIndex, PlyCounts
    from tablebase.solve import Progress
    from tablebase.store.writer import PlyTally


def dense_rows(
    game: Game, index: DenseIndex, variant_id: int, progress: Progress | None = None, threads: int | None = None
) -> tuple[list[BlockRow], dict[int, PlyCounts]]:
    """The ``blocks`` rows of a whole build (solved here) and its per-ply counts."""
    rows: list[BlockRow] = []
    counts: dict[int, PlyCounts] = {}

    def encode(item: tuple[int, int, np.ndarray]) -> BlockRow:
        ply, first, values = item
        key = game.format_position(index.state(ply, first))
        return (variant_id, ply, first, key, int(values.size), encode_block(values, ply, first))

    def plies() -> Iterator[Iterator[tuple[int, int, np.ndarray]]]:
        for ply, values, tally in index.solve(progress):
            counts[ply] = tally
            yield ((ply, lo, values[lo : lo + BLOCK]) for lo in range(0, values.size, BLOCK))

    for encoded in encode_rows(plies(), encode, threads):
        rows.extend(encoded)
    return rows, counts


def ply_tally(counts: dict[int, PlyCounts]) -> PlyTally:
    """The ``plies`` rows of a dense build (counted over classes, as for every storage reduced by symmetry)."""
    from tablebase.store.writer import PlyTally

    tally = PlyTally(True)
    for ply, c in counts.items():
        if c.positions:
            tally.sums[ply] = ply_sums(c.positions, c.classes, c.class_outcomes, c.terminal, c.outcomes)
    return tally


class BuiltBlocks(Protocol):
    """The blocks and counts of a dense build done elsewhere (:class:`tablebase.solve.dense_tasks.DenseBuild`)."""

    @property
    def seconds(self) -> float:
        """The seconds the build took."""
        ...

    def counts(self) -> dict[int, PlyCounts]:
        """Per ply, its counts."""
        ...

    def blocks(self) -> Iterator[tuple[int, int, int, bytes]]:
        """``(ply, first slot, count, data)`` of every block."""
        ...

    def block(self, ply: int, slot: int) -> tuple[int, int, bytes]:
        """``(first slot, count, data)`` of the block holding a slot."""
        ...


def write_dense(
    path: str | os.PathLike[str], game: Game, index: DenseIndex, progress: Progress | None = None,
    built: BuiltBlocks | None = None,
) -> None:
    """Store ``game`` in the SQLite file ``path`` with ``storage = 'dense'``, replacing an earlier
    build: solved here over its dense index, or the blocks of a build in tasks (``built``); the
    file is written only once the solve is done."""
    import time

    from tablebase.store.states import Summary

    started = time.perf_counter()
    if built is None:
        rows, counts = dense_rows(game, index, 0, progress)
        blocks = {(r[1], r[2]): (r[2], r[4], r[5]) for r in rows}

        def block_of(ply: int, slot: int) -> tuple[int, int, bytes]:
            return blocks[ply, slot - slot % BLOCK]
    else:
        counts = built.counts()
        block_of = built.block
    summary = Summary(game, True, _start_value(game, index, block_of), sum(c.classes for c in counts.values()))
    seconds = time.perf_counter() - started if built is None else built.seconds

    def fill(cur: sqlite3.Cursor, variant_id: int) -> PlyTally:
        written = insert_rows(cur, rows if built is None else _keyed(game, index, built), variant_id)
        if progress is not None:
            progress("write", written, written)
        return ply_tally(counts)

    write_blocks(path, summary, "dense", seconds, fill, progress)


def _start_value(
    game: Game, index: DenseIndex, block_of: Callable[[int, int], tuple[int, int, bytes]]
) -> tuple[str, int | None]:
    """``(outcome, distance)`` of the start, from the rules or from the block ``block_of(ply, slot)``
    (``(first slot, count, data)``) that holds it."""
    root = game.canonical(game.initial_state())[0]
    packed = index.derived(root)
    if packed is None:
        ply, slot = index.slot(root)
        first, count, data = block_of(ply, slot)
        packed = int(decode_block(data, ply, first, count)[slot - first])
    return unpack(packed)


def _keyed(game: Game, index: DenseIndex, built: BuiltBlocks) -> Iterator[BlockRow]:
    """The ``blocks`` rows of a build in tasks, each with the position of its first slot as text."""
    for ply, first, count, data in built.blocks():
        yield 0, ply, first, game.format_position(index.state(ply, first)), count, data
