"""States rows into SQLite: bulk column inserts against executemany of tuples, same rows, same process.

    python benchmarks/bulk_write.py [--variant mnk-4-4-4] [--no-symmetry]

Solves the variant in memory (not timed), then writes its ``states`` rows in
key order into fresh files made by the alembic migrations, with the pragmas
of the states-only writer (no journal, 2 GiB page cache, no per-row CHECK),
three ways:

* ``executemany``: Python tuples per row (keys as ``str``), the writer's
  former method;
* ``bulk``: :func:`tablebase.store.bulk.insert`, one blob per column;
* ``bulk, no indexes``: the same into a table without its two indexes
  (what the indexes cost).

Each is timed with and without producing its rows, and the ratios to
``executemany`` are printed.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tablebase import games  # noqa: E402
from tablebase.solve import solve  # noqa: E402
from tablebase.store import bulk  # noqa: E402
from tablebase.store.engine import make_engine, upgrade  # noqa: E402
from tablebase.store.writer import OUTCOME_LABELS, state_columns  # noqa: E402

CHUNK = 200_000


def fresh(path: Path, indexes: bool = True) -> sqlite3.Connection:
    engine = make_engine(path)
    upgrade(engine)
    engine.dispose()
    conn = sqlite3.connect(path, isolation_level=None)
    for pragma in ("journal_mode = OFF", "synchronous = OFF", "locking_mode = EXCLUSIVE", "foreign_keys = OFF",
                   "ignore_check_constraints = ON",
                   "cache_size = -2097152"):
        conn.execute(f"PRAGMA {pragma}")
    if not indexes:
        conn.execute("DROP INDEX ix_states_variant_id_ply")
        conn.execute("ALTER TABLE states RENAME TO states_indexed")
        conn.execute(
            "CREATE TABLE states (id INTEGER PRIMARY KEY, variant_id INTEGER NOT NULL, key VARCHAR NOT NULL,"
            " to_move VARCHAR NOT NULL, ply INTEGER NOT NULL, terminal BOOLEAN NOT NULL, outcome VARCHAR NOT NULL,"
            " distance INTEGER, orbit INTEGER NOT NULL, representative BOOLEAN NOT NULL)"
        )
    conn.execute("INSERT INTO variants (id, name, family, rules, parameters, symmetry, complete, root_key, states_count,"
                 " moves_count, build_seconds, builder_version, built_at)"
                 " VALUES (1, 'v', 'f', '', '{}', 1, 1, '', 0, 0, 0, '', '2026-01-01')")
    return conn


def tuples(columns: dict[str, Any]) -> list[tuple[Any, ...]]:
    """The rows of one chunk as executemany takes them."""
    game_keys = [k.decode() for k in columns["key"].values.tolist()]
    side = columns["to_move"]
    sides = np.array(side.labels, dtype=object)[side.codes].tolist()
    outcome = np.array(OUTCOME_LABELS, dtype=object)[columns["outcome"].codes].tolist()
    distance = columns["distance"]
    dist = distance.values.astype(object)
    dist[distance.null] = None
    return list(zip(game_keys, sides, columns["ply"].values.tolist(), columns["terminal"].values.tolist(),
                    outcome, dist.tolist(), columns["orbit"].values.tolist(), [True] * len(game_keys)))


def run(path: Path, chunks: Callable[[], Any], insert: Callable[[sqlite3.Cursor, Any], None], indexes: bool = True
        ) -> tuple[float, float]:
    """(total seconds, seconds inside SQLite) for writing every chunk."""
    conn = fresh(path, indexes)
    cur = conn.cursor()
    t0 = time.perf_counter()
    inside = 0.0
    cur.execute("BEGIN")
    for chunk in chunks():
        t = time.perf_counter()
        insert(cur, chunk)
        inside += time.perf_counter() - t
    t = time.perf_counter()
    cur.execute("COMMIT")
    inside += time.perf_counter() - t
    total = time.perf_counter() - t0
    conn.close()
    return total, inside


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--variant", default="mnk-4-4-4")
    parser.add_argument("--no-symmetry", action="store_true")
    args = parser.parse_args()
    game = games.get(args.variant)
    solution = solve(game, symmetry=not args.no_symmetry)
    order = np.argsort(np.asarray(game.vector.key_order(solution.states)), kind="stable")
    states = np.asarray(solution.states)[order]
    ply, outcome, distance = solution.ply[order], solution.outcome[order], solution.distance[order]
    n = states.size

    def column_chunks() -> Any:
        for lo in range(0, n, CHUNK):
            hi = min(n, lo + CHUNK)
            yield {"variant_id": bulk.Constant(1),
                   **state_columns(game, states[lo:hi], ply[lo:hi], outcome[lo:hi], distance[lo:hi], solution.symmetry)}

    prepared = list(column_chunks())
    rows = [tuples(c) for c in prepared]
    sql = ("INSERT INTO states (variant_id, key, to_move, ply, terminal, outcome, distance, orbit, representative)"
           " VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?)")

    def many(cur: sqlite3.Cursor, chunk: list[tuple[Any, ...]]) -> None:
        cur.executemany(sql, chunk)

    def packed(cur: sqlite3.Cursor, chunk: dict[str, Any]) -> None:
        bulk.insert(cur, "states", chunk)

    def made_tuples() -> Any:
        for c in column_chunks():
            yield tuples(c)

    with tempfile.TemporaryDirectory() as tmp:
        results = {
            "executemany": (run(Path(tmp, "a.db"), made_tuples, many)[0], run(Path(tmp, "b.db"), lambda: rows, many)[1]),
            "bulk": (run(Path(tmp, "c.db"), column_chunks, packed)[0], run(Path(tmp, "d.db"), lambda: prepared, packed)[1]),
            "bulk, no indexes": (
                run(Path(tmp, "e.db"), column_chunks, packed, indexes=False)[0],
                run(Path(tmp, "f.db"), lambda: prepared, packed, indexes=False)[1],
            ),
        }
        size = os.path.getsize(Path(tmp, "d.db"))
    load = os.getloadavg()[0]
    print(f"# {args.variant}{' (no symmetry)' if args.no_symmetry else ''}: {n:,} states rows; load average {load:.1f};"
          f" SQLite {sqlite3.sqlite_version}; file {size / 1e6:.0f} MB")
    base_total, base_inside = results["executemany"]
    print(f"{'method':<18} {'with rows':>10} {'us/row':>7} {'ratio':>6} {'SQLite only':>12} {'us/row':>7} {'ratio':>6}")
    for name, (total, inside) in results.items():
        print(f"{name:<18} {total:>9.2f}s {1e6 * total / n:>7.2f} {total / base_total:>6.2f}"
              f" {inside:>11.2f}s {1e6 * inside / n:>7.2f} {inside / base_inside:>6.2f}")


if __name__ == "__main__":
    main()
