"""The SQL functions against the Python API: labelling random positions in one SQL statement.

Usage::

    python benchmarks/sql.py --db FILE [--variant connect4-5-5] [--positions 10000] [--repeat 3] [--seed 1]

Builds ``--variant`` into ``--db`` when the file lacks it (``connect4-5-5``: about a
minute on two cores; ``connect4-6-5``: 5 to 8 minutes and 6 GB, so build it
beforehand or let the script take the time). Then, in one process, it draws
``--positions`` random positions (the position after a random ply of a random
game, as grid text) and times, ``--repeat`` times each in turns after one untimed pass
that fills the caches of decoded blocks:

* ``python value``: ``VariantTable.value(p)`` for each position (the outcome alone);
* ``python probe``: ``VariantTable.probe(p).outcome`` (every move valued too);
* ``sql tb_outcome``: ``SELECT p, tb_outcome(VARIANT, p) FROM temp.asked`` on
  :func:`tablebase.sql.connect`, one statement over a temporary table;
* ``python probe json`` and ``sql tb_probe``: the probe's JSON text both ways.

It prints the best and median seconds of each, positions per second, and the
ratios of the SQL statements to their Python counterparts (the target: the SQL
statement takes at most 2x the Python API). The SQL answers are checked
against the Python ones.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import tablebase  # noqa: E402
import tablebase.sql  # noqa: E402
from tablebase import games  # noqa: E402


def random_positions(name: str, count: int, seed: int) -> list[str]:
    """``count`` positions of ``name``: each a random game's position after a ply drawn uniformly from the game."""
    game = games.get(name)
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        state = game.initial_state()
        line = [state]
        while game.outcome(state) is None:
            state = game.apply(state, rng.choice(game.legal_moves(state)))
            line.append(state)
        found.append(game.format_position(rng.choice(line)))
    return found


def timed(run: Callable[[], object]) -> float:
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--variant", default="connect4-5-5")
    parser.add_argument("--positions", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    name = args.variant

    with tablebase.open(args.db) as tb:
        if not args.db.exists() or tb.get_variant(name) is None:
            started = time.perf_counter()
            print(f"{name}: not in {args.db}, building it", file=sys.stderr, flush=True)
            tb.build(name)
            print(f"{name}: built in {time.perf_counter() - started:.1f} s", file=sys.stderr)
        info = tb.variant(name).info
    positions = random_positions(name, args.positions, args.seed)
    print(f"{name}: {info.storage} storage, {info.states:,} stored classes; {len(positions):,} random positions "
          f"({len(set(positions)):,} distinct), seed {args.seed}")

    tb = tablebase.open(args.db)
    table = tb.variant(name)
    conn = tablebase.sql.connect(args.db)
    conn.execute("CREATE TEMP TABLE asked (p TEXT)")
    conn.executemany("INSERT INTO temp.asked VALUES (?)", [(p,) for p in positions])
    conn.commit()

    answers: dict[str, list[object]] = {}

    def keep(label: str, values: list[object]) -> None:
        answers[label] = values

    runs: dict[str, Callable[[], None]] = {
        "python value": lambda: keep("python value", [table.value(p)[0] for p in positions]),
        "sql tb_outcome": lambda: keep(
            "sql tb_outcome", [r[1] for r in conn.execute("SELECT p, tb_outcome(?, p) FROM temp.asked", (name,))]
        ),
        "python probe": lambda: keep("python probe", [table.probe(p).outcome for p in positions]),
        "python probe json": lambda: keep(
            "python probe json",
            [json.dumps(table.probe(p).to_dict(), ensure_ascii=False, separators=(",", ":")) for p in positions],
        ),
        "sql tb_probe": lambda: keep(
            "sql tb_probe", [r[1] for r in conn.execute("SELECT p, tb_probe(?, p) FROM temp.asked", (name,))]
        ),
    }
    for run in runs.values():
        run()
    assert answers["sql tb_outcome"] == answers["python value"] == answers["python probe"], "the answers differ"
    assert answers["sql tb_probe"] == answers["python probe json"], "the probes differ"

    seconds: dict[str, list[float]] = {label: [] for label in runs}
    for _ in range(args.repeat):
        for label, run in runs.items():
            seconds[label].append(timed(run))
    conn.close()
    tb.close()

    print(f"{'':20} {'best s':>8} {'median s':>9} {'positions/s':>12}")
    for label, times in seconds.items():
        best = min(times)
        print(f"{label:20} {best:8.3f} {statistics.median(times):9.3f} {len(positions) / best:12,.0f}")
    best = {label: min(times) for label, times in seconds.items()}
    print(f"ratio sql tb_outcome / python value: {best['sql tb_outcome'] / best['python value']:.2f}")
    print(f"ratio sql tb_outcome / python probe: {best['sql tb_outcome'] / best['python probe']:.2f}")
    print(f"ratio sql tb_probe / python probe json: {best['sql tb_probe'] / best['python probe json']:.2f}")


if __name__ == "__main__":
    main()
