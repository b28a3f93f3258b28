"""A variant stored tier by tier: one value a slot of each tier's dense numbering, a unit's tiers written in one transaction.

A build tier by tier (:mod:`tablebase.solve.tier_build`) keeps the variant in
the ``tiers`` storage (:class:`~tablebase.store.storage.tiered.Tiered`) with
``complete`` false. A tier's values (:class:`~tablebase.games.tiering.DenseTiers`:
two bytes a slot) are cut into the blocks of :mod:`tablebase.store.tier_blocks`,
one row of ``blocks`` each, under the tier's number. The tiers of a unit are written with their ``plies`` rows (positions, classes, wins,
losses, draws) in one transaction, so a stopped build loses only the units
under way and goes on from the ``plies`` rows.

A file whose variant was built tier by tier before this storage (packed
blocks of sorted states under ``100 x + o``) is refused when it is opened
(:func:`~tablebase.store.tier_blocks.older_tiers`).
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import TYPE_CHECKING, Mapping

from tablebase.errors import BuildError
from tablebase.store.block_codec import BlockRow, insert_rows
from tablebase.store.proved import PLY_COLUMNS, insert_variant
from tablebase.store.tier_blocks import BLOCK, STORAGE, encode_block, older_tiers, tier_values

if TYPE_CHECKING:
    import numpy as np

    from tablebase.games.base import Game
    from tablebase.games.tiering import DenseTiers

#: Seconds a writer waits for another writer's transaction.
WRITE_TIMEOUT = 3600
#: Page size of a file a tier build starts in. Blocks of about 1.6 KB fill 64 KB pages; 4 KB pages
#: hold one or two and leave about 720 bytes a row empty (nine-a-side Morris: 5.3 GB against 3.8 GB).
PAGE_SIZE = 65536


def _connect(path: Path, timeout: float = 60) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None, timeout=timeout)
    conn.execute("PRAGMA journal_mode = WAL")
    return conn


def open_tiered(path: Path, game: Game) -> int:
    """The id of ``game``'s variant in the file ``path`` (made, with the newest schema, if missing) to
    build tier by tier: added with no tier when absent, the file's pages widened to :data:`PAGE_SIZE`
    first (:func:`widen_pages`); :class:`BuildError` when the file holds it built otherwise."""
    from tablebase.store.engine import make_engine, upgrade

    engine = make_engine(path)
    try:
        upgrade(engine)
    finally:
        engine.dispose()
    conn = _connect(path)
    try:
        absent = conn.execute("SELECT 1 FROM variants WHERE name = ?", (game.name,)).fetchone() is None
    finally:
        conn.close()
    if absent:
        widen_pages(path)
    conn = _connect(path)
    try:
        cur = conn.cursor()
        cur.execute("BEGIN IMMEDIATE")
        row = cur.execute("SELECT id, storage, complete FROM variants WHERE name = ?", (game.name,)).fetchone()
        if row is not None:
            cur.execute("ROLLBACK")
            variant_id, storage, complete = row
            plies = [r[0] for r in cur.execute("SELECT ply FROM plies WHERE variant_id = ?", (variant_id,))]
            older = older_tiers(game, storage, plies)
            if older is not None:
                raise BuildError(older)
            if storage != STORAGE or complete:
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


def widen_pages(path: Path, page_size: int = PAGE_SIZE) -> bool:
    """Rewrite the file ``path`` with pages of ``page_size`` bytes if its pages are smaller; whether its
    pages are that large now (not when another connection holds the file open: it is left as it was)."""
    conn = sqlite3.connect(path, isolation_level=None, timeout=1)
    try:
        if conn.execute("PRAGMA page_size").fetchone()[0] >= page_size:
            return True
        try:
            if conn.execute("PRAGMA journal_mode = DELETE").fetchone()[0] != "delete":
                return False
        except sqlite3.OperationalError:
            return False
        try:
            conn.execute(f"PRAGMA page_size = {int(page_size)}")
            conn.execute("VACUUM")
        finally:
            conn.execute("PRAGMA journal_mode = WAL")
        return bool(conn.execute("PRAGMA page_size").fetchone()[0] >= page_size)
    finally:
        conn.close()


def stored_tiers(path: Path, variant_id: int) -> set[int]:
    """The numbers of the tiers stored whole."""
    conn = _connect(path)
    try:
        return {r[0] for r in conn.execute("SELECT ply FROM plies WHERE variant_id = ?", (variant_id,))}
    finally:
        conn.close()


def tier_rows(
    game: Game, tiering: DenseTiers, variant_id: int, number: int, values: np.ndarray
) -> list[BlockRow]:
    """The ``blocks`` rows of tier ``number`` holding ``values``."""
    import numpy as np

    from tablebase.store.block_codec import encode_rows

    firsts = list(range(0, len(values), BLOCK))
    states = tiering.states(number, np.array(firsts, dtype=np.int64)).tolist()

    def row(i: int) -> BlockRow:
        first = firsts[i]
        part = values[first : first + BLOCK]
        return variant_id, number, first, game.format_position(int(states[i])), len(part), encode_block(part, number, first)

    return [r for rows in encode_rows([range(len(firsts))], row) for r in rows]


def read_values(path: Path, variant_id: int, number: int, size: int) -> np.ndarray:
    """:func:`tier_values` from the file ``path``."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=60)
    try:
        return tier_values(conn, variant_id, number, size)
    finally:
        conn.close()


def write_unit(
    path: Path, game: Game, tiering: DenseTiers, variant_id: int, solved: Mapping[int, np.ndarray], seconds: float
) -> None:
    """Store the solved tiers ``solved`` (number: values), their blocks and ``plies`` rows in one
    transaction, replacing what was stored under their numbers."""
    started = time.perf_counter()
    encoded = [r for number, values in solved.items() for r in tier_rows(game, tiering, variant_id, number, values)]
    counts = {number: tiering.counts(number, values) for number, values in solved.items()}
    conn = _connect(path, WRITE_TIMEOUT)
    try:
        cur = conn.cursor()
        cur.execute("BEGIN IMMEDIATE")
        try:
            for number, c in counts.items():
                cur.execute("DELETE FROM blocks WHERE variant_id = ? AND ply = ?", (variant_id, number))
                cur.execute("DELETE FROM plies WHERE variant_id = ? AND ply = ?", (variant_id, number))
                cur.execute(
                    f"INSERT INTO plies (variant_id, ply, {', '.join(PLY_COLUMNS)})"
                    f" VALUES ({', '.join('?' * (2 + len(PLY_COLUMNS)))})",
                    (variant_id, number, c.positions, c.classes, c.wins, c.losses, c.draws, c.terminal,
                     c.win_positions, c.loss_positions, c.draw_positions),
                )  # fmt: skip
            insert_rows(cur, encoded)
            cur.execute(
                "UPDATE variants SET states_count = (SELECT COALESCE(SUM(classes), 0) FROM plies WHERE variant_id = ?1),"
                " build_seconds = build_seconds + ?2 WHERE id = ?1",
                (variant_id, seconds + time.perf_counter() - started),
            )
            cur.execute("COMMIT")
        except BaseException:
            cur.execute("ROLLBACK")
            raise
    finally:
        conn.close()
