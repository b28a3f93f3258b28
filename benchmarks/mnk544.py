"""Build mnk-5-4-4 (or another layered variant) out of core and report the figures.

Usage::

    python benchmarks/mnk544.py [--variant mnk-5-4-4] [--dir /work/bigdata/mnk544-build]
        [--db /work/bigdata/mnk544.db] [--workers 2] [--solve-only | --probe-only]

Prints the per-layer counts, the time of each phase, the peak RSS of this
process and of its workers, the database size, the start value and the
probe latency (p50 over random stored states). Run under ``/usr/bin/time -v``
for an independent peak RSS figure.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tablebase import games  # noqa: E402
from tablebase.solve.chunked import solve_chunked  # noqa: E402


def peak_rss_mb() -> tuple[float, float]:
    """Peak resident set size of this process and of its largest finished child, in MB."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return own, kids


class Bar:
    """One line per phase with done/total and an ETA (stderr)."""

    def __init__(self) -> None:
        self.phase = None
        self.t0 = 0.0
        self.shown = 0.0

    def __call__(self, phase: str, done: int, total: int | None) -> None:
        now = time.perf_counter()
        if phase != self.phase:
            if self.phase is not None:
                sys.stderr.write(f"  ({now - self.t0:.1f} s)\n")
            self.phase, self.t0, self.shown = phase, now, 0.0
        if now - self.shown > 5 or (total and done == total):
            self.shown = now
            if total:
                rate = done / max(now - self.t0, 1e-9)
                eta = (total - done) / rate if rate else 0.0
                sys.stderr.write(f"\r{phase}: {done:,}/{total:,} eta {eta:.0f} s   ")
            else:
                sys.stderr.write(f"\r{phase}: {done:,}   ")
            sys.stderr.flush()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--variant", default="mnk-5-4-4")
    parser.add_argument("--dir", default="/work/bigdata/mnk544-build")
    parser.add_argument("--db", default="/work/bigdata/mnk544.db")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--chunk", type=int, default=1 << 20)
    parser.add_argument("--solve-only", action="store_true")
    parser.add_argument("--probe-only", action="store_true", help="only measure probes on an existing --db")
    args = parser.parse_args()
    if args.probe_only:
        probe_latency(args.db, args.variant)
        return
    game = games.get(args.variant)
    t0 = time.perf_counter()
    solution = solve_chunked(game, args.dir, progress=Bar(), workers=args.workers, chunk=args.chunk)
    t1 = time.perf_counter()
    sys.stderr.write("\n")
    print(f"{'ply':>3} {'positions':>13} {'classes':>12} {'terminal':>11}")
    for layer in solution.manifest.layers:
        print(f"{layer.depth:>3} {layer.positions:>13,} {layer.classes:>12,} {layer.terminal:>11,}")
    positions = sum(layer.positions for layer in solution.manifest.layers)
    classes = sum(layer.classes for layer in solution.manifest.layers)
    print(f"total {positions:,} positions, {classes:,} classes")
    outcome, distance = solution.result()
    print(f"start: {outcome} in {distance}")
    print(f"solve wall {t1 - t0:.1f} s this run; phases (all runs): "
          + ", ".join(f"{k} {v:.1f} s" for k, v in solution.manifest.seconds.items()))
    own, kids = peak_rss_mb()
    print(f"peak RSS after solving: main {own:.0f} MB, largest worker {kids:.0f} MB", flush=True)
    if not args.solve_only:
        from tablebase.store.states import write_states

        t2 = time.perf_counter()
        write_states(args.db, solution, t1 - t0, progress=Bar())
        t3 = time.perf_counter()
        sys.stderr.write("\n")
        size = Path(args.db).stat().st_size
        print(f"write (states-only) {t3 - t2:.1f} s; database {size / 1e9:.2f} GB ({size / max(1, classes):.0f} bytes per class)")
        own, kids = peak_rss_mb()
        print(f"peak RSS: main {own:.0f} MB, largest worker {kids:.0f} MB", flush=True)
    if Path(args.db).exists():
        probe_latency(args.db, args.variant)


def probe_latency(db: str, variant: str, samples: int = 2000) -> None:
    """p50/p99 of probe() over random stored positions."""
    import random
    import sqlite3

    import tablebase

    conn = sqlite3.connect(db)
    top = conn.execute("SELECT MAX(rowid) FROM states").fetchone()[0]
    rng = random.Random(1)
    keys = []
    while len(keys) < samples:
        row = conn.execute("SELECT key FROM states WHERE rowid = ?", (rng.randint(1, top),)).fetchone()
        if row:
            keys.append(row[0])
    conn.close()
    with tablebase.open(db) as tb:
        table = tb.variant(variant)
        start = table.probe()
        print(f"start position {start.position!r}: {start.outcome} in {start.distance}; best {start.best_move}")
        times = []
        for key in keys:
            t = time.perf_counter()
            table.probe(key)
            times.append(time.perf_counter() - t)
    times.sort()
    print(f"probe over {samples} random stored positions: p50 {1000 * times[len(times) // 2]:.3f} ms,"
          f" p99 {1000 * times[int(len(times) * 0.99)]:.3f} ms")


if __name__ == "__main__":
    main()
