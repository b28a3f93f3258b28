"""Probes per second from threads sharing one Tablebase, next to one object per thread.

    python benchmarks/threads.py [--db FILE] [--variant mnk-4-3-3] [--seconds 2] [--repeat 5]
        [--turns 0.005,0]

Builds the variant into FILE if it is not there, then walks random games with
``probe`` for a fixed time: from 1, 2 and 8 threads sharing one object, and
from 2 and 8 threads with an object each, each configuration run
``--repeat`` times interleaved with the others (medians), once for each
length of the read side's turns (``tablebase.reader.TURNS.seconds``; 0 turns
them off: every thread reads whenever it likes). Also prints single-thread probe
latency (p50, p99) over a fixed set of positions, with each turn length. Errors are counted, not
raised, so the script also runs on versions of the library that fail here.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import threading
import time
from pathlib import Path

import tablebase
import tablebase.reader


def walk_for(table: tablebase.VariantTable, seconds: float, seed: int) -> tuple[int, int]:
    """Probes made on random games until ``seconds`` pass, and errors met."""
    rng = random.Random(seed)
    done = errors = 0
    stop = time.perf_counter() + seconds
    while time.perf_counter() < stop:
        try:
            probe = table.probe()
            while probe.moves:
                probe = table.probe(rng.choice(probe.moves).position)
                done += 1
        except Exception:
            errors += 1
    return done, errors


def throughput(path: Path, name: str, threads: int, shared: bool, seconds: float) -> tuple[float, int]:
    """Probes per second over all threads, and errors."""
    opened = [tablebase.open(path)] * threads if shared else [tablebase.open(path) for _ in range(threads)]
    results: list[tuple[int, int]] = [(0, 0)] * threads

    def run(i: int) -> None:
        try:
            results[i] = walk_for(opened[i].variant(name), seconds, seed=i)
        except Exception:
            results[i] = (0, 1)

    workers = [threading.Thread(target=run, args=(i,)) for i in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    for tb in set(opened):
        tb.close()
    return sum(r[0] for r in results) / seconds, sum(r[1] for r in results)


def latency(path: Path, name: str, count: int) -> tuple[float, float]:
    """Single-thread probe p50 and p99 in microseconds over positions of random games."""
    with tablebase.open(path) as tb:
        table = tb.variant(name)
        rng = random.Random(1)
        positions: list[str] = []
        while len(positions) < count:
            probe = table.probe()
            while probe.moves and len(positions) < count:
                probe = table.probe(rng.choice(probe.moves).position)
                positions.append(probe.position)
        for p in positions[:200]:
            table.probe(p)
        times = []
        for p in positions:
            t = time.perf_counter()
            table.probe(p)
            times.append((time.perf_counter() - t) * 1e6)
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.99)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, default=Path("threads.db"))
    parser.add_argument("--variant", default="mnk-4-3-3")
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--repeat", type=int, default=5, help="interleaved runs of every configuration")
    parser.add_argument("--turns", default="0.005,0", help="turn lengths of the read side to compare, in seconds")
    args = parser.parse_args()
    with tablebase.open(args.db) as tb:
        if not args.db.exists() or tb.get_variant(args.variant) is None:
            tb.build(args.variant)
    print(f"tablebase from {Path(tablebase.__file__).parent}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    turns = [float(t) for t in args.turns.split(",")]
    for turn in turns:
        tablebase.reader.TURNS.seconds = turn
        p50, p99 = latency(args.db, args.variant, 5000)
        print(f"turns {turn * 1000:g} ms: single-thread probe p50 {p50:.0f} us, p99 {p99:.0f} us")
    configs = [(turn, threads, shared) for turn in turns for threads, shared in CONFIGS]
    rates: dict[tuple[float, int, bool], list[float]] = {c: [] for c in configs}
    errors = dict.fromkeys(configs, 0)
    for _ in range(args.repeat):
        for turn, threads, shared in configs:
            tablebase.reader.TURNS.seconds = turn
            rate, failed = throughput(args.db, args.variant, threads, shared, args.seconds)
            rates[turn, threads, shared].append(rate)
            errors[turn, threads, shared] += failed
    base = statistics.median(rates[turns[0], 1, True])
    print(f"median of {args.repeat} interleaved runs of {args.seconds:g} s each; 'vs 1': against one thread, turns {turns[0] * 1000:g} ms")
    print(f"{'turns':>8} {'threads':>7}  {'objects':<10} {'probes/s':>9}  {'vs 1':>5}  errors")
    for turn, threads, shared in configs:
        rate = statistics.median(rates[turn, threads, shared])
        label = "one" if threads == 1 else "one shared" if shared else "one each"
        print(f"{turn * 1000:>5g} ms {threads:>7}  {label:<10} {rate:>9,.0f}  {rate / base:>5.2f}  {errors[turn, threads, shared]}")
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


CONFIGS = [(1, True), (2, True), (2, False), (8, True), (8, False)]


if __name__ == "__main__":
    main()
