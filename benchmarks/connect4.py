"""Build the Connect Four boards and probe them, with mnk-5-4-4 measured the same way in the same run.

Usage::

    python benchmarks/connect4.py [--dir DIR] [--boards connect4-4-4,...] [--storage dense|packed]
        [--skip-mnk] [--mnk-db FILE] [--mnk-storage dense|packed] [--skip-build] [--db FILE ...] [--samples 2000]
        [--rounds R] [--baseline-code DIR --baseline-db FILE]

Each board is built with ``--storage`` (default ``dense``:
``Tablebase.build(name, storage="dense")``, what ``tablebase build NAME
--storage dense`` runs) into one file, ``DIR/connect4.db``, in a child
process of its own so that its peak resident memory (the child or its
largest worker) is its own. mnk-5-4-4 is built with ``--mnk-storage``
(default ``dense``) into ``DIR/mnk-5-4-4.db`` (``--skip-mnk``: not at all;
``--mnk-db``: probe that file instead of building; ``--db``: probe the
boards in that file, built earlier, e.g. ``--db c74.db --boards connect4-7-4``;
given more than once, each board from the first file that holds it).

The run starts with the time of one iteration of a plain Python loop, so that
probe times can be compared across machines.

Per board: build time, positions per second, bytes per position (the file's
growth by the board; for mnk-5-4-4 its own file), peak resident memory, and
the probe latency over ``--samples`` positions of random games (every
non-terminal position of random walks from the start, until there are
enough; each probe reads the values of every child): the median of the first
probe of each position (blocks cached by the earlier positions only) and of a
second pass over the same positions (warm). Probes run in a child process
(``--rounds`` times each, the median of the rounds reported), imports and
tables ready before the first position.

The probe target was set against mnk-5-4-4 as the code of the time probed it
(:data:`BASELINE_US` on the machine it was measured on). ``--baseline-code
DIR`` (a checkout of that code: ``git worktree add DIR b7aa389``) and
``--baseline-db FILE`` (mnk-5-4-4 built by it: ``PYTHONPATH=DIR python -c
"import tablebase; tablebase.open('FILE').build('mnk-5-4-4',
storage='packed')"``) probe the same mnk-5-4-4 positions with that code in the
same rounds, one run after each board's, and scale the target to this
machine: ``TARGET_PROBE_US * baseline here / BASELINE_US``; each board's
first-pass median over that of the baseline run right after it (the median of
the rounds) is printed too, against ``TARGET_PROBE_US / BASELINE_US``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import tablebase  # noqa: E402
from tablebase.games import get  # noqa: E402

BOARDS = ("connect4-4-4", "connect4-5-4", "connect4-4-5", "connect4-6-4", "connect4-4-6", "connect4-5-5")
MNK = "mnk-5-4-4"
#: Targets of the Connect Four issue: all six boards in 8 minutes into 60 MB, warm probe median 100 us.
TARGET_BUILD_S = 8 * 60
TARGET_FILE_MB = 60.0
TARGET_PROBE_US = 100.0
#: The first-pass probe median of mnk-5-4-4 when the target was set (its code: commit b7aa389, packed).
BASELINE_US = 198.0

#: What a probe child runs (``python -c``, with the code to measure first on ``PYTHONPATH``): it
#: probes the positions read from stdin twice and prints both medians in microseconds.
PROBE_CHILD = """
import json, statistics, sys, time
import tablebase
positions = json.load(sys.stdin)
medians = []
with tablebase.open(sys.argv[1]) as tb:
    table = tb.variant(sys.argv[2])
    table.probe(None)
    for _ in range(2):
        times = []
        for position in positions:
            t = time.perf_counter()
            probe = table.probe(position)
            times.append(time.perf_counter() - t)
            assert probe.moves, position
        medians.append(1e6 * statistics.median(times))
