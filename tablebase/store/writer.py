"""Bulk writing of a solved variant: one transaction, columns packed by :mod:`tablebase.store.bulk`.

A rebuild deletes the old rows of the variant and inserts the new ones in the
same transaction, so readers (in WAL mode) see either the old tablebase or
the new one, never a mixture, and an interrupted build leaves the old one.

Rows are produced in chunks of :data:`CHUNK` straight from the solver's
arrays (on the vector path the keys are formatted by the game's array
kernels), so memory does not grow with the size of the variant. When the
new rows outnumber the rows of the other variants in the file, the secondary
indexes of a table are dropped inside the transaction and recreated after the
load (from their own ``CREATE INDEX`` text, so the schema stays the one the
migrations made): building an index once by sorting is much faster than
updating it row by row. A larger page cache is used for the load, and the
write-ahead log is truncated after the commit.
"""

from __future__ import annotations

import os
import sqlite3
import time
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Iterator

import numpy as np

from tablebase.outcome import NAMES, NO_DISTANCE, Code
from tablebase.progress import Progress
from tablebase.solve import Solution, reached
from tablebase.store import bulk
from tablebase.store.proved import PLY_COLUMNS, insert_variant

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

#: Rows per bulk insert.
CHUNK = 100_000
#: Page cache for the load, in KiB (SQLite's negative ``cache_size``).
LOAD_CACHE_KIB = 1 << 20

#: Outcome codes to the texts stored (code 0, unknown, is never stored).
OUTCOME_LABELS = [None, NAMES[Code.WIN], NAMES[Code.LOSS], NAMES[Code.DRAW]]


