"""How far back along seed 004's winning line our own search proves X's win in Ultimate tic-tac-toe.

Seed 004's strategy wins for X from the empty board (``tablebase strategy
ultimate``: every game of ``ultimate-strategy`` is an X win, the longest 43
plies). This takes the longest of those games (X by the strategy, O
delaying the loss the most) and proves its positions with X to move under
the plain ``ultimate`` rules, told nothing of the strategy, from the end of
the game backwards: each with ``tablebase.solve.search.prove`` (two
processes, as ``tablebase solve`` does) for at most ``--limit`` seconds, until
``--misses`` positions in a row are not proved. It prints, per position, the
ply, the empty spots, the outcome and distance proved and the time; then the
earliest ply proved, i.e. how far back towards the start our search alone
reaches on the seed's line::

    python benchmarks/ultimate_strategy_reach.py --limit 60
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tablebase.games import get  # noqa: E402
from tablebase.games.ultimate.rules import M162  # noqa: E402
from tablebase.games.ultimate.upper_bound import PHASE, ultimate_strategy  # noqa: E402
from tablebase.solve import solve  # noqa: E402
from tablebase.solve.search import prove  # noqa: E402


def longest_line() -> list[int]:
    """The states of ``ultimate-strategy``'s longest game, the start first: X by the strategy, O choosing
    at each turn the child whose X win is the farthest."""
    solution = solve(ultimate_strategy(), symmetry=False)
    line, at = [0], 0
    while not solution.terminal[at]:
        lo, hi = np.searchsorted(solution.src, [at, at + 1])
        at = max((int(solution.dst[k]) for k in range(lo, hi)), key=lambda child: int(solution.distance[child]))
        line.append(at)
    return [int(solution.states[i]) for i in line]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=float, default=60.0, help="seconds a position (default 60)")
    parser.add_argument("--misses", type=int, default=2, help="stop after this many unproved positions in a row (default 2)")
    parser.add_argument("--processes", type=int, default=2, help="processes a search (default 2, as tablebase solve)")
    args = parser.parse_args()
    game = get("ultimate")
    started = time.perf_counter()
    line = longest_line()
    print(f"the seed's longest game: {len(line) - 1} plies (built in {time.perf_counter() - started:.0f} s)", flush=True)
    plain = [state & ((1 << PHASE) - 1) for state in line]
    earliest, misses = None, 0
    for ply in range(len(plain) - 1, -1, -1):
        state = plain[ply]
        if game.outcome(state) is not None or game.to_move(state) != "x":
            continue
        empty = 81 - (state & M162).bit_count()
        begun = time.perf_counter()
        result = prove(game, state, args.limit, processes=args.processes)
        seconds = time.perf_counter() - begun
        proved = result.outcome is not None
        value = f"{result.outcome} in {result.distance}" if proved else "not proved"
        print(f"ply {ply:2} ({empty} empty): {value} ({seconds:.1f} s, {result.nodes:,} nodes)", flush=True)
        if proved:
            earliest, misses = ply, 0
        else:
            misses += 1
            if misses >= args.misses:
                break
    print(f"earliest ply of the seed's line proved by our search within {args.limit:g} s: {earliest}")


if __name__ == "__main__":
    main()
