"""The dense build in tasks on a Dask cluster against the one-process build, in the same run.

Usage::

    python benchmarks/dense_cluster.py --variant connect4-7-4 --dir DIR
        [--scheduler local:2] [--worker-memory 1GB] [--skip-one-process]
    python benchmarks/dense_cluster.py --plan connect4-7-5 --from DIR/build-connect4-7-4 [--cores 8 32 128]

For each variant, the whole command as a user runs it, twice:
``tablebase build V --storage dense -q --db DIR/one-V.db`` and
``tablebase build V --storage dense --scheduler S --worker-memory M
--build-dir DIR/build-V -q --db DIR/tasks-V.db`` (the cluster's start-up
counted). While each runs, the memory of its whole process tree (the
command, the scheduler, nannies and workers) is sampled twice a second: the
peak of the sum of resident sizes (RSS, shared pages counted in every
process) and of proportional sizes (PSS, shared pages split). Then both
files are compared row by row (every ``blocks`` row and every ``plies``
row), and the figures of the tasks (from the build directory's manifest)
printed: slots per second per core, bytes read and written per slot, and
the share of the workers' time the tasks kept busy.

``--plan`` prints what a board would take from the figures of a finished
build directory (``--from``, as the first form leaves it): its slots and
tasks (from its index), the core-hours at the measured slots per second,
the bytes read and written at the measured bytes per slot, the storage at
the peak (the values of the two plies a label pass holds, the reach bits
of the plies not yet labelled, the block files so far) and the wall time
on ``--cores`` cores, computing alone and storage traffic alone at
``--storage-rate`` bytes a second.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]


def tree_memory(pid: int) -> tuple[int, int]:
    """``(RSS, PSS)`` summed over a process and its descendants, in bytes."""
    rss = pss = 0
    try:
        top = psutil.Process(pid)
        procs = [top, *top.children(recursive=True)]
    except psutil.NoSuchProcess:
        return 0, 0
    for proc in procs:
        try:
            info = proc.memory_full_info()
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
        rss += info.rss
        pss += getattr(info, "pss", info.rss)
    return rss, pss


def run(command: list[str]) -> tuple[float, int, int]:
    """Run a command; its wall seconds and the peaks of its process tree's RSS and PSS."""
    peak = [0, 0]
    began = time.perf_counter()
    proc = subprocess.Popen(command, cwd=ROOT)
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.5):
            rss, pss = tree_memory(proc.pid)
            peak[0], peak[1] = max(peak[0], rss), max(peak[1], pss)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    code = proc.wait()
    wall = time.perf_counter() - began
    done.set()
    sampler.join()
    if code:
        raise SystemExit(f"{' '.join(command)} exited with {code}")
    return wall, peak[0], peak[1]


def digest(db: Path) -> tuple[str, list[tuple[int, ...]]]:
    """A hash of every ``blocks`` row in order, and the ``plies`` rows."""
    conn = sqlite3.connect(db)
    try:
        h = hashlib.sha256()
        for row in conn.execute("SELECT ply, first_state, first_key, count, data FROM blocks ORDER BY ply, first_state"):
            h.update(repr(row[:4]).encode())
            h.update(row[4])
        plies = conn.execute(
            "SELECT ply, positions, classes, wins, losses, draws, terminal, win_positions, loss_positions, draw_positions"
            " FROM plies ORDER BY ply"
        ).fetchall()
    finally:
        conn.close()
    return h.hexdigest(), plies


def gib(n: float) -> str:
    return f"{n / (1 << 30):.2f} GiB"


