"""A variant stored tier by tier: packed blocks a tier, each finished tier written in one transaction.

A build tier by tier (:mod:`tablebase.solve.tier_build`) keeps the variant in
the ``packed`` storage with ``complete`` false; a tier's sorted states and
values are the blocks of the ply column's value :meth:`Tiering.number
<tablebase.games.tiering.Tiering.number>`, and its ``plies`` row (positions,
classes, wins, losses, draws) is written in the same transaction as its
blocks. A tier is stored whole or not at all, so a stopped build loses only
the tiers under way and goes on from the ``plies`` rows.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import TYPE_CHECKING

from tablebase.errors import BuildError
from tablebase.store.block_codec import BlockRow, insert_rows, unpack_values
from tablebase.store.packed import encode_block
from tablebase.store.packed_writer import layer_blocks
from tablebase.store.proved import PLY_COLUMNS, insert_variant

if TYPE_CHECKING:
    import numpy as np

    from tablebase.games.base import Game

#: The storage a variant built tier by tier is kept in.
STORAGE = "packed"


def _connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None, timeout=60)
    conn.execute("PRAGMA journal_mode = WAL")
    return conn


def open_tiered(path: Path, game: Game) -> int:
    """The id of ``game``'s variant in the file ``path`` (made, with the newest schema, if missing) to
    build tier by tier: added with no tier when absent; :class:`BuildError` when the file holds it
    built otherwise."""
    from tablebase.store.engine import make_engine, upgrade

    engine = make_engine(path)
    try:
        upgrade(engine)
    finally:
        engine.dispose()
    conn = _connect(path)
    try:
        cur = conn.cursor()
        cur.execute("BEGIN IMMEDIATE")
        row = cur.execute("SELECT id, storage, complete FROM variants WHERE name = ?", (game.name,)).fetchone()
        if row is not None:
            cur.execute("ROLLBACK")
            variant_id, storage, complete = row
            plies = [r[0] for r in cur.execute("SELECT ply FROM plies WHERE variant_id = ?", (variant_id,))]
            by_ply = any(game.tier_name(p) is None for p in plies)
            if storage != STORAGE or complete or by_ply:
                raise BuildError(
                    f"variant {game.name!r} is stored in {path} by another build (storage {storage!r});"
                    f" remove it first (tablebase drop {game.name}) to build it tier by tier"
                )
            return int(variant_id)
        variant_id = cur.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM variants").fetchone()[0]
        root = game.canonical(game.initial_state())[0]
        insert_variant(cur, variant_id, game, game.format_position(root), symmetry=True, storage=STORAGE, complete=False)
        cur.execute("COMMIT")
        return int(variant_id)
    finally:
        conn.close()


def stored_tiers(path: Path, variant_id: int) -> set[int]:
    """The numbers of the tiers stored whole."""
    conn = _connect(path)
    try:
        return {r[0] for r in conn.execute("SELECT ply FROM plies WHERE variant_id = ?", (variant_id,))}
    finally:
        conn.close()


def read_tier(path: Path, game: Game, variant_id: int, number: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(sorted states, outcome codes, distances)`` of the tier stored under ``number`` in the file ``path``."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=60)
    try:
        return tier_arrays(conn, game, variant_id, number)
    finally:
        conn.close()


def tier_arrays(
    conn: sqlite3.Connection, game: Game, variant_id: int, number: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(sorted states, outcome codes, distances)`` of the tier stored under ``number``, read through ``conn``."""
    from tablebase.store.packed_reader import PackedReader

    states, values = PackedReader(game, variant_id).layer(conn, number)
    outcome, distance = unpack_values(values)
    return states, outcome, distance


def write_tier(
    path: Path, game: Game, variant_id: int, number: int,
    states: np.ndarray, outcome: np.ndarray, distance: np.ndarray, moves: int, seconds: float,
) -> None:
    """Store one solved tier (``states`` canonical and sorted), its blocks and its ``plies`` row in one
    transaction, replacing what was stored under ``number``."""
    import numpy as np

    from tablebase.store.writer import PlyTally, class_columns

    kernels = game.vector
    if kernels is None:
        raise BuildError(f"variant {game.name!r} has no array kernels to store tiers with")
    tally = PlyTally(True)
    orbit, _ = class_columns(game, states, True)
    tally.add(np.full(states.size, number), orbit, None, outcome, kernels.outcome(states) != 0)
    counts = tally.sums.get(number, np.zeros(len(PLY_COLUMNS), dtype=np.int64))

    def rows() -> list[BlockRow]:
        return [
            (variant_id, ply, first, game.format_position(first), count, encode_block(keys, values, ply))
            for ply, first, count, keys, values in layer_blocks(game, number, states, outcome, distance)
        ]

    encoded = rows()
    started = time.perf_counter()
    conn = _connect(path)
    try:
        cur = conn.cursor()
        cur.execute("BEGIN IMMEDIATE")
        try:
            cur.execute("DELETE FROM blocks WHERE variant_id = ? AND ply = ?", (variant_id, number))
            cur.execute("DELETE FROM plies WHERE variant_id = ? AND ply = ?", (variant_id, number))
            insert_rows(cur, encoded)
            cur.execute(
                f"INSERT INTO plies (variant_id, ply, {', '.join(PLY_COLUMNS)}) VALUES ({', '.join('?' * (2 + len(PLY_COLUMNS)))})",
                (variant_id, number, *map(int, counts)),
            )
            cur.execute(
                "UPDATE variants SET states_count = (SELECT COALESCE(SUM(classes), 0) FROM plies WHERE variant_id = ?1),"
                " moves_count = moves_count + ?2, build_seconds = build_seconds + ?3 WHERE id = ?1",
                (variant_id, moves, seconds + time.perf_counter() - started),
            )
            cur.execute("COMMIT")
        except BaseException:
            cur.execute("ROLLBACK")
            raise
    finally:
        conn.close()
