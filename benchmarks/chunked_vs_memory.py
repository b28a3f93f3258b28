"""The chunked out-of-core solver against the in-memory path on mid-sized boards.

Usage: ``python benchmarks/chunked_vs_memory.py [VARIANT...]`` (default
mnk-4-4-3 mnk-5-3-3 mnk-4-4-4). Checks that the per-ply counts, every state,
outcome and distance agree, and prints the time of each path.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tablebase import games  # noqa: E402
from tablebase.solve import solve  # noqa: E402
from tablebase.solve.chunked import solve_chunked  # noqa: E402


def main() -> None:
    names = sys.argv[1:] or ["mnk-4-4-3", "mnk-5-3-3", "mnk-4-4-4"]
    for name in names:
        game = games.get(name)
        t0 = time.perf_counter()
        reference = solve(game)
        t1 = time.perf_counter()
        with tempfile.TemporaryDirectory() as folder:
            # a small chunk and bucket, so that every large layer is cut and merged from disk
            layered = solve_chunked(game, folder, chunk=1 << 16, bucket=1 << 20, workers=2)
            t2 = time.perf_counter()
            states, ply, outcome, distance = layered.arrays()
        same = (
            np.array_equal(states, np.asarray(reference.states, dtype=np.uint64))
            and np.array_equal(ply, reference.ply)
            and np.array_equal(outcome, reference.outcome)
            and np.array_equal(distance, reference.distance)
        )
        positions = sum(layer.positions for layer in layered.manifest.layers)
        print(
            f"{name}: {positions:,} positions, {layered.num_states:,} classes, start {layered.result()}; "
            f"in-memory {t1 - t0:.1f} s, chunked {t2 - t1:.1f} s; identical: {same}",
            flush=True,
        )
        if not same:
            raise SystemExit(1)


if __name__ == "__main__":
    main()
