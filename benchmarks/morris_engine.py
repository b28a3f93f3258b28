"""The colour-folded movement-phase tiers of Nine Men's Morris up to ``--stones`` a side, solved by the
engine that stores no moves (``tablebase.games.morris.tier_engine``), in this process.

Prints the index's build time, then per unit (a tier and its colours swapped, solved together): its
tiers, classes, CPU and wall seconds, the wall seconds of the pass over the moves (the rest is the
levels of distance), the levels, classes a CPU second and a wall second, won, drawn and lost for the
side to move, the longest win or loss, and the peak memory so far; then the totals. At four a side or fewer it then
times the tier solver (``tablebase.solve.tiers``) on the same tiers (which holds each class twice,
once for each side to move) and prints the ratio of the CPU times (``--no-baseline`` skips it).

    python benchmarks/morris_engine.py [--stones 5] [--threads 1] [--no-baseline]
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np

from tablebase import games
from tablebase.games.morris.board import NINE
from tablebase.games.morris.rules import MorrisGame
from tablebase.games.morris.tier_engine import UNUSED, FoldedTier, TierEngine
from tablebase.games.morris.tier_index import TierIndex
from tablebase.games.morris.tiers import MorrisTiers
from tablebase.solve.tiers import solve_tiers


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def summary(tiers: list[FoldedTier]) -> tuple[int, int, int, int, int]:
    """``(classes, won, drawn, lost, longest)`` of the tiers together."""
    won = drawn = lost = longest = classes = 0
    for tier in tiers:
        values = tier.values[tier.values != UNUSED]
        counts = np.bincount(values & 3, minlength=4)
        classes += len(values)
        won, lost, drawn = won + int(counts[1]), lost + int(counts[2]), drawn + int(counts[3])
        longest = max(longest, int((values >> 2).max(initial=0)))
    return classes, won, drawn, lost, longest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stones", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1, help="numba threads for both passes")
    parser.add_argument("--no-baseline", action="store_true", help="do not time the tier solver (at most 4 a side)")
    args = parser.parse_args()
    wall = time.perf_counter()
    index = TierIndex(NINE)
    print(f"index of {NINE.cells} points: {time.perf_counter() - wall:.1f} s, {peak_mb():,.0f} MB peak", flush=True)
    engine = TierEngine(NINE, True, index, threads=args.threads)
    print(f"{'unit':>9} {'classes':>12} {'cpu s':>7} {'wall s':>7} {'moves s':>7} {'levels':>6} {'classes/s':>10}"
          f" {'/wall s':>10} {'won':>12} {'drawn':>12} {'lost':>12} {'longest':>7} {'peak MB':>8}")
    pending: list[FoldedTier] = []
    total_classes, solving, waited = 0, 0.0, 0.0
    for tier in engine.solve(args.stones):
        pending.append(tier)
        if tier.m != 2 and tier.m < tier.n:
            continue
        seconds, wall_seconds = pending[0].cpu, pending[0].seconds
        classes, won, drawn, lost, longest = summary(pending)
        name = " ".join(f"{t.m}-{t.n}" for t in pending)
        print(f"{name:>9} {classes:>12,} {seconds:>7.1f} {wall_seconds:>7.1f} {pending[0].moves_seconds:>7.1f}"
              f" {pending[0].levels:>6} {classes / max(seconds, 1e-9):>10,.0f}"
              f" {classes / max(wall_seconds, 1e-9):>10,.0f} {won:>12,}"
              f" {drawn:>12,} {lost:>12,} {longest:>7} {peak_mb():>8,.0f}", flush=True)
        total_classes += classes
        solving += seconds
        waited += wall_seconds
        pending = []
    elapsed = time.perf_counter() - wall
    print(f"all tiers of at most {args.stones} a side: {total_classes:,} classes, {solving:.1f} s CPU solving"
          f" ({total_classes / solving:,.0f} classes/s), {waited:.1f} s wall solving"
          f" ({total_classes / waited:,.0f} classes/s),"
          f" {elapsed:.1f} s wall with the index and compiling,"
          f" {peak_mb():,.0f} MB peak")
    if args.stones <= 4 and not args.no_baseline:
        game = games.get("morris-9")
        assert isinstance(game, MorrisGame)
        start, cpu = time.perf_counter(), time.process_time()
        for _ in solve_tiers(MorrisTiers(game, args.stones), game.vector):
            pass
        old, old_wall = time.process_time() - cpu, time.perf_counter() - start
        print(f"tier solver on the same tiers: {old:.1f} s CPU, {old_wall:.1f} s wall;"
              f" {old / solving:.1f} times the engine's CPU solving,"
              f" {peak_mb():,.0f} MB peak")


if __name__ == "__main__":
    main()
