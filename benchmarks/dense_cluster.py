"""The dense build in tasks on a Dask cluster against the one-process build, in the same run.

Usage::

    python benchmarks/dense_cluster.py --variant connect4-7-4 --dir DIR
        [--scheduler local:2] [--worker-memory 1GB] [--skip-one-process]

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variant", action="append", required=True)
    parser.add_argument("--dir", type=Path, required=True)
    parser.add_argument("--scheduler", default="local:2")
    parser.add_argument("--worker-memory", default="1GB")
    parser.add_argument("--skip-one-process", action="store_true", help="time the task build only")
    args = parser.parse_args()
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
