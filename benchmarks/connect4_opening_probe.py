"""Whole-command probes of the shipped 7x6 opening table on a fresh file, from the command line and SQL.

A new user runs the README's first command (``tablebase build tictactoe``, so
``tablebase.db`` holds no Connect Four) and then probes opening positions.
This times, in a temporary folder:

* the first ``tablebase probe connect4`` on a fresh copy of that file
  (``--first`` times, each on a new copy: the command reads the start
  position and its moves from the shipped table and writes nothing);
* ``tablebase probe connect4 P`` for ``--positions`` random positions of the
  table stored with every move, each a new process;
* the same positions through ``tb_probe('connect4', P)`` in SQL, each a new
  ``python`` process that opens the file with :func:`tablebase.sql.connect`;
* as the baseline, ``python -c pass`` and ``python -c "import tablebase"``
  (an interpreter start, and the library loaded with nothing asked of a file).

Every answer is checked: all seven columns with a value, none unproved.

    python benchmarks/connect4_opening_probe.py [--seed N] [--positions 30] [--first 5]
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tablebase import games, opening

SQL = (
    "import sys, tablebase.sql\n"
    "conn = tablebase.sql.connect('tablebase.db')\n"
    "print(conn.execute(\"SELECT tb_probe('connect4', ?)\", (sys.argv[1],)).fetchone()[0])\n"
)


def tablebase_command() -> str:
    """The ``tablebase`` script beside this interpreter."""
    found = Path(sys.executable).with_name("tablebase")
    if not found.is_file():
        sys.exit(f"no 'tablebase' command beside {sys.executable}; install the package first")
    return str(found)


def check(answer: str, position: str) -> None:
    """Exit unless the JSON probe ``answer`` gives every column of ``position`` a proved value."""
    data = json.loads(answer)
    moves = data.get("moves", [])
    if data.get("outcome") is None or len(moves) != 7 or any(m.get("outcome") is None for m in moves):
        sys.exit(f"probe of {position!r} is not complete: {answer[:200]}")


def summary(label: str, seconds: list[float]) -> str:
    ordered = sorted(seconds)
    return (
        f"{label:<44} n={len(ordered):>3}  min {ordered[0]:.3f}  median {statistics.median(ordered):.3f}"
        f"  p90 {ordered[int(0.9 * (len(ordered) - 1))]:.3f}  max {ordered[-1]:.3f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--positions", type=int, default=30, help="random table positions to probe")
    parser.add_argument("--first", type=int, default=5, help="first probes, each on a fresh copy of the file")
    args = parser.parse_args()

    game = games.get("connect4")
    table = opening.shipped(game)
    if table is None:
        sys.exit("this install ships no 7x6 opening table")
    positions, edges = table.read()
    with_moves = sorted({a for a, _, _ in edges})
    sample = [game.format_position(s) for s in random.Random(args.seed).sample(with_moves, args.positions)]
    command = tablebase_command()

    with tempfile.TemporaryDirectory() as work:
        folder = Path(work)
        subprocess.run([command, "build", "tictactoe", "-q"], cwd=folder, check=True, capture_output=True)
        shutil.copy(folder / "tablebase.db", folder / "fresh.db")

        def run(cmd: list[str]) -> tuple[float, str]:
            start = time.perf_counter()
            done = subprocess.run(cmd, capture_output=True, text=True, cwd=folder)
            if done.returncode != 0:
                sys.exit(f"{' '.join(cmd)} failed: {done.stderr.strip()}")
            return time.perf_counter() - start, done.stdout

        run([sys.executable, "-c", "pass"])
        floor = [run([sys.executable, "-c", "pass"])[0] for _ in range(10)]
        library = [run([sys.executable, "-c", "import tablebase"])[0] for _ in range(10)]
        first = []
        for _ in range(args.first):
            shutil.copy(folder / "fresh.db", folder / "tablebase.db")
            seconds, out = run([command, "probe", "connect4", "--json"])
            check(out, "")
            first.append(seconds)
        cli, sql = [], []
        for position in sample:
            seconds, out = run([command, "probe", "connect4", position, "--json"])
            check(out, position)
            cli.append(seconds)
            seconds, out = run([sys.executable, "-c", SQL, position])
            check(out, position)
            sql.append(seconds)

    print(f"shipped table: {len(with_moves):,} positions with every move, {len(positions):,} positions in all")
    print(summary("python -c pass (baseline)", floor))
    print(summary("python -c 'import tablebase' (baseline)", library))
    print(summary("first probe connect4, fresh file", first))
    print(summary("probe connect4 P (table positions)", cli))
    print(summary("tb_probe('connect4', P), new process", sql))
    worst = max(first + cli + sql)
    print(f"slowest whole command {worst:.3f} s = {worst / statistics.median(library):.2f}x importing tablebase;"
          f" target < 0.5 s: {'met' if worst < 0.5 else 'not met'}")


if __name__ == "__main__":
    main()