def plan(name: str, measured: Path, cores: list[int], rate: float) -> None:
    """Print the plan of a build of ``name`` from the figures of the finished build directory ``measured``."""
    from tablebase import games
    from tablebase.solve.dense_tasks import TASK_SLOTS

    manifest = json.loads((measured / "manifest.json").read_text())
    figures = manifest["figures"]
    index = games.get(name).dense_index()
    assert index is not None
    sizes = [int(s) for s in index.ply_sizes()]
    slots = sum(sizes)
    measured_slots = figures["label"]["slots"]
    blocks_per_slot = sum(p.stat().st_size for p in measured.glob("blocks-*/*.blk")) / measured_slots
    task = int(manifest["task"]) or TASK_SLOTS
    seconds = sum(f["seconds"] / f["slots"] for f in figures.values()) * slots
    read = sum(f["read"] / f["slots"] for f in figures.values()) * slots
    written = sum(f["written"] / f["slots"] for f in figures.values()) * slots
    # labelling ply p holds the values of p and p + 1, the reach bits of plies 0..p, the blocks of p + 1 on
    peak = max(
        sizes[p] + (sizes[p + 1] if p + 1 < len(sizes) else 0) + sum(sizes[: p + 1]) / 8 + blocks_per_slot * sum(sizes[p:])
        for p in range(len(sizes))
    )
    print(f"{name}: {slots:,} slots, largest ply {max(sizes):,}; tasks of {task:,} slots:"
          f" {sum(-(-s // task) for s in sizes):,} a pass, {-(-max(sizes) // task):,} in the largest ply")
    print(f"  from {measured}: " + ", ".join(
        f"{k} {f['slots'] / f['seconds'] / 1e6:.1f} M slots/s a core" for k, f in figures.items()))
    print(f"  computing {seconds / 3600:,.1f} core-hours; read {read / 1e12:,.2f} TB, written {written / 1e12:,.2f} TB;"
          f" storage at the peak {peak / 1e9:,.0f} GB; blocks at most {blocks_per_slot * slots / 1e9:,.1f} GB"
          " (the measured bytes a slot; less where there are more slots a position)")
    for n in cores:
        print(f"  {n:4d} cores: computing {seconds / n / 60:7.1f} min; storage traffic at {rate / 1e9:g} GB/s"
              f" {(read + written) / rate / 60:7.1f} min")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variant", action="append")
    parser.add_argument("--dir", type=Path)
    parser.add_argument("--plan", help="a variant to plan from the figures of --from")
    parser.add_argument("--from", dest="measured", type=Path, help="a finished build directory")
    parser.add_argument("--cores", type=int, nargs="+", default=[8, 32, 128])
    parser.add_argument("--storage-rate", type=float, default=1e9, help="bytes a second of the shared storage")
    parser.add_argument("--scheduler", default="local:2")
    parser.add_argument("--worker-memory", default="1GB")
    parser.add_argument("--skip-one-process", action="store_true", help="time the task build only")
    args = parser.parse_args()
    if args.plan:
        if args.measured is None:
            parser.error("--plan needs --from, a finished build directory")
        plan(args.plan, args.measured, args.cores, args.storage_rate)
        return
    if not args.variant or args.dir is None:
        parser.error("give --variant and --dir, or --plan and --from")
    args.dir.mkdir(parents=True, exist_ok=True)
    tablebase = [sys.executable, "-m", "cli.main"]
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores", flush=True)
    for name in args.variant:
        one, tasks, folder = args.dir / f"one-{name}.db", args.dir / f"tasks-{name}.db", args.dir / f"build-{name}"
        for leftover in (one, tasks):
            leftover.unlink(missing_ok=True)
        subprocess.run(["rm", "-rf", str(folder)], check=True)
        if not args.skip_one_process:
            wall1, rss1, pss1 = run([*tablebase, "build", name, "--storage", "dense", "-q", "--db", str(one)])
            print(f"{name}  one process  {wall1:8.1f} s   tree peak RSS {gib(rss1)}  PSS {gib(pss1)}", flush=True)
        command = [*tablebase, "build", name, "--storage", "dense", "--scheduler", args.scheduler, "-q",
                   "--build-dir", str(folder), "--db", str(tasks)]
        if args.scheduler.startswith("local:"):
            command += ["--worker-memory", args.worker_memory]
        wall2, rss2, pss2 = run(command)
        limit = f"{args.worker_memory} a worker" if args.scheduler.startswith("local:") else "this command's tree only"
        print(f"{name}  tasks {args.scheduler} ({limit})  {wall2:8.1f} s   tree peak RSS {gib(rss2)}  PSS {gib(pss2)}", flush=True)
        if not args.skip_one_process:
            print(f"{name}  tasks / one process: {wall2 / wall1:.2f}", flush=True)
            same = digest(one) == digest(tasks)
            print(f"{name}  every blocks row and plies row identical: {same}", flush=True)
        manifest = json.loads((folder / "manifest.json").read_text())
        workers = int(args.scheduler.split(":")[1]) if args.scheduler.startswith("local:") else 0
        for phase, f in manifest["figures"].items():
            wall = manifest["seconds"][phase]
            busy = f"; tasks kept {f['seconds'] / (workers * wall):.0%} of {workers} workers busy" if workers else ""
            print(
                f"{name}  {phase:5s}  {f['tasks']:6,d} tasks  {f['slots']:,} slots  {wall:7.1f} s wall  "
                f"{f['slots'] / f['seconds'] / 1e6:6.2f} M slots/s per core  "
                f"read {f['read'] / f['slots']:.3f} B/slot  written {f['written'] / f['slots']:.3f} B/slot{busy}",
                flush=True,
            )
        blocks = sum(p.stat().st_size for p in folder.glob("blocks-*/*.blk"))
        print(f"{name}  block files {blocks / 1e6:,.1f} MB; database {tasks.stat().st_size / 1e6:,.1f} MB", flush=True)
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)


if __name__ == "__main__":
    main()