def move_labels(game: Any, moves: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """``(codes, labels)``: the notation of each move code as an index into its distinct texts."""
    moves = np.asarray(moves)
    present, inverse = np.unique(moves, return_inverse=True)
    return inverse.reshape(-1), [game.format_move(int(c)) for c in present]


def class_columns(
    game: Any, states: list[int] | np.ndarray, symmetry: bool
) -> tuple[np.ndarray, np.ndarray | None]:
    """``(orbit, representative)`` of stored states: how many reachable positions each stands for (its
    orbit size, unless a symmetry moves the start: :func:`tablebase.solve.reached`) and, without
    symmetry reduction, whether each is the one position that counts its class (``None`` with it)."""
    kernels = game.vector
    reach = reached(game)
    if reach is not None:
        values = [int(s) for s in states]
        orbit = np.array([reach.positions(s) for s in values], dtype=np.int64)
        representative = None if symmetry else np.array([reach.counts_class(s) for s in values], dtype=bool)
    elif kernels is not None and isinstance(states, np.ndarray):
        orbit = kernels.orbit_sizes(states)
        representative = None if symmetry else kernels.canonical(states) == states
    else:
        values = [int(s) for s in states]
        orbit = np.array([game.orbit_size(s) for s in values], dtype=np.int64)
        representative = None if symmetry else np.array([game.canonical(s)[0] == s for s in values], dtype=bool)
    return orbit, representative


def state_columns(
    game: Any,
    states: list[int] | np.ndarray,
    ply: np.ndarray,
    outcome: np.ndarray,
    distance: np.ndarray,
    symmetry: bool,
    terminal: np.ndarray | None = None,
    tally: PlyTally | None = None,
) -> dict[str, bulk.Column]:
    """The ``states`` columns (all but ids) of a chunk of solved states, for :func:`bulk.insert`.

    ``tally``, if given, counts the chunk for the ``plies`` table.
    """
    kernels = game.vector
    if kernels is not None and isinstance(states, np.ndarray):
        keys = bulk.Texts(kernels.key_bytes(states))
        sides = kernels.to_move(states)
        if terminal is None:
            terminal = kernels.outcome(states)
    else:
        keys = bulk.Texts([game.format_position(s) for s in states])
        sides = [game.to_move(s) for s in states]
        if terminal is None:
            terminal = np.array([game.outcome(s) is not None for s in states])
    orbit, representative = class_columns(game, states, symmetry)
    outcome = np.asarray(outcome)
    if outcome.size and (int(outcome.min()) < 1 or int(outcome.max()) >= len(OUTCOME_LABELS)):
        raise ValueError(f"{game.name}: states without an outcome cannot be stored")
    if tally is not None:
        tally.add(np.asarray(ply), np.asarray(orbit), representative, outcome, np.asarray(terminal))
    side_labels, side_codes = np.unique(np.asarray(sides, dtype=object).astype(str), return_inverse=True)
    distance = np.asarray(distance)
    return {
        "key": keys,
        "to_move": bulk.Choice(side_codes.reshape(-1), side_labels.tolist()),
        "ply": bulk.Ints(np.asarray(ply)),
        "terminal": bulk.Ints(np.asarray(terminal) != 0),
        "outcome": bulk.Choice(outcome, OUTCOME_LABELS),
        "distance": bulk.Ints(distance, null=distance == NO_DISTANCE),
        "orbit": bulk.Ints(np.asarray(orbit)),
        "representative": bulk.Constant(1) if representative is None else bulk.Ints(representative),
    }


class PlyTally:
    """Per-ply counts (the ``plies`` table) accumulated over the chunks of a write."""

    #: Columns after ``variant_id`` and ``ply``, in the order of :meth:`add`'s sums.
    COLUMNS = PLY_COLUMNS

    def __init__(self, symmetry: bool):
        self.symmetry = symmetry
        self.sums: dict[int, np.ndarray] = {}

    def add(
        self,
        ply: np.ndarray,
        orbit: np.ndarray,
        representative: np.ndarray | None,
        outcome: np.ndarray,
        terminal: np.ndarray,
    ) -> None:
        """Count a chunk of states (``representative`` is ``None`` when every state is one)."""
        plies, at = np.unique(np.asarray(ply), return_inverse=True)
        at = at.reshape(-1)
        ones = np.ones(at.size)
        if self.symmetry:
            positions, classes = np.asarray(orbit, dtype=np.float64), ones
        else:
            positions = ones
            classes = ones if representative is None else np.asarray(representative, dtype=np.float64)
        outcome = np.asarray(outcome)
        measures = [positions, classes]
        measures += [(outcome == OUTCOME_LABELS.index(label)).astype(np.float64) for label in ("win", "loss", "draw")]
        measures.append((np.asarray(terminal) != 0).astype(np.float64))
        measures += [m * positions for m in measures[2:5]]
        table = np.stack([np.bincount(at, weights=m, minlength=plies.size) for m in measures], axis=1)
        for i, p in enumerate(plies.tolist()):
            row = np.rint(table[i]).astype(np.int64)
            self.sums[p] = self.sums[p] + row if p in self.sums else row

    def write(self, cur: sqlite3.Cursor, variant_id: int) -> None:
        """Replace the variant's rows of ``plies`` with the counts."""
        cur.execute("DELETE FROM plies WHERE variant_id = ?", (variant_id,))
        cur.executemany(
            f"INSERT INTO plies (variant_id, ply, {', '.join(self.COLUMNS)}) VALUES ({', '.join('?' * (2 + len(self.COLUMNS)))})",
            [(variant_id, p, *map(int, self.sums[p])) for p in sorted(self.sums)],
        )


def state_chunks(
    solution: Solution, variant_id: int, base: int, tally: PlyTally | None = None, chunk: int = CHUNK
) -> Iterator[dict[str, bulk.Column]]:
    """``states`` columns of the variant's rows with ids from ``base``, in chunks (counted into ``tally``)."""
    n = solution.num_states
    for lo in range(0, n, chunk):
        hi = min(n, lo + chunk)
        yield {
            "id": bulk.Ints(np.arange(base + lo, base + hi, dtype=np.int64)),
            "variant_id": bulk.Constant(int(variant_id)),
            **state_columns(
                solution.game,
                solution.states[lo:hi],
                solution.ply[lo:hi],
                solution.outcome[lo:hi],
                solution.distance[lo:hi],
                solution.symmetry,
                solution.terminal[lo:hi],
                tally,
            ),
        }


def move_chunks(solution: Solution, base: int, chunk: int = CHUNK) -> Iterator[dict[str, bulk.Column]]:
    """``moves`` columns (from_state, move, to_state) in chunks."""
    m = solution.num_moves
    for lo in range(0, m, chunk):
        hi = min(m, lo + chunk)
        codes, labels = move_labels(solution.game, solution.move[lo:hi])
        yield {
            "from_state": bulk.Ints(solution.src[lo:hi].astype(np.int64) + base),
            "move": bulk.Choice(codes, labels),
            "to_state": bulk.Ints(solution.dst[lo:hi].astype(np.int64) + base),
        }


def drop_secondary_indexes(cur: sqlite3.Cursor, table: str) -> list[str]:
    """Drop the indexes of ``table`` that can be rebuilt; returns their ``CREATE INDEX`` statements.

    Unique constraints (SQLite's automatic indexes) stay: they have no
    statement of their own and guard the load.
    """
    cur.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL ORDER BY name",
        (table,),
    )
    found = cur.fetchall()
    for name, _ in found:
        cur.execute(f'DROP INDEX "{name}"')
    return [sql for _, sql in found]


def rebuild_indexes(cur: sqlite3.Cursor, statements: list[str]) -> None:
    """Run ``CREATE INDEX`` statements, letting SQLite's sorter use a helper thread per core."""
    if not statements:
        return
    threads = cur.execute("PRAGMA threads").fetchone()[0]
    cur.execute(f"PRAGMA threads = {os.cpu_count() or 1}")
    try:
        for sql in statements:
            cur.execute(sql)
    finally:
        cur.execute(f"PRAGMA threads = {int(threads)}")


def set_build_seconds(cur: sqlite3.Cursor, variant_id: int, seconds: float) -> None:
    """Record the whole build time (solving and writing) on the variant row."""
    cur.execute("UPDATE variants SET build_seconds = ? WHERE id = ?", (seconds, variant_id))


