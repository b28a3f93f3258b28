"""The whole ``tablebase build morris-9 --stones K`` command, then probes of what it stored.

Runs the command as its own process on a fresh file (``--db``, default a
temporary one; ``--keep`` leaves an existing file to go on with), and prints
its wall time, its CPU time (the process and every process it waited for),
the peak resident memory of its process tree (sampled every quarter second),
the file's size, the load average, and per tier the positions, classes and
classes won, drawn and lost (``tablebase stats``). Then ``--probes`` random
stored positions (drawn from the stored tiers) are probed in this process
(warm: one open file, blocks cached as they are read: p50 and p95; after
the file's pages are written out, since probes beside the writing back of
gigabytes just written take twice as long), and the
whole ``tablebase probe morris-9 P`` command (the console script beside this
Python, bytecode caches allowed: ``PYTHONDONTWRITEBYTECODE`` is dropped from
its environment and one untimed run writes them) is timed ``--commands``
times (min, median). With ``--verify`` the whole ``tablebase verify`` command
is timed too.

    python benchmarks/morris_tier_build.py --stones 5 [--workers 2 | --scheduler local:2] [--probes 2000]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import tablebase
from connect4_steininger import measured as run_measured

NAME = "morris-9"


def measured(*args: str) -> tuple[float, float, int]:
    """Wall and CPU seconds and peak tree RSS (bytes) of one ``tablebase`` command (it must succeed)."""
    _, wall, cpu, peak = run_measured([sys.executable, "-m", "cli.main", *args])
    return wall, cpu, peak


def probe_command(*args: str) -> float:
    """Wall seconds of one ``tablebase probe`` as a user runs it: the console script, bytecode cached."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    started = time.perf_counter()
    subprocess.run([str(Path(sys.executable).with_name("tablebase")), "probe", *args],
                   stdout=subprocess.DEVNULL, check=True, env=env)
    return time.perf_counter() - started


def probe_seconds(table: tablebase.VariantTable, position: str) -> float:
    """Seconds one probe of ``position`` takes."""
    started = time.perf_counter()
    table.probe(position)
    return time.perf_counter() - started


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
    wall, cpu, peak = measured("build", NAME, "--stones", str(args.stones), "--db", str(db), "-q", *extra)
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    with tablebase.open(db) as tb:
        table = tb.variant(NAME)
        info, name = table.info, table.game.tier_name
        with table.snapshot() as conn:
            plies = [row for row in table.storage.plies(conn) if name(row[0]) is not None]
            positions = [row[1] for row in table.storage.sample(conn, args.probes, args.seed)]
    size = db.stat().st_size
    print(f"build --stones {args.stones}: {wall:.1f} s wall, {cpu:.1f} s CPU, peak RSS of the process tree"
          f" {peak / 2**20:,.0f} MB, file {size / 1e6:.1f} MB, {info.states:,} classes"
          f" ({size / max(1, info.states):.2f} bytes a class); load after {load}")
    print(f"{'tier':>5} {'positions':>15} {'classes':>13} {'won':>13} {'drawn':>13} {'lost':>13}")
    for number, count, classes, won, lost, drawn, *_ in plies:
        print(f"{name(number):>5} {count:>15,} {classes:>13,} {won:>13,} {drawn:>13,} {lost:>13,}")
    print(f"{'all':>5} {sum(r[1] for r in plies):>15,} {sum(r[2] for r in plies):>13,}"
          f" {sum(r[3] for r in plies):>13,} {sum(r[5] for r in plies):>13,} {sum(r[4] for r in plies):>13,}")
    os.sync()
    with tablebase.open(db) as tb:
        table = tb.variant(NAME)
        table.probe(positions[0])
        times = sorted(probe_seconds(table, position) for position in positions)
    print(f"warm probes of {len(times)} stored positions: p50 {1e3 * statistics.median(times):.2f} ms,"
          f" p95 {1e3 * times[int(0.95 * len(times))]:.2f} ms")
    rng = random.Random(args.seed)
    probe_command(NAME, positions[0], "--db", str(db), "--json")
    runs = [probe_command(NAME, rng.choice(positions), "--db", str(db), "--json") for _ in range(args.commands)]
    print(f"tablebase probe {NAME} P (whole command, {len(runs)} runs): min {min(runs):.2f} s,"
          f" median {statistics.median(runs):.2f} s")
    if args.verify:
        wall, cpu, peak = measured("verify", NAME, "--db", str(db))
        print(f"tablebase verify {NAME}: {wall:.1f} s wall, {cpu:.1f} s CPU, peak RSS {peak / 2**20:,.0f} MB")


if __name__ == "__main__":
    main()