print(json.dumps(medians))
"""


def build_one(db: str, name: str, storage: str) -> None:
    """Build ``name`` with storage ``storage`` into ``db`` in this process and print its figures as JSON."""
    t0 = time.perf_counter()
    with tablebase.open(db) as tb:
        info = tb.build(name, storage=storage)
    wall = time.perf_counter() - t0
    rss = max(resource.getrusage(who).ru_maxrss for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    print(json.dumps({"classes": info.states, "outcome": info.outcome, "distance": info.distance, "build_s": wall, "rss_mb": rss / 1024}))


def build(db: Path, name: str, storage: str) -> dict[str, float]:
    """Build ``name`` into ``db`` in a child process; its figures with the file's growth."""
    before = db.stat().st_size if db.exists() else 0
    out = subprocess.run(
        [sys.executable, __file__, "--build-one", name, "--db-one", str(db), "--storage", storage],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    result: dict[str, float] = json.loads(out.strip().splitlines()[-1])
    result["bytes"] = db.stat().st_size - before
    return result


def holding(name: str, files: list[str]) -> Path | None:
    """The first of ``files`` in which ``name`` is built."""
    for file in files:
        with tablebase.open(file) as tb:
            if tb.get_variant(name) is not None:
                return Path(file)
    return None


def walk_positions(name: str, count: int, seed: int = 1) -> list[str]:
    """``count`` non-terminal positions of random games from the start."""
    game = get(name)
    rng = random.Random(seed)
    found: list[str] = []
    while len(found) < count:
        state = game.initial_state()
        while game.outcome(state) is None and len(found) < count:
            found.append(game.format_position(state))
            state = game.apply(state, rng.choice(game.legal_moves(state)))
    return found


def probe_times(db: Path, name: str, positions: list[str], code: Path | None = None) -> tuple[float, float]:
    """Median microseconds of the first and of a second probe of each position, in a child process
    running this tree's code or that of ``code``."""
    env = dict(os.environ, PYTHONPATH=str(code or Path(__file__).resolve().parents[1]))
    out = subprocess.run(
        [sys.executable, "-P", "-c", PROBE_CHILD, str(db), name],
        input=json.dumps(positions),
        check=True,
        capture_output=True,
        text=True,
        env=env,
    ).stdout
    first, warm = json.loads(out.strip().splitlines()[-1])
    return first, warm


def machine_speed() -> float:
    """Nanoseconds an iteration of a plain Python loop takes here (the best of five runs): probe
    times scale with it from one machine to another."""
    best = float("inf")
    for _ in range(5):
        t = time.perf_counter()
        x = 0
        for i in range(1_000_000):
            x += i & 7
        best = min(best, time.perf_counter() - t)
    return best * 1e3


def report(name: str, figures: dict[str, float], db: Path, times: list[tuple[float, float]]) -> dict[str, float]:
    positions = tablebase.open(db).variant(name).stats().positions
    first = statistics.median(t[0] for t in times)
    warm = statistics.median(t[1] for t in times)
    row = dict(figures, positions=positions, probe_first_us=first, probe_warm_us=warm)
    rounds = ", ".join(f"{t[0]:.0f}" for t in times)
    print(json.dumps({"variant": name, **row}) + f"  # first-pass medians of the rounds: {rounds}", flush=True)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dir", default="bench-connect4")
    parser.add_argument("--boards", default=",".join(BOARDS))
    parser.add_argument("--storage", default="dense", help="storage of the Connect Four boards (dense or packed)")
    parser.add_argument("--skip-mnk", action="store_true", help="leave mnk-5-4-4 out (its build takes minutes)")
    parser.add_argument("--mnk-db", help="an existing file with mnk-5-4-4: probe it, do not build")
    parser.add_argument("--mnk-storage", default="dense", help="storage of mnk-5-4-4 (dense or packed)")
    parser.add_argument("--skip-build", action="store_true", help="probe the files of an earlier run")
    parser.add_argument(
        "--db",
        action="append",
        help="an existing file with boards: probe them, build nothing (repeatable: each board from the first file holding it)",
    )
    parser.add_argument("--samples", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=1, help="probe passes of every board (median reported)")
    parser.add_argument("--baseline-code", help="a checkout of the code the probe target was set against")
    parser.add_argument("--baseline-db", help="mnk-5-4-4 built by --baseline-code")
    parser.add_argument("--build-one", help=argparse.SUPPRESS)
    parser.add_argument("--db-one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if bool(args.baseline_code) != bool(args.baseline_db):
        parser.error("--baseline-code and --baseline-db go together")
    if args.build_one:
        build_one(args.db_one, args.build_one, args.storage)
        return
    out = Path(args.dir)
    out.mkdir(parents=True, exist_ok=True)
    db = Path(args.db[0]) if args.db else out / "connect4.db"
    if args.db:
        args.skip_build = True
    print(f"load before: {os.getloadavg()}; a plain Python loop: {machine_speed():.1f} ns an iteration")
    if not args.skip_build:
        for stale in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):
            stale.unlink(missing_ok=True)
    boards: dict[str, tuple[Path, dict[str, float]]] = {}
    for name in args.boards.split(","):
        path = (holding(name, args.db) or db) if args.db else db
        boards[name] = (path, {} if args.skip_build else build(db, name, args.storage))
    if not args.skip_mnk:
        mnk_db = Path(args.mnk_db) if args.mnk_db else out / f"{MNK}.db"
        figures: dict[str, float] = {}
        if not args.mnk_db and not args.skip_build:
            for stale in (mnk_db, Path(f"{mnk_db}-wal"), Path(f"{mnk_db}-shm")):
                stale.unlink(missing_ok=True)
            figures = build(mnk_db, MNK, args.mnk_storage)
        boards[MNK] = (mnk_db, figures)
    positions = {name: walk_positions(name, args.samples) for name in {*boards, *([MNK] if args.baseline_code else [])}}
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in boards}
    baseline: list[tuple[float, float]] = []
    # per board, its first-pass median over the baseline's in the run right after it
    paired: dict[str, list[float]] = {name: [] for name in boards}
    for _ in range(args.rounds):
        for name, (path, _) in boards.items():
            times[name].append(probe_times(path, name, positions[name]))
            if args.baseline_code:
                baseline.append(probe_times(Path(args.baseline_db), MNK, positions[MNK], Path(args.baseline_code)))
                paired[name].append(times[name][-1][0] / baseline[-1][0])
    rows = {name: report(name, figures, path, times[name]) for name, (path, figures) in boards.items()}
    print(f"load after: {os.getloadavg()}")
    print()
    print("| variant | positions | classes | build | positions/s | bytes/position | peak RSS | probe p50 first | warm |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, r in rows.items():
        built = "build_s" in r
        cells = [name, f"{r['positions']:,}"]
        if built:
            cells += [
                f"{r['classes']:,}",
                f"{r['build_s']:.1f} s",
                f"{r['positions'] / r['build_s']:,.0f}",
                f"{r['bytes'] / r['positions']:.3f}",
                f"{r['rss_mb']:,.0f} MB",
            ]
        else:
            cells += ["-"] * 5
        cells += [f"{r['probe_first_us']:.0f} us", f"{r['probe_warm_us']:.0f} us"]
        print("| " + " | ".join(cells) + " |")
    c4 = [rows[n] for n in rows if n != MNK]
    if c4 and all("build_s" in r for r in c4):
        total_s = sum(r["build_s"] for r in c4)
        size_mb = db.stat().st_size / 1e6
        print()
        print(f"connect4 boards: {total_s:.1f} s in all (target {TARGET_BUILD_S} s: ratio {total_s / TARGET_BUILD_S:.2f}),")
        print(f"  one file of {size_mb:.1f} MB (target {TARGET_FILE_MB:.0f} MB: ratio {size_mb / TARGET_FILE_MB:.2f}),")
    target = TARGET_PROBE_US
    if baseline:
        here = statistics.median(t[0] for t in baseline)
        target = TARGET_PROBE_US * here / BASELINE_US
        print()
        print(
            f"baseline ({args.baseline_code}) mnk-5-4-4 first-pass median here: {here:.0f} us over {len(baseline)} runs"
            f" ({', '.join(f'{t[0]:.0f}' for t in baseline)}), {BASELINE_US:.0f} us when the target was set:"
            f" the {TARGET_PROBE_US:.0f} us target is {target:.0f} us here"
        )
        print(
            "first-pass median over the baseline's right after it (median of the rounds; target"
            f" {TARGET_PROBE_US / BASELINE_US:.3f}):"
        )
        for name, ratios in paired.items():
            ratio = statistics.median(ratios)
            print(
                f"  {name}: {ratio:.3f} ({', '.join(f'{r:.2f}' for r in ratios)}),"
                f" {ratio * BASELINE_US:.0f} us at the baseline's {BASELINE_US:.0f} us"
            )
    for column, label in (("probe_first_us", "first"), ("probe_warm_us", "warm")):
        worst = max(r[column] for r in rows.values())
        print(f"worst {label} probe median {worst:.0f} us (target {target:.0f} us: ratio {worst / target:.2f})")


if __name__ == "__main__":
    main()
