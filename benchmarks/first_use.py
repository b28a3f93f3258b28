"""The first use against the later ones: whole ``tablebase`` commands timed from launch to exit.

Each search command runs twice in a fresh temporary folder of numba's cache
(``NUMBA_CACHE_DIR``), each time into a fresh database file: the first run
("cold", as on a fresh clone) compiles the search, the second ("warm") loads
it from the cache. For each run it prints the wall time, the CPU time of the
process and its children (user + system; on a shared machine the steadier
figure), the peak memory, and whether the command said on stderr that it
compiled ("compiling ... (first use, about N s)..."). The commands that do no
work (``tablebase --help``, ``tablebase list`` on a file that does not exist)
are timed ``--runs`` times each after one untimed run, median and slowest.

    python benchmarks/first_use.py
    python benchmarks/first_use.py --only connect4 --repeat 2
    PYTHONPATH=OTHER_TREE python benchmarks/first_use.py --tablebase 'python -m cli.fast'   # another checkout

The positions: ``4344354261``, the moves of the issue's Connect Four example
(a win in 3), and an Ultimate position of 33 empty spots (48 marks) from
random play (``random_live_position(ultimate, 33, Random(0))``, a win in 29).
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

#: The searches timed: a name, the variant and the position.
SEARCHES = {
    "connect4": ("connect4", "4344354261"),
    "ultimate": (
        "ultimate",
        ".o...xo../.o.xooo../.xx.oo.o./o.xxxx.x./oo.o..xxo/.xoo.x.xo/xo..x..x./..xxxoxox/...xoooox x 3",
    ),
}


class Run(NamedTuple):
    """One command from launch to exit."""

    wall: float
    cpu: float
    peak_mb: float
    compiled: bool
    code: int
    out: str


def timed(command: list[str], env: dict[str, str]) -> Run:
    """``command`` in a process of its own from launch to exit: wall time, and the CPU time and
    peak memory the operating system counted for it and the processes it waited for."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.perf_counter()
        process = subprocess.Popen(command, env=env, stdout=out, stderr=err, text=True)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    return Run(
        wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, "compiling" in stderr, process.returncode,
        (stdout or stderr).strip(),
    )


def show(name: str, result: Run) -> None:
    said = "yes" if result.compiled else "no"
    print(f"{name:28} {result.wall:8.2f} {result.cpu:8.2f} {result.peak_mb:8.0f}   {said:9} {result.out[:70]}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=[*SEARCHES, "idle"], action="append", help="time only these (default: all)")
    parser.add_argument("--repeat", type=int, default=1, help="cold-and-warm pairs of each search (default 1)")
    parser.add_argument("--runs", type=int, default=10, help="runs of each command that does no work (default 10)")
    parser.add_argument(
        "--tablebase", metavar="COMMAND", help="the command to time, split as a shell splits words "
        "(default: the tablebase script beside this Python; e.g. 'python -m cli.fast' with PYTHONPATH set to another tree)",
    )
    args = parser.parse_args()
    only = args.only or [*SEARCHES, "idle"]
    script = shutil.which("tablebase") or str(Path(sys.executable).with_name("tablebase"))
    tb = shlex.split(args.tablebase) if args.tablebase else [script]
    print(f"{'command':28} {'wall s':>8} {'CPU s':>8} {'peak MB':>8}   compiled  output")
    with tempfile.TemporaryDirectory() as folder:
        for name, (variant, position) in SEARCHES.items():
            if name not in only:
                continue
            for pair in range(args.repeat):
                env = {**os.environ, "NUMBA_CACHE_DIR": str(Path(folder) / f"numba-{name}-{pair}")}
                for kind in ("cold", "warm"):
                    db = Path(folder) / f"{name}-{pair}-{kind}.db"
                    show(f"solve {name} ({kind})", timed([*tb, "solve", variant, position, "--db", str(db)], env))
        if "idle" in only:
            db = str(Path(folder) / "empty.db")
            for label, command in (("--help", [*tb, "--help"]), ("list", [*tb, "list", "--db", db])):
                timed(command, dict(os.environ))
                walls = sorted(timed(command, dict(os.environ)).wall for _ in range(args.runs))
                print(f"tablebase {label:18} median {statistics.median(walls):.3f} s, slowest {walls[-1]:.3f} s ({args.runs} runs)")


if __name__ == "__main__":
    main()
