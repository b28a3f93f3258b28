"""Bulk writing of a solved variant: one transaction, executemany of plain tuples.

A rebuild deletes the old rows of the variant and inserts the new ones in the
same transaction, so readers (in WAL mode) see either the old tablebase or
the new one, never a mixture, and an interrupted build leaves the old one.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Iterable, Iterator, Sequence

import numpy as np
from sqlalchemy.engine import Engine

from tablebase.solve import NO_DISTANCE, OUTCOME_NAMES, Progress, Solution

BUILDER_VERSION = "tablebase 0.1.0"
CHUNK = 200_000


@dataclass
class VariantRows:
    """Column arrays for the ``states`` and ``moves`` rows of one variant."""

    keys: Sequence[str]
    to_move: Sequence[str]
    orbit: np.ndarray
    representative: np.ndarray
    move_text: Sequence[str]


def outcome_texts(codes: np.ndarray) -> list[Any]:
    """Outcome codes as ``'win'``/``'loss'``/``'draw'`` strings."""
    table = np.array([None, OUTCOME_NAMES[1], OUTCOME_NAMES[2], OUTCOME_NAMES[3]], dtype=object)
    return table[codes].tolist()


def distances(values: np.ndarray) -> list[int | None]:
    """Distances with ``NO_DISTANCE`` as ``None``."""
    out = values.astype(object)
    out[values == NO_DISTANCE] = None
    return out.tolist()


def move_texts(game: Any, moves: np.ndarray) -> list[str]:
    """Notation of each move code, formatting every distinct code once."""
    if moves.size == 0:
        return []
    codes, inverse = np.unique(moves, return_inverse=True)
    texts = np.array([game.format_move(int(c)) for c in codes], dtype=object)
    return texts[inverse].tolist()


def variant_rows(solution: Solution) -> VariantRows:
    """Everything the tables need beyond the solver's arrays."""
    game = solution.game
    kernels = game.vector
    if kernels is not None and isinstance(solution.states, np.ndarray):
        keys = kernels.format_positions(solution.states)
        to_move = kernels.to_move(solution.states)
        orbit = kernels.orbit_sizes(solution.states)
        if solution.symmetry:
            representative = np.ones(len(keys), dtype=bool)
        else:
            representative = kernels.canonical(solution.states) == solution.states
    else:
        states = solution.states
        keys = [game.format_position(s) for s in states]
        to_move = [game.to_move(s) for s in states]
        orbit = np.fromiter((game.orbit_size(s) for s in states), dtype=np.int64, count=len(states))
        if solution.symmetry:
            representative = np.ones(len(states), dtype=bool)
        else:
            representative = np.fromiter(
                (game.canonical(s)[0] == s for s in states), dtype=bool, count=len(states)
            )
    return VariantRows(keys, to_move, orbit, representative, move_texts(game, solution.move))


def _chunks(rows: Iterable[tuple[Any, ...]], size: int) -> Iterator[list[tuple[Any, ...]]]:
    chunk: list[tuple[Any, ...]] = []
    for row in rows:
        chunk.append(row)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def write_solution(
    engine: Engine,
    solution: Solution,
    build_seconds: float,
    progress: Progress | None = None,
    complete: bool = True,
) -> int:
    """Replace the variant's tables with ``solution`` in one transaction; returns the variant id."""
    game = solution.game
    rows = variant_rows(solution)
    n, m = solution.num_states, solution.num_moves
    outcome, distance = solution.result()
    raw = engine.raw_connection()
    try:
        conn: sqlite3.Connection = raw.driver_connection  # type: ignore[assignment]
        conn.isolation_level = None
        cur = conn.cursor()
        # ids are assigned consistently below; per-row foreign key checks only slow the load
        cur.execute("PRAGMA foreign_keys = OFF")
        cur.execute("BEGIN IMMEDIATE")
        try:
            variant_id = delete_variant(cur, game.name)
            if variant_id is None:
                cur.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM variants")
                variant_id = cur.fetchone()[0]
            cur.execute(
                "INSERT INTO variants (id, name, family, rules, parameters, symmetry, complete, root_key,"
                " outcome, distance, states_count, moves_count, build_seconds, builder_version, built_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    variant_id,
                    game.name,
                    game.family,
                    game.rules,
                    json.dumps(game.parameters()),
                    solution.symmetry,
                    complete,
                    rows.keys[0],
                    outcome,
                    distance,
                    n,
                    m,
                    build_seconds,
                    BUILDER_VERSION,
                    datetime.now(timezone.utc).replace(tzinfo=None).isoformat(sep=" "),
                ),
            )
            cur.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM states")
            base = cur.fetchone()[0]
            state_rows = zip(
                range(base, base + n),
                [variant_id] * n,
                rows.keys,
                rows.to_move,
                solution.ply.tolist(),
                (solution.terminal != 0).tolist(),
                outcome_texts(solution.outcome),
                distances(solution.distance),
                rows.orbit.tolist(),
                rows.representative.tolist(),
            )
            done = 0
            total = n + m
            for chunk in _chunks(state_rows, CHUNK):
                cur.executemany("INSERT INTO states VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", chunk)
                done += len(chunk)
                if progress is not None:
                    progress("write", done, total)
            move_rows = zip((solution.src + base).tolist(), rows.move_text, (solution.dst + base).tolist())
            for chunk in _chunks(move_rows, CHUNK):
                cur.executemany("INSERT INTO moves VALUES (?, ?, ?)", chunk)
                done += len(chunk)
                if progress is not None:
                    progress("write", done, total)
            cur.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                cur.execute("ROLLBACK")
            raise
        return int(variant_id)
    finally:
        conn.execute("PRAGMA foreign_keys = ON")
        raw.close()


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
    cur.execute("DELETE FROM variants WHERE id = ?", (row[0],))
    return int(row[0])
