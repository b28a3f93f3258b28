"""Analysis while you play: how long the web board waits for the moves' values of an Ultimate position.

Starts ``tablebase serve`` (this checkout's CLI, its default search workers)
on a fresh file holding tic-tac-toe only and asks for each position what the board asks when it shows
a position the file lacks: ``GET /api/VARIANT/solve?partial=true`` in slices
of ``--slice`` seconds, each twice as long as the one before (the board's 2,
4, 8 and 16 s), each going on from the last, until
the position and every move are proved or ``--budget`` seconds (the board's
30 s) have passed. Positions come from random play (``random_live_position``:
uniformly random moves from the start until E spots are empty, games that
end earlier replayed), ``--samples`` of them a row, from ``--seed``.

Per position it prints the seconds until every move had a value (or ``>
budget``), the moves proved by then and when the first move was proved; per
row the share with every move proved, and the 50th and 80th percentiles of
the time to every move (unproved samples count as slower than the budget).
One warm-up request before the first row loads the compiled search in the
workers, so the rows time the searches, not the compile::

    python benchmarks/ultimate_analysis.py --empties 45 --samples 10 --seed 0
    python benchmarks/ultimate_analysis.py --variant ultimate-classic --empties 40 45
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from pathlib import Path
from random import Random

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import tablebase  # noqa: E402
from benchmarks.serve import free_port, serving  # noqa: E402
from tablebase.games import get  # noqa: E402
from tablebase.games.playouts import random_live_position  # noqa: E402


def analyse(client: httpx.Client, variant: str, position: str, first_slice: float, budget: float) -> tuple[float, int, int, float | None]:
    """``(seconds to every move or inf, moves proved, moves, seconds to the first move proved or None)``."""
    begun = time.perf_counter()
    first: float | None = None
    proved, total, slice_seconds = 0, 0, first_slice
    while True:
        left = budget - (time.perf_counter() - begun)
        if left <= 0:
            return math.inf, proved, total, first
        reply = client.get(
            f"/api/{variant}/solve",
            params={"position": position, "time_limit": f"{max(min(slice_seconds, left), 0.1):.1f}", "partial": "true"},
        )
        if reply.status_code == 503 and reply.json().get("error") == "busy":
            time.sleep(0.25)
            continue
        reply.raise_for_status()
        slice_seconds *= 2
        body = reply.json()
        total = len(body["moves"])
        proved = sum(m["outcome"] is not None for m in body["moves"])
        if proved and first is None:
            first = time.perf_counter() - begun
        if body["proved"]:
            return time.perf_counter() - begun, proved, total, first


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(share * len(ordered)) - 1)]


def shown(seconds: float, budget: float) -> str:
    return f"> {budget:g}" if math.isinf(seconds) else f"{seconds:.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="ultimate")
    parser.add_argument("--empties", type=int, nargs="+", default=[45])
    parser.add_argument("--samples", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--slice", type=float, default=2.0, help="seconds of the first request, each next twice as long (the board's 2)")
    parser.add_argument("--budget", type=float, default=30.0, help="seconds a position (the board's 30)")
    parser.add_argument("--solvers", type=int, help="tablebase serve --solvers (default: the server's)")
    args = parser.parse_args()
    game = get(args.variant)
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "tablebase.db"
        with tablebase.open(db) as tb:
            tb.build("tictactoe")  # a file the server can open; it holds no Ultimate position
        port = free_port()
        with serving(db, port, args.solvers), httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=120) as client:
            warm = game.format_position(random_live_position(game, 33, Random(args.seed + 10_000)))
            started = time.perf_counter()
            analyse(client, args.variant, warm, args.slice, args.budget)
            print(f"warm-up (loads the compiled search): {time.perf_counter() - started:.1f} s", flush=True)
            for empties in args.empties:
                rng = Random(args.seed)
                times: list[float] = []
                for i in range(args.samples):
                    position = game.format_position(random_live_position(game, empties, rng))
                    seconds, proved, total, first = analyse(client, args.variant, position, args.slice, args.budget)
                    times.append(seconds)
                    print(
                        f"  {args.variant} E={empties} #{i}: every move {shown(seconds, args.budget)} s, "
                        f"{proved}/{total} moves proved, first at {'-' if first is None else f'{first:.1f}'} s",
                        flush=True,
                    )
                done = sum(not math.isinf(t) for t in times)
                print(
                    f"{args.variant} E={empties}: every move within {args.budget:g} s {done}/{len(times)}, "
                    f"p50 {shown(percentile(times, 0.5), args.budget)} s, p80 {shown(percentile(times, 0.8), args.budget)} s "
                    f"(seed {args.seed})",
                    flush=True,
                )


if __name__ == "__main__":
    main()
