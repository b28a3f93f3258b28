"""The whole ``tablebase build morris-9 --stones K`` command, then probes of what it stored.

Runs the command as its own process on a fresh file (``--db``, default a
temporary one; ``--keep`` leaves an existing file to go on with), and prints
its wall time, the peak memory of its largest process, the file's size and the
classes stored. Then ``--probes`` random stored positions (drawn from the
stored tiers) are probed in this process (warm: one open file, blocks cached
as they are read: p50 and p95), and the whole ``tablebase probe morris-9 P``
command is timed ``--commands`` times (min, median). With ``--verify`` the
whole ``tablebase verify`` command is timed too.

    python benchmarks/morris_tier_build.py --stones 4 [--workers 2 | --scheduler local:2] [--probes 2000]
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import tablebase
from tablebase import games
from tablebase.store.tiers import open_tiered, read_tier, stored_tiers

NAME = "morris-9"


def command(*args: str) -> float:
    """Wall seconds of one ``tablebase`` command (its output must say it succeeded)."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "cli.main", *args], check=True, capture_output=True, text=True)
    return time.perf_counter() - started


def probe_seconds(table: tablebase.VariantTable, position: str) -> float:
    """Seconds one probe of ``position`` takes."""
    started = time.perf_counter()
    table.probe(position)
    return time.perf_counter() - started


def sample(db: Path, count: int, seed: int) -> list[str]:
    """``count`` random stored positions, a tier drawn by its size."""
    game = games.get(NAME)
    variant_id = open_tiered(db, game)
    tiers = [read_tier(db, game, variant_id, n)[0] for n in sorted(stored_tiers(db, variant_id))]
    sizes = np.array([len(t) for t in tiers], dtype=np.float64)
    rng = np.random.default_rng(seed)
    picks = rng.choice(len(tiers), size=count, p=sizes / sizes.sum())
    return [game.format_position(int(tiers[t][rng.integers(len(tiers[t]))])) for t in picks]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--stones", type=int, default=4)
    parser.add_argument("--workers", type=int)
    parser.add_argument("--scheduler")
    parser.add_argument("--db")
    parser.add_argument("--keep", action="store_true", help="go on with the tiers the file holds")
    parser.add_argument("--probes", type=int, default=2000)
    parser.add_argument("--commands", type=int, default=5)
    parser.add_argument("--verify", action="store_true")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="morris-tiers-"))
    db = Path(args.db) if args.db else folder / "m9.db"
    if db.exists() and not args.keep:
        sys.exit(f"{db} exists; give --keep to go on with it")
    extra = ["--workers", str(args.workers)] if args.workers else []
    extra += ["--scheduler", args.scheduler] if args.scheduler else []
    wall = command("build", NAME, "--stones", str(args.stones), "--db", str(db), "-q", *extra)
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    with tablebase.open(db) as tb:
        info = tb.variant(NAME).info
    print(f"build --stones {args.stones}: {wall:.1f} s wall, largest process {rss:.0f} MB,"
          f" file {db.stat().st_size / 1e6:.1f} MB, {info.states:,} classes")
    positions = sample(db, args.probes, args.seed)
    with tablebase.open(db) as tb:
        table = tb.variant(NAME)
        table.probe(positions[0])
        times = sorted(probe_seconds(table, position) for position in positions)
    print(f"warm probes of {len(times)} stored positions: p50 {1e3 * statistics.median(times):.2f} ms,"
          f" p95 {1e3 * times[int(0.95 * len(times))]:.2f} ms")
    rng = random.Random(args.seed)
    runs = [command("probe", NAME, rng.choice(positions), "--db", str(db), "--json") for _ in range(args.commands)]
    print(f"tablebase probe {NAME} P (whole command, {len(runs)} runs): min {min(runs):.2f} s,"
          f" median {statistics.median(runs):.2f} s")
    if args.verify:
        print(f"tablebase verify {NAME}: {command('verify', NAME, '--db', str(db)):.1f} s")


if __name__ == "__main__":
    main()