def write_solution(
    engine: Engine, solution: Solution, build_seconds: float, progress: Progress | None = None, complete: bool = True
) -> int:
    """Replace the variant's tables with ``solution`` in one transaction; returns the variant id.

    ``build_seconds`` is the time spent solving; the row records it plus the write.
    """
    started = time.perf_counter()
    game = solution.game
    n, m = solution.num_states, solution.num_moves
    outcome, distance = solution.result()
    root = solution.states[0]
    root_key = game.format_position(int(root))
    with load_transaction(engine, LOAD_CACHE_KIB) as cur:
        cur.execute(
            "SELECT COALESCE(SUM(states_count), 0), COALESCE(SUM(moves_count), 0) FROM variants WHERE name != ?",
            (game.name,),
        )
        other_states, other_moves = cur.fetchone()
        rebuilt = []
        for table, others, new in (("states", other_states, n), ("moves", other_moves, m)):
            if others <= new:
                rebuilt += drop_secondary_indexes(cur, table)
        variant_id = replace_variant(cur, game.name)
        insert_variant(
            cur, variant_id, game, root_key, symmetry=solution.symmetry, storage="moves", complete=complete,
            outcome=outcome, distance=distance, states=n, moves=m, build_seconds=build_seconds,
        )  # fmt: skip
        cur.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM states")
        base = cur.fetchone()[0]
        done = 0
        total = n + m
        tally = PlyTally(solution.symmetry)
        chunks = (("states", state_chunks(solution, variant_id, base, tally)), ("moves", move_chunks(solution, base)))
        for table, columns_of in chunks:
            for columns in bulk.prefetch(columns_of):
                done += bulk.insert(cur, table, columns)
                if progress is not None:
                    progress("write", done, total)
        rebuild_indexes(cur, rebuilt)
        tally.write(cur, variant_id)
        set_build_seconds(cur, variant_id, build_seconds + time.perf_counter() - started)
    return int(variant_id)


def load_pragmas(cur: sqlite3.Cursor, cache_kib: int) -> None:
    """Settings for a bulk load: no per-row foreign key checks (the loaders assign ids consistently),
    no per-row ``CHECK`` (outcomes come from a fixed vocabulary, checked in :func:`state_columns`),
    a page cache of ``cache_kib`` KiB."""
    cur.execute("PRAGMA foreign_keys = OFF")
    cur.execute("PRAGMA ignore_check_constraints = ON")
    cur.execute(f"PRAGMA cache_size = {-cache_kib}")


@contextmanager
def load_transaction(engine: Engine, cache_kib: int) -> Iterator[sqlite3.Cursor]:
    """A write transaction for a bulk load (:func:`load_pragmas`): committed when the block ends,
    rolled back if it raises; the write-ahead log is truncated after the commit."""
    raw = engine.raw_connection()
    conn: sqlite3.Connection = raw.driver_connection  # type: ignore[assignment]
    conn.isolation_level = None
    cur = conn.cursor()
    cache_size = cur.execute("PRAGMA cache_size").fetchone()[0]
    try:
        load_pragmas(cur, cache_kib)
        cur.execute("BEGIN IMMEDIATE")
        try:
            yield cur
            cur.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                cur.execute("ROLLBACK")
            raise
        truncate_wal(cur)
    finally:
        bulk.finish(cur)
        conn.execute("PRAGMA ignore_check_constraints = OFF")
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute(f"PRAGMA cache_size = {int(cache_size)}")
        raw.close()


def truncate_wal(cur: sqlite3.Cursor) -> None:
    """Copy the write-ahead log into the database and empty it, unless readers still use it."""
    timeout = cur.execute("PRAGMA busy_timeout").fetchone()[0]
    try:
        cur.execute("PRAGMA busy_timeout = 0")
        cur.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    except sqlite3.OperationalError:
        pass
    finally:
        cur.execute(f"PRAGMA busy_timeout = {int(timeout)}")


def replace_variant(cur: sqlite3.Cursor, name: str) -> int:
    """Delete the variant ``name`` if it exists; the id its new row takes (the old one, or a new one)."""
    variant_id = delete_variant(cur, name)
    if variant_id is None:
        variant_id = int(cur.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM variants").fetchone()[0])
    return variant_id


def delete_variant(cur: sqlite3.Cursor, name: str) -> int | None:
    """Delete a variant and its rows inside the caller's transaction; its id, if it existed."""
    cur.execute("SELECT id FROM variants WHERE name = ?", (name,))
    row = cur.fetchone()
    if row is None:
        return None
    cur.execute(
        "DELETE FROM moves WHERE from_state IN (SELECT id FROM states WHERE variant_id = ?)", (row[0],)
    )
    cur.execute("DELETE FROM states WHERE variant_id = ?", (row[0],))
    cur.execute("DELETE FROM plies WHERE variant_id = ?", (row[0],))
    cur.execute("DELETE FROM blocks WHERE variant_id = ?", (row[0],))
    cur.execute("DELETE FROM variants WHERE id = ?", (row[0],))
    return int(row[0])
