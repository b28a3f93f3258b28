"""The whole ``tablebase solve morris-9`` command: the placement phase searched over the stored tiers.

On a file that holds morris-9's tiers (``tablebase build morris-9 --stones K``;
the start needs ``K`` = 9), runs ``tablebase solve morris-9 POSITION --json``
as its own process for each position asked (default the start; ``--hands S``
adds the empty board with ``S`` stones in each hand, which needs the tiers of
``S`` a side), and prints its wall time, CPU time, peak resident memory of the
process tree, nodes and value; then the value of every move of the position
as the file answers it afterwards (``tablebase probe``, whole command timed).

    python benchmarks/morris_placement.py --db morris9.db [--hands 5 6 7] [--no-start]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

from connect4_steininger import measured

NAME = "morris-9"
START = "........................ x 9 9"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", required=True)
    parser.add_argument("--hands", type=int, nargs="*", default=[])
    parser.add_argument("--no-start", action="store_true", help="only the positions of --hands")
    args = parser.parse_args()
    positions = [f"{'.' * 24} x {s} {s}" for s in args.hands] + ([] if args.no_start else [START])
    for position in positions:
        out, wall, cpu, peak = measured(
            [sys.executable, "-m", "cli.main", "solve", NAME, position, "--db", args.db, "--json"]
        )
        report = json.loads(out)
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())
        print(f"solve {position!r}: {report['outcome']} (distance {report['distance']}), proved {report['proved']},"
              f" {report['moves_proved']}/{report['moves']} moves; {report['nodes']:,} nodes;"
              f" {wall:.1f} s wall, {cpu:.1f} s CPU, peak RSS {peak / 2**20:,.0f} MB; load after {load}")
        started = time.perf_counter()
        probe = json.loads(subprocess.run(
            [sys.executable, "-m", "cli.main", "probe", NAME, position, "--db", args.db, "--json"],
            check=True, capture_output=True, text=True,
        ).stdout)
        seconds = time.perf_counter() - started
        print(f"  tablebase probe (whole command {seconds:.2f} s): {probe['outcome']}; moves:")
        for move in probe["moves"]:
            distance = "" if move["distance"] is None else f" in {move['distance']}"
            print(f"    {move['move']:>6} {move['outcome']}{distance}")


if __name__ == "__main__":
    main()
