"""Writing a packed variant: per-ply arrays (the out-of-core build's layer files or an in-memory
solution) sorted, cut into blocks of :data:`tablebase.store.packed.BLOCK` states and stored as
rows of ``blocks``, without a row per state.

Side to move, terminal flag, orbit size and representative flag are not
stored: they follow from the rules; the ``plies`` rows are counted from the
build's manifest where it has them, else from the rules.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, Iterator

import numpy as np

from tablebase.store.block_codec import BlockRow, encode_rows, insert_rows, pack_values, ply_sums, write_blocks
from tablebase.store.packed import BLOCK, MAX_STATE, encode_block

if TYPE_CHECKING:
    import os

    from tablebase.games.base import Game
    from tablebase.solve import Progress
    from tablebase.store.states import Layers
    from tablebase.store.writer import PlyTally


def _sorted_layer(game: Game, states: np.ndarray, *columns: np.ndarray) -> tuple[np.ndarray, ...]:
    """The layer's arrays in key order (the out-of-core layers already are)."""
    states = np.asarray(states)
    if states.size and not np.all(states[1:] > states[:-1]):
        order = np.argsort(states, kind="stable")
        states = states[order]
        columns = tuple(np.asarray(c)[order] for c in columns)
        if np.any(states[1:] == states[:-1]):
            raise ValueError(f"{game.name}: a state is stored twice")
    return (states, *columns)


def layer_blocks(
    game: Game, ply: int, states: np.ndarray, outcome: np.ndarray, distance: np.ndarray, block: int = BLOCK
) -> Iterator[tuple[int, int, int, np.ndarray, np.ndarray]]:
    """``(ply, first state, count, keys, values)`` of each block of one layer, in key order."""
    states, outcome, distance = _sorted_layer(game, np.asarray(states, dtype=np.uint64), outcome, distance)
    if states.size and int(states[-1]) > MAX_STATE:
        raise ValueError(f"{game.name}: a state does not fit in 63 bits; packed storage cannot hold it")
    for lo in range(0, states.size, block):
        keys = np.array(states[lo : lo + block])
        values = pack_values(outcome[lo : lo + block], distance[lo : lo + block])
        yield ply, int(keys[0]), int(keys.size), keys, values


def block_rows(
    layers: Layers, variant_id: int, progress: Progress | None = None, block: int = BLOCK, threads: int | None = None
) -> Iterator[BlockRow]:
    """``blocks`` rows of every layer, compressed by ``threads`` threads."""
    game = layers.game
    total = sum(len(layers.states(d)) for d in layers.depths)
    done = 0

    def encode(item: tuple[int, int, int, np.ndarray, np.ndarray]) -> BlockRow:
        ply, first, count, keys, values = item
        return (variant_id, ply, first, game.format_position(first), count, encode_block(keys, values, ply))

    items = (layer_blocks(game, d, layers.states(d), layers.outcome(d), layers.distance(d), block) for d in layers.depths)
    for rows in encode_rows(items, encode, threads):
        for row in rows:
            done += row[4]
            yield row
        if progress is not None:
            progress("pack", done, total)


def ply_tally(layers: Layers) -> PlyTally:
    """The per-ply counts of ``layers``: from the out-of-core build's manifest when it has one, else from the rules."""
    from tablebase.store.writer import OUTCOME_LABELS, PlyTally, class_columns

    tally = PlyTally(layers.symmetry)
    game = layers.game
    kernels = game.vector
    known = {info.depth: info for info in getattr(getattr(layers, "manifest", None), "layers", [])}
    for d in layers.depths:
        outcome = np.asarray(layers.outcome(d))
        labels = np.bincount(outcome, minlength=len(OUTCOME_LABELS))
        info = known.get(d)
        if info is not None and info.outcomes is not None:
            tally.sums[d] = ply_sums(info.positions, info.classes, labels[1:4].tolist(), info.terminal, info.outcomes)
            continue
        states = np.asarray(layers.states(d), dtype=np.uint64)
        if kernels is not None:
            terminal = kernels.outcome(states) != 0
        else:
            terminal = np.array([game.outcome(int(s)) is not None for s in states], dtype=bool)
        orbit, representative = class_columns(game, states, layers.symmetry)
        tally.add(np.full(states.size, d), orbit, representative, outcome, terminal)
    return tally


def fill_packed(
    cur: sqlite3.Cursor, layers: Layers, variant_id: int, progress: Progress | None = None, block: int = BLOCK
) -> PlyTally:
    """Insert the ``blocks`` rows of ``layers``; returns their per-ply counts."""
    insert_rows(cur, block_rows(layers, variant_id, progress, block))
    return ply_tally(layers)


def write_packed(
    path: str | os.PathLike[str], layers: Layers, build_seconds: float, progress: Progress | None = None
) -> None:
    """Store ``layers`` in the SQLite file ``path`` with ``storage = 'packed'``, replacing an earlier build."""
    from tablebase.store.states import summary

    write_blocks(path, summary(layers), "packed", build_seconds, lambda cur, vid: fill_packed(cur, layers, vid, progress), progress)
