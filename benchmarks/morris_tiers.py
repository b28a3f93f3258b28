"""The movement-phase tiers of Nine Men's Morris up to ``--stones`` a side, solved in this process.

Solves every tier of at most ``--stones`` stones a side (``tablebase.solve.tiers.solve_tiers``
over ``tablebase.games.morris.tiers.MorrisTiers``) and prints, per tier, its
classes, its moves between classes, the classes won, drawn and lost for the side
to move, the longest win or loss, and the CPU seconds it took (user + system);
then the whole run's CPU and wall seconds and peak memory.

    python benchmarks/morris_tiers.py [--stones 4]
"""

from __future__ import annotations

import argparse
import os
import resource
import time

import numpy as np

from tablebase import games
from tablebase.games.morris.rules import MorrisGame
from tablebase.games.morris.tiers import MorrisTiers
from tablebase.solve.tiers import solve_tiers


def cpu() -> float:
    """CPU seconds of this process so far, user and system."""
    times = os.times()
    return times.user + times.system


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stones", type=int, default=4)
    args = parser.parse_args()
    wall, start = time.perf_counter(), cpu()
    game = games.get("morris-9")
    assert isinstance(game, MorrisGame)
    print(f"{'tier':>5} {'classes':>11} {'moves':>12} {'won':>11} {'drawn':>11} {'lost':>11} {'longest':>7} {'cpu s':>7}")
    last = cpu()
    for result in solve_tiers(MorrisTiers(game, args.stones), game.vector):
        now = cpu()
        won, lost, drawn = np.bincount(result.outcome, minlength=4)[1:].tolist()
        longest = int(result.distance.max(initial=0))
        print(
            f"{str(result.tier):>5} {len(result.states):>11,} {result.moves:>12,} {won:>11,} {drawn:>11,} {lost:>11,}"
            f" {longest:>7} {now - last:>7.1f}",
            flush=True,
        )
        last = now
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"all tiers of at most {args.stones} a side: {cpu() - start:.1f} s CPU, "
          f"{time.perf_counter() - wall:.1f} s wall, {peak:,.0f} MB peak")


if __name__ == "__main__":
    main()
