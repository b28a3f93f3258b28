"""Connect Four from the empty board: `tablebase solve connect4-W-H` against Steininger's solver, same run.

Times the whole command a user types, ``tablebase solve connect4`` (7x6) or
``tablebase solve connect4-7-7`` on a fresh file (its own process: start-up,
the search on every core, storing the position with every column's value and
distance), and Christophe Steininger's ``c4`` binary for the same board (a
strong solve of the empty board: the result and the move the game ends on),
alternately, ``--rounds`` times each, and prints wall and CPU seconds, node
counts, the peak memory of each process tree, both answers and the ratio of
the medians. Nothing is built here: ``--steininger DIR`` names a folder
holding one binary per board, ``DIR/c4-7x6`` and ``DIR/c4-7x7`` (or the build
folders of that name, ``DIR/c4-7x6/out/optimise/c4``). A board whose binary is
absent is timed on our side alone.

Building his binaries (github ChristopheSteininger/c4; its defaults: every
core, a table of 134,217,757 entries = 1 GB): a copy of the source per board
with ``BOARD_WIDTH``/``BOARD_HEIGHT`` set in ``src/solver/settings.h``, then
``cmake --preset optimise && cmake --build --preset optimise --target c4``.

Before the timed runs our command solves one late position of each board into
a scratch file, so numba's compiled code is cached and the timed runs load it.

    python benchmarks/connect4_steininger.py --steininger /opt/c4 --boards 7x6 7x7 --rounds 2
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Run:
    """One timed process: its answer, wall and CPU seconds, nodes and peak tree RSS."""

    answer: str
    wall: float
    cpu: float
    nodes: int
    peak_rss: int


def tree_rss(pid: int) -> int:
    """Resident memory summed over a process and its descendants, in bytes."""
    try:
        top = psutil.Process(pid)
        procs = [top, *top.children(recursive=True)]
    except psutil.NoSuchProcess:
        return 0
    total = 0
    for proc in procs:
        try:
            total += proc.memory_info().rss
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return total


def measured(command: list[str], allowed: tuple[int, ...] = (0,)) -> tuple[str, float, float, int]:
    """Run ``command`` with no input: its stdout, wall and CPU seconds, and peak tree RSS (an exit
    code outside ``allowed`` ends the benchmark)."""
    peak = [0]
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        began = time.perf_counter()
        proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out, stderr=err, text=True)
        done = threading.Event()

        def sample() -> None:
            while not done.wait(0.25):
                peak[0] = max(peak[0], tree_rss(proc.pid))

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - began
        done.set()
        sampler.join()
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if proc.returncode not in allowed:
            raise SystemExit(f"{' '.join(command)} exited with {proc.returncode}: {err.read().strip()[-300:]}")
        return out.read(), wall, usage.ru_utime + usage.ru_stime, peak[0]


def steininger_binary(folder: Path, width: int, height: int) -> Path | None:
    """His ``c4`` for a board in ``folder``, or None."""
    for candidate in (folder / f"c4-{width}x{height}", folder / f"c4-{width}x{height}" / "out" / "optimise" / "c4"):
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def run_steininger(binary: Path) -> Run:
    """His strong solve of the empty board."""
    out, wall, cpu, peak = measured([str(binary)])
    final = re.search(r"Final strong score is (-?\d+) \((.*?)\)", out)
    total = re.search(r"Total\s*=\s*([\d,.\s]+)", out)
    if not final or not total:
        raise SystemExit(f"{binary}: unexpected output: {out[-400:]}")
    nodes = int(re.sub(r"\D", "", total.group(1)))
    return Run(final.group(2), wall, cpu, nodes, peak)


def variant_name(width: int, height: int) -> str:
    return "connect4" if (width, height) == (7, 6) else f"connect4-{width}-{height}"


def tb_command() -> list[str]:
    """The ``tablebase`` command of this environment."""
    script = Path(sys.executable).with_name("tablebase")
    return [str(script)] if script.exists() else [sys.executable, "-m", "cli"]


def run_ours(width: int, height: int, db: Path, time_limit: float | None) -> Run:
    """``tablebase solve`` of the empty board into a fresh file (within ``time_limit`` seconds)."""
    limit = [] if time_limit is None else ["--time-limit", str(time_limit)]
    command = [*tb_command(), "solve", variant_name(width, height), "--json", *limit, "--db", str(db)]
    out, wall, cpu, peak = measured(command, allowed=(0, 1))  # 1: not proved in time, said in the JSON
    found = json.loads(out)
    if not found["proved"]:
        return Run(f"not proved in {time_limit:g} s", wall, cpu, int(found["nodes"]), peak)
    player = "first" if found["outcome"] == "win" else "second"
    answer = "draw" if found["outcome"] == "draw" else f"{player} player will win on move #{found['distance']}"
    answer += f"; {found['moves_proved']}/{found['moves']} columns"
    return Run(answer, wall, cpu, int(found["nodes"]), peak)


def warm(width: int, height: int, work: Path) -> None:
    """Solve a late position (two centre columns nearly full) so the compiled search is in numba's cache."""
    late = "4" * min(height, 6) + "3" * min(height, 5)
    subprocess.run([*tb_command(), "solve", variant_name(width, height), late, "--db", str(work / "warm.db")],
                   capture_output=True, text=True, check=True)


def gib(n: int) -> str:
    return f"{n / (1 << 30):.2f} GiB"


def line(who: str, r: Run) -> str:
    return f"  {who:<11} {r.wall:8.1f} s wall {r.cpu:8.1f} s CPU {r.nodes:>15,} nodes  {gib(r.peak_rss):>9}  {r.answer}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steininger", type=Path, help="folder with his binaries c4-7x6, c4-7x7 (see the docstring)")
    parser.add_argument("--boards", nargs="+", default=["7x6", "7x7"], help="boards WxH (default: 7x6 7x7)")
    parser.add_argument("--rounds", type=int, default=1, help="runs of each solver a board, alternating")
    parser.add_argument("--time-limit", type=float, help="our command's --time-limit (an unproved board is reported as such)")
    args = parser.parse_args()
    print(f"cores: {os.cpu_count()}, load average at the start: {os.getloadavg()[0]:.2f}", flush=True)
    for board in args.boards:
        width, height = (int(x) for x in board.lower().split("x"))
        binary = steininger_binary(args.steininger, width, height) if args.steininger else None
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            warm(width, height, work)
            print(f"{width}x{height}: tablebase solve {variant_name(width, height)} (fresh file) against "
                  f"{binary if binary else 'no Steininger binary'}", flush=True)
            ours: list[Run] = []
            his: list[Run] = []
            for round_ in range(args.rounds):
                if binary:
                    his.append(run_steininger(binary))
                    print(line("steininger", his[-1]), flush=True)
                ours.append(run_ours(width, height, work / f"round{round_}.db", args.time_limit))
                print(line("tablebase", ours[-1]), flush=True)
            if his:
                ratio = statistics.median(r.wall for r in ours) / statistics.median(r.wall for r in his)
                nodes = statistics.median(r.nodes for r in ours) / statistics.median(r.nodes for r in his)
                print(f"  ratio tablebase/steininger, median wall: {ratio:.2f}x; nodes: {nodes:.2f}x", flush=True)
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
