"""Build time, peak memory and size of the big m,n,k tablebases, against SQLite's own write rate.

    python benchmarks/scale.py                # the full table (about a quarter of an hour)
    python benchmarks/scale.py --quick        # tictactoe and mnk-4-3-3 only
    python benchmarks/scale.py --keep DIR     # keep the databases in DIR

For each variant, in its own subprocess (so that its peak RSS is its own):

* **build**: ``Tablebase.build`` into a new file, split into its phases
  (schema, enumerate, label, write) from the progress callback; the peak
  resident memory of the process; the size of the database file;
* **floor**: SQLite alone writing the same rows: a second subprocess solves
  the variant (not timed), then runs the same writer into a new file with the
  same schema, indexes and pragmas, but with the clock stopped while each
  chunk of rows is produced, so only the bulk inserts, the index builds and the
  commit are timed. ``build / floor`` is how far the whole build is from the
  rate SQLite itself takes these rows. The same split is also measured inside
  the build (its write phase less the time spent producing rows), which does
  not depend on two processes meeting the same load on a shared machine;
* **verify**: ``tablebase verify`` on the built file.

Then a baseline from another library: OpenSpiel's ``mnk`` game on the 4x3
board with three in a row, solved by a memoised search through pyspiel
(values of every reachable position, no distances), against our solve of the
same board (values and distances of every position); and probe latency:
``VariantTable.probe`` on 10,000 random reachable positions of ``mnk-4-4-4``
(warm; wall clock, and the CPU time of the probing thread, which other work
on the machine disturbs less), and the wall time of a whole ``tablebase probe``
process (the console script's entry, ``cli.fast``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: (variant, symmetry) in the order they are built.
FULL = [
    ("tictactoe", True),
    ("mnk-4-3-3", True),
    ("mnk-4-4-3", True),
    ("mnk-4-4-4", True),
    ("mnk-4-4-4", False),
]
QUICK = FULL[:2]
PROBES = 10_000
CLI_RUNS = 11


# -- children: each runs in its own process and prints one JSON line ----------


def clock_row_production() -> list[float]:
    """Make the writer's row generators count the time spent producing rows; returns the counter."""
    from tablebase.store import writer

    producing = [0.0]

    def clocked(generator: Any) -> Any:
        def rows(*args: Any, **kwargs: Any) -> Any:
            chunks = generator(*args, **kwargs)
            while True:
                t = time.perf_counter()
                chunk = next(chunks, None)
                producing[0] += time.perf_counter() - t
                if chunk is None:
                    return
                yield chunk

        return rows

    writer.state_chunks = clocked(writer.state_chunks)
    writer.move_chunks = clocked(writer.move_chunks)
    return producing


def child_build(name: str, symmetry: bool, path: str) -> dict[str, Any]:
    import tablebase

    marks: dict[str, list[float]] = {}

    def progress(phase: str, done: int, total: int | None) -> None:
        now = time.perf_counter()
        span = marks.setdefault(phase, [now, now])
        span[1] = now

    producing = clock_row_production()
    start = time.perf_counter()
    with tablebase.open(path) as tb:
        info = tb.build(name, symmetry=symmetry, progress=progress)
    end = time.perf_counter()
    enumerate_start, enumerate_end = marks["enumerate"]
    label_end = marks["label"][1]
    wal = Path(path + "-wal")
    return {
        "states": info.states,
        "moves": info.moves,
        "outcome": info.outcome,
        "distance": info.distance,
        "schema": enumerate_start - start,
        "enumerate": enumerate_end - enumerate_start,
        "label": label_end - enumerate_end,
        "write": end - label_end,
        "sqlite": end - label_end - producing[0],
        "build": end - start,
        "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
        "size": Path(path).stat().st_size + (wal.stat().st_size if wal.exists() else 0),
    }


def child_floor(name: str, symmetry: bool, path: str) -> dict[str, Any]:
    from tablebase import games
    from tablebase.solve import solve
    from tablebase.store import writer
    from tablebase.store.engine import make_engine, upgrade

    solution = solve(games.get(name), symmetry=symmetry)
    engine = make_engine(path)
    upgrade(engine)
    producing = clock_row_production()
    t = time.perf_counter()
    writer.write_solution(engine, solution, 0.0)
    total = time.perf_counter() - t
    engine.dispose()
    return {"floor": total - producing[0], "rows": producing[0]}


def child_verify(name: str, path: str) -> dict[str, Any]:
    import tablebase

    t = time.perf_counter()
    with tablebase.open(path) as tb:
        report = tb.verify(name)
    return {"verify": time.perf_counter() - t, "ok": report.ok, "errors": report.error_count}


