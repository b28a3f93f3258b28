"""Lookup time of one position in the ``best_moves`` view: the ranking view of revision 0001 against 0004's.

    python benchmarks/best_moves_view.py [--db FILE]

Builds tictactoe, mnk-4-3-3, wild, roman and rota into FILE (default: a
temporary file) unless they are there, then times ``SELECT ... FROM best_moves
WHERE variant = ? AND position = ?`` for 50 random positions with both views
in the same connection (the old one as a temporary view) and prints the
medians and their ratio.
"""

from __future__ import annotations

import argparse
import os
import random
import sqlite3
import statistics
import tempfile
import time
from importlib import util
from pathlib import Path

import tablebase

VARIANTS = ("tictactoe", "mnk-4-3-3", "wild", "roman", "rota")


def old_view_sql() -> str:
    path = Path(__file__).resolve().parents[1] / "migrations" / "versions" / "0004_views.py"
    spec = util.spec_from_file_location("views_0004", path)
    assert spec is not None and spec.loader is not None
    module = util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.OLD_VIEWS["best_moves"].replace("CREATE VIEW best_moves", "CREATE TEMP VIEW old_best_moves").replace(
        "FROM move_values AS mv", "FROM temp.old_move_values AS mv"
    ), module.OLD_VIEWS["move_values"].replace("CREATE VIEW move_values", "CREATE TEMP VIEW old_move_values")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--db", type=Path, default=None)
    args = parser.parse_args()
    db = args.db or Path(tempfile.mkdtemp()) / "views.db"
    with tablebase.open(db) as tb:
        built = {i.name for i in tb.variants()} if db.exists() else set()
        for name in VARIANTS:
            if name not in built:
                tb.build(name)
    conn = sqlite3.connect(db)
    best, values = old_view_sql()
    conn.execute(values)
    conn.execute(best)
    rng = random.Random(1)
    rows = conn.execute("SELECT variant, position FROM positions WHERE NOT terminal").fetchall()
    sample = rng.sample(rows, 50)
    times: dict[str, list[float]] = {"old_best_moves": [], "best_moves": []}
    for variant, position in sample:
        answers = []
        for view in times:
            start = time.perf_counter()
            answers.append(
                conn.execute(
                    f"SELECT outcome, distance FROM {view} WHERE variant = ? AND position = ?"
                    if view == "best_moves"
                    else f"SELECT value, distance FROM {view} WHERE variant = ? AND position = ?",
                    (variant, position),
                ).fetchall()
            )
            times[view].append(time.perf_counter() - start)
        assert answers[0] == answers[1], (variant, position, answers)
    old, new = (statistics.median(times[v]) for v in ("old_best_moves", "best_moves"))
    size = os.path.getsize(db) / 1e6
    print(f"{db} ({size:.1f} MB, {len(rows):,} non-terminal states); load {os.getloadavg()[0]:.1f}")
    print(f"best_moves lookup, median of 50: revision 0001 {old * 1e3:.1f} ms, 0004 {new * 1e3:.3f} ms; ratio {new / old:.4f}")


if __name__ == "__main__":
    main()
