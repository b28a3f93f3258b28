"""Wall time of the whole ``Tablebase.solve`` command against its ``time_limit``.

    python benchmarks/solve_time_limit.py [--limit 3] [--samples 5] [--empties 40]

Solves late Ultimate positions that are not proved within the limit into a
fresh file each, and prints the wall time of the command (search, reading and
writing) over the limit; the limit holds when every ratio is at most 1.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import tablebase  # noqa: E402
from tablebase.games import get  # noqa: E402
from tablebase.games.playouts import random_live_position  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="ultimate")
    parser.add_argument("--limit", type=float, default=3.0)
    parser.add_argument("--samples", type=int, default=5)
    parser.add_argument("--empties", type=int, default=40)
    parser.add_argument("--seed", type=int, default=8)
    args = parser.parse_args()
    game = get(args.variant)
    rng = random.Random(args.seed)
    worst = 0.0
    for i in range(args.samples):
        position = game.format_position(random_live_position(game, args.empties, rng))
        with tempfile.TemporaryDirectory() as folder, tablebase.open(Path(folder) / "solve.db") as tb:
            started = time.perf_counter()
            report = tb.solve(args.variant, position, time_limit=args.limit)
            wall = time.perf_counter() - started
        worst = max(worst, wall / args.limit)
        state = "proved" if report.proved else "timed out"
        print(f"{i}: {state:<9} wall {wall:6.2f} s  limit {args.limit:g} s  ratio {wall / args.limit:4.2f}  stored {report.stored}")
    print(f"worst ratio {worst:.2f}; load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