def child_openspiel() -> dict[str, Any]:
    import pyspiel

    game = pyspiel.load_game("mnk", {"m": 4, "n": 3, "k": 3})
    memo: dict[str, float] = {}

    def value(state: Any) -> float:
        """The value of ``state`` for the player to move (1 win, 0 draw, -1 loss)."""
        key = str(state)
        known = memo.get(key)
        if known is not None:
            return known
        player = state.current_player()
        best = -2.0
        for action in state.legal_actions():
            child = state.child(action)
            best = max(best, child.returns()[player] if child.is_terminal() else -value(child))
        memo[key] = best
        return best

    t = time.perf_counter()
    root = value(game.new_initial_state())
    return {"openspiel": time.perf_counter() - t, "root": root, "positions": len(memo)}


def child_solve(name: str, symmetry: bool) -> dict[str, Any]:
    from tablebase import games
    from tablebase.solve import solve

    game = games.get(name)
    t = time.perf_counter()
    solution = solve(game, symmetry=symmetry)
    return {"solve": time.perf_counter() - t, "states": solution.num_states, "result": solution.result()}


def sample_positions(name: str, count: int, seed: int = 1) -> list[str]:
    """``count`` positions met in random games (reachable, in any orientation, terminal ones included)."""
    from tablebase import games

    game = games.get(name)
    rng = random.Random(seed)
    out: list[str] = []
    while len(out) < count:
        state = game.initial_state()
        depth = rng.randrange(game.cells + 1)
        for _ in range(depth):
            if game.outcome(state) is not None:
                break
            state = game.apply(state, rng.choice(game.legal_moves(state)))
        out.append(game.format_position(state))
    return out


