"""Build mnk-5-4-4 out of core into SQLite (states only) and report the figures against the targets.

Usage::

    python benchmarks/mnk544.py [--variant mnk-5-4-4] [--db mnk544.db] [--build-dir DIR]
        [--workers N] [--skip-build] [--no-census] [--samples 2000]

The build is ``Tablebase.build(variant, storage="states")``, the call behind
``tablebase build mnk-5-4-4``. Prints the time of each phase, the peak RSS of
this process and of its largest worker, the database size, the start value,
the per-ply table read back from the database next to the combinatorial
census of ``benchmarks/census.py`` (counted without the rules engine), the
latency of probes and of the other queries over random stored states, a
sampled verify, and each target as a ratio (under 1 means met): build under
30 minutes, peak RSS under 16 GB, probe p50 under 1 ms. ``--skip-build``
measures an existing ``--db``.
"""

from __future__ import annotations

import argparse
import random
import resource
import sqlite3
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import tablebase  # noqa: E402
from phases import Phases  # noqa: E402

TARGET_BUILD_S = 30 * 60
TARGET_RSS_GB = 16.0
TARGET_PROBE_MS = 1.0


def peak_rss_gb() -> tuple[float, float]:
    """Peak resident set size of this process and of its largest finished child, in GiB."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 2**20
    return own, kids


def build(args: argparse.Namespace) -> tuple[float, float]:
    """Build the variant; returns (wall seconds, peak RSS in GiB of the largest process)."""
    phases = Phases()
    t0 = time.perf_counter()
    with tablebase.open(args.db) as tb:
        info = tb.build(args.variant, storage="states", build_dir=args.build_dir, workers=args.workers, progress=phases)
    wall = time.perf_counter() - t0
    phases.close()
    own, kids = peak_rss_gb()
    size = Path(args.db).stat().st_size
    print(f"{args.variant}: {info.states:,} classes stored states-only, start {info.outcome} in {info.distance}")
    print(f"build wall {wall:.1f} s; phases: " + ", ".join(f"{k} {v:.1f} s" for k, v in phases.seconds.items()))
    print(f"peak RSS: main process {own:.2f} GiB, largest worker {kids:.2f} GiB")
    print(f"database {size / 1e9:.2f} GB ({size / max(1, info.states):.1f} bytes per class)", flush=True)
    return wall, max(own, kids)


def per_ply(db: str, variant: str, census: bool) -> None:
    """The per-ply table stored by the build, next to the combinatorial census."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    rows = conn.execute(
        "SELECT p.ply, p.positions, p.classes, p.terminal, p.wins, p.losses, p.draws FROM plies AS p"
        " JOIN variants AS v ON v.id = p.variant_id WHERE v.name = ? ORDER BY p.ply",
        (variant,),
    ).fetchall()
    conn.close()
    counted: dict[int, tuple[int, int, int]] = {}
    if census:
        from census import census as count_boards

        from tablebase import games

        board = games.get(variant).parameters()
        t = time.perf_counter()
        counted = {
            r.ply: (r.positions, r.classes, r.terminal_classes) for r in count_boards(board["m"], board["n"], board["k"])
        }
        print(f"census (benchmarks/census.py) took {time.perf_counter() - t:.1f} s")
    print(f"{'ply':>3} {'positions':>13} {'classes':>12} {'terminal':>10} {'wins':>11} {'losses':>11} {'draws':>11}  census")
    for ply, positions, classes, terminal, wins, losses, draws in rows:
        check = "" if not counted else ("same" if counted.get(ply) == (positions, classes, terminal) else f"DIFFERS {counted.get(ply)}")
        print(f"{ply:>3} {positions:>13,} {classes:>12,} {terminal:>10,} {wins:>11,} {losses:>11,} {draws:>11,}  {check}")
    total = (sum(r[1] for r in rows), sum(r[2] for r in rows), sum(r[3] for r in rows))
    print(f"total {total[0]:,} positions, {total[1]:,} classes, {total[2]:,} terminal classes;"
          f" {sum(r[4] for r in rows):,} wins, {sum(r[5] for r in rows):,} losses, {sum(r[6] for r in rows):,} draws")
    if counted:
        same = counted == {r[0]: (r[1], r[2], r[3]) for r in rows}
        print(f"census total {sum(c[0] for c in counted.values()):,} positions,"
              f" {sum(c[1] for c in counted.values()):,} classes; every ply identical: {same}", flush=True)


def queries(db: str, variant: str, samples: int) -> float:
    """Latency of probe (p50, p99; the same positions twice, so the second pass finds their pages in memory)
    and of the other queries over random stored states; returns the warm probe p50 in ms."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    top = conn.execute("SELECT MAX(rowid) FROM states").fetchone()[0]
    rng = random.Random(1)
    keys: list[str] = []
    while len(keys) < samples:
        row = conn.execute("SELECT key FROM states WHERE rowid = ?", (rng.randint(1, top),)).fetchone()
        if row:
            keys.append(row[0])
    conn.close()
    with tablebase.open(db) as tb:
        table = tb.variant(variant)
        start = table.probe()
        print(f"start {start.position!r}: {start.outcome} in {start.distance}; best move {start.best_move.move if start.best_move else None}")
        for run in ("first touch", "again (warm)"):
            times = []
            for key in keys:
                t = time.perf_counter()
                table.probe(key)
                times.append(time.perf_counter() - t)
            times.sort()
            p50, p99 = 1000 * times[len(times) // 2], 1000 * times[int(len(times) * 0.99)]
            print(f"probe over {samples:,} random stored positions, {run}: p50 {p50:.3f} ms, p99 {p99:.3f} ms")
        for name, call in (("line", table.line), ("predecessors", table.predecessors), ("best_move", table.best_move)):
            spent = []
            for key in keys[:200]:
                t = time.perf_counter()
                call(key)
                spent.append(time.perf_counter() - t)
            print(f"{name} over 200 of them: median {1000 * statistics.median(spent):.2f} ms")
        t = time.perf_counter()
        report = tb.verify(variant, sample=10_000)
        print(f"verify --sample 10000: {'ok' if report.ok else 'FAILED'} in {time.perf_counter() - t:.1f} s", flush=True)
    return p50


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="mnk-5-4-4")
    parser.add_argument("--db", default="mnk544.db")
    parser.add_argument("--build-dir", default=None, help="layer files (default: next to --db, removed after the write)")
    parser.add_argument("--workers", type=int, default=None, help="worker processes (default: one per core)")
    parser.add_argument("--skip-build", action="store_true", help="measure an existing --db")
    parser.add_argument("--no-census", action="store_true", help="skip the combinatorial census")
    parser.add_argument("--samples", type=int, default=2000)
    args = parser.parse_args()
    wall = rss = None
    if not args.skip_build:
        wall, rss = build(args)
    per_ply(args.db, args.variant, census=not args.no_census)
    p50 = queries(args.db, args.variant, args.samples)
    print("targets (ratio under 1 is met):")
    if wall is not None and rss is not None:
        print(f"  build {wall / 60:.1f} min / 30 min = {wall / TARGET_BUILD_S:.2f}")
        print(f"  peak RSS {rss:.2f} GiB / {TARGET_RSS_GB:.0f} GB = {rss * 2**30 / 1e9 / TARGET_RSS_GB:.2f}")
    print(f"  probe p50 (warm) {p50:.3f} ms / {TARGET_PROBE_MS:.0f} ms = {p50 / TARGET_PROBE_MS:.2f}")


if __name__ == "__main__":
    main()
