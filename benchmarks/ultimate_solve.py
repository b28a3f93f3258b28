"""How far the exact search reaches in Ultimate tic-tac-toe.

For each rule set and each number E of empty spots, sample positions from
random play (uniformly random legal moves from the start until E of the 81
spots are empty; games that end earlier are discarded and replayed, so every
sample is a live position), prove each one with
:func:`tablebase.solve.search.prove` under a time limit, and report the share
proved within the limit, the median time (unproved samples count as
slower than the limit, so the median is "> limit" when fewer than half are
proved), the slowest proved time and the search speed (nodes a second over
all samples, unproved ones included).

Quick run::

    python benchmarks/ultimate_solve.py --samples 5 --limit 20 --empties 10 20 30

Full run (what the issue asks: E = 10..35, 60 s per position)::

    python benchmarks/ultimate_solve.py --samples 20 --limit 60

Each position is proved by two processes (``--processes 2``, the default:
a second one races the outcome in another move order); ``--processes 1``
for one.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tablebase.games import get  # noqa: E402
from tablebase.games.base import random_live_position  # noqa: E402
from tablebase.solve.search import prove  # noqa: E402


def run(
    variants: list[str], empties: list[int], samples: int, limit: float, seed: int, verbose: bool, processes: int = 1
) -> list[dict]:
    rows = []
    for variant in variants:
        game = get(variant)
        for e in empties:
            rng = random.Random(f"{seed}-{variant}-{e}")
            times: list[float] = []
            outcomes: dict[str, int] = {}
            nodes = 0
            seconds = 0.0
            for k in range(samples):
                state = random_live_position(game, e, rng)
                result = prove(game, state, time_limit=limit, processes=processes)
                proved = result.complete
                times.append(result.seconds if proved else float("inf"))
                key = result.outcome if proved else "unproved"
                outcomes[key] = outcomes.get(key, 0) + 1
                nodes += result.nodes
                seconds += result.seconds
                if verbose:
                    print(
                        f"  {variant} E={e} #{k}: {result.outcome} {result.distance} "
                        f"{'proved' if proved else 'TIMEOUT'} {result.seconds:.2f}s {result.nodes} nodes "
                        f"(outcome {result.stats.get('outcome_s', 0):.2f}s, distance "
                        f"{result.stats.get('distance_s', 0) + result.stats.get('draw_s', 0):.2f}s, "
                        f"rival {'won' if result.stats.get('rival_won') else 'lost'})",
                        file=sys.stderr,
                        flush=True,
                    )
            solved = sum(t != float("inf") for t in times)
            median = statistics.median(times)
            rows.append(
                {
                    "variant": variant,
                    "empties": e,
                    "samples": samples,
                    "limit_s": limit,
                    "seed": seed,
                    "processes": processes,
                    "solved": solved,
                    "share_solved": solved / samples,
                    "median_s": None if median == float("inf") else round(median, 3),
                    "max_solved_s": round(max((t for t in times if t != float("inf")), default=0.0), 3),
                    "mean_nodes": round(nodes / samples),
                    "nodes_per_s": round(nodes / seconds) if seconds else 0,
                    "outcomes": outcomes,
                }
            )
            print(format_row(rows[-1]), flush=True)
    return rows


def format_row(row: dict) -> str:
    median = f"{row['median_s']:.2f}" if row["median_s"] is not None else f"> {row['limit_s']:g}"
    outcomes = " ".join(f"{k} {v}" for k, v in sorted(row["outcomes"].items()))
    return (
        f"{row['variant']:<17} E={row['empties']:<3} solved {row['solved']:>3}/{row['samples']:<3} "
        f"({100 * row['share_solved']:5.1f}%)  median {median:>7} s  max {row['max_solved_s']:7.2f} s  "
        f"nodes {row['mean_nodes']:>10,}  {row['nodes_per_s']:>8,}/s  [{outcomes}]"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variants", nargs="+", default=["ultimate", "ultimate-classic"])
    parser.add_argument("--empties", nargs="+", type=int, default=[10, 15, 20, 25, 30, 35])
    parser.add_argument("--samples", type=int, default=20, help="positions per (variant, E)")
    parser.add_argument("--limit", type=float, default=60.0, help="seconds per position")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--processes", type=int, default=2, help="2: a second process races the outcome in another move order"
    )
    parser.add_argument("--json", type=Path, help="also write the rows to this file")
    parser.add_argument("-v", "--verbose", action="store_true", help="one line per position on stderr")
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores", flush=True)
    print(f"seed {args.seed}, {args.processes} process(es) a position", flush=True)
    rows = run(args.variants, args.empties, args.samples, args.limit, args.seed, args.verbose, args.processes)
    print(f"total {time.perf_counter() - t0:.0f} s; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n")


if __name__ == "__main__":
    main()