def child_probe(name: str, path: str) -> dict[str, Any]:
    import tablebase

    positions = sample_positions(name, PROBES)
    wall, cpu = [], []
    with tablebase.open(path) as tb:
        table = tb.variant(name)
        for position in positions:
            table.probe(position)
        for position in positions:
            w, c = time.perf_counter(), time.thread_time()
            table.probe(position)
            cpu.append(time.thread_time() - c)
            wall.append(time.perf_counter() - w)
    wall.sort()
    cpu.sort()
    return {
        "p50": wall[len(wall) // 2],
        "p99": wall[int(len(wall) * 0.99)],
        "cpu_p50": cpu[len(cpu) // 2],
        "cpu_p99": cpu[int(len(cpu) * 0.99)],
    }


CHILDREN = {
    "build": lambda a: child_build(a[0], a[1] == "sym", a[2]),
    "floor": lambda a: child_floor(a[0], a[1] == "sym", a[2]),
    "verify": lambda a: child_verify(a[0], a[1]),
    "openspiel": lambda a: child_openspiel(),
    "solve": lambda a: child_solve(a[0], a[1] == "sym"),
    "probe": lambda a: child_probe(a[0], a[1]),
}


def run_child(kind: str, *args: str) -> dict[str, Any]:
    result = subprocess.run(
        [sys.executable, __file__, "--child", kind, *args], capture_output=True, text=True, cwd=ROOT
    )
    if result.returncode != 0:
        raise SystemExit(f"{kind} {' '.join(args)} failed:\n{result.stderr}")
    return json.loads(result.stdout.strip().splitlines()[-1])


# -- the report ----------------------------------------------------------------


def mb(n: float) -> str:
    return f"{n / 2**20:,.0f} MB"


def seconds(s: float) -> str:
    return f"{s:.2f} s" if s < 100 else f"{s:.0f} s"


def cli_probe_wall(name: str, path: str, module: str) -> float:
    """Median wall time of a whole ``probe`` process through ``module``."""
    position = sample_positions(name, 1, seed=5)[0]
    times = []
    for _ in range(CLI_RUNS):
        t = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", module, "probe", name, position, "--db", path],
            check=True,
            capture_output=True,
            cwd=ROOT,
        )
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def table(headers: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in [headers] + rows) for i in range(len(headers))]
    lines = ["  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))) for r in [headers] + rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="tictactoe and mnk-4-3-3 only")
    parser.add_argument("--keep", metavar="DIR", help="build the databases in DIR and keep them")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(CHILDREN[args.child[0]](args.child[1:])))
        return

    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="tablebase-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    variants = QUICK if args.quick else FULL
    load = os.getloadavg()
    print(f"# tablebase scale benchmark: {platform.processor() or platform.machine()}, {os.cpu_count()} cores,"
          f" Python {platform.python_version()}, SQLite {__import__('sqlite3').sqlite_version};"
          f" load average at start {load[0]:.1f}", flush=True)

    rows, builds = [], {}
    for name, symmetry in variants:
        tag = f"{name}{'' if symmetry else '-full'}"
        path = str(work / f"{tag}.db")
        floor_path = str(work / f"{tag}-floor.db")
        for p in (path, floor_path):
            for suffix in ("", "-wal", "-shm"):
                Path(p + suffix).unlink(missing_ok=True)
        print(f"building {tag} ...", file=sys.stderr, flush=True)
        b = run_child("build", name, "sym" if symmetry else "full", path)
        f = run_child("floor", name, "sym" if symmetry else "full", floor_path)
        v = run_child("verify", name, path)
        for suffix in ("", "-wal", "-shm"):
            Path(floor_path + suffix).unlink(missing_ok=True)
        builds[(name, symmetry)] = (b, path)
        rows.append([
            name,
            "yes" if symmetry else "no",
            f"{b['states']:,}",
            f"{b['moves']:,}",
            f"{b['outcome']} in {b['distance']}",
            seconds(b["schema"]),
            seconds(b["enumerate"]),
            seconds(b["label"]),
            seconds(b["enumerate"] + b["label"]),
            seconds(b["write"]),
            seconds(b["build"] - b["schema"]),
            seconds(f["floor"]),
            f"{(b['build'] - b['schema']) / f['floor']:.2f}",
            seconds(b["sqlite"]),
            f"{(b['build'] - b['schema']) / b['sqlite']:.2f}",
            mb(b["rss"]),
            mb(b["size"]),
            f"{'ok' if v['ok'] else 'FAILED'} {seconds(v['verify'])}",
        ])
    print()
    print(table(
        ["variant", "sym", "states", "moves", "start", "schema", "enumerate", "label", "enum+label", "write",
         "build", "sqlite floor", "build/floor", "sqlite in build", "build/that", "peak RSS", "db size",
         "verify"],
        rows,
    ))
    print()
    print("schema = creating the file with the alembic migrations (a fixed cost, about a second);"
          " build = enumerate + label + write;\nsqlite floor = writing the same rows with the same schema,"
          " indexes and pragmas, with the production of the rows untimed (separate process);\n"
          "sqlite in build = the write phase of the build itself less the time spent producing rows"
          " (steadier when the machine is shared).")

    spiel = run_child("openspiel")
    ours = run_child("solve", "mnk-4-3-3", "full")
    print()
    print(f"OpenSpiel mnk(m=4,n=3,k=3), memoised search through pyspiel: {seconds(spiel['openspiel'])}"
          f" for {spiel['positions']:,} non-terminal positions (values only; root value {spiel['root']:+.0f})")
    print(f"tablebase solve mnk-4-3-3 without symmetry: {seconds(ours['solve'])} for {ours['states']:,} positions"
          f" (values and distances); ratio ours/OpenSpiel {ours['solve'] / spiel['openspiel']:.3f}")
    if ("mnk-4-3-3", True) in builds:
        b = builds[("mnk-4-3-3", True)][0]
        print(f"tablebase build mnk-4-3-3 (symmetry, stored in SQLite, schema included): {seconds(b['build'])};"
              f" ratio {b['build'] / spiel['openspiel']:.3f}")

    probe_name = "mnk-4-4-4" if ("mnk-4-4-4", True) in builds else variants[-1][0]
    probe_path = builds[(probe_name, True)][1]
    p = run_child("probe", probe_name, probe_path)
    fast = cli_probe_wall(probe_name, probe_path, "cli.fast")
    typer = cli_probe_wall(probe_name, probe_path, "cli.main")
    print()
    print(f"probe {probe_name}, Python API, {PROBES:,} random positions, warm:"
          f" p50 {p['p50'] * 1e6:.0f} us, p99 {p['p99'] * 1e6:.0f} us"
          f" (CPU time: p50 {p['cpu_p50'] * 1e6:.0f} us, p99 {p['cpu_p99'] * 1e6:.0f} us)")
    print(f"tablebase probe {probe_name}, whole process, median of {CLI_RUNS}: {fast:.3f} s"
          f" (through the full typer app: {typer:.3f} s)")
    load = os.getloadavg()
    print(f"# load average at the end {load[0]:.1f}; databases in {work}" if args.keep else
          f"# load average at the end {load[0]:.1f}")
    if not args.keep:
        for file in work.iterdir():
            file.unlink()
        work.rmdir()


if __name__ == "__main__":
    main()
