"""Where a first use spends its compile: numba's compile of each kernel a search command calls, cold.

Runs ``tablebase solve VARIANT POSITION`` (the positions of
``benchmarks/first_use.py``) inside a fresh process with a fresh folder of
numba's cache (``NUMBA_CACHE_DIR``), listening to numba's compile events, and
prints each kernel compiled with its signatures, its own compile time (without
the kernels it compiled on the way) and its inclusive time, slowest first,
then the whole command's wall and CPU time. What a second process compiles
at the same time (the Ultimate search's ``steps.BESIDE``) this one loads from
the cache: those kernels are not listed, nor their CPU time counted.

    python benchmarks/compile_times.py
    python benchmarks/compile_times.py --only ultimate --top 10
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from first_use import SEARCHES  # noqa: E402

#: What the child process runs: the command in-process, with a listener on the compile events.
_CHILD = r"""
import json, os, sys, threading, time
from numba.core import event

started, cpu0 = time.perf_counter(), time.process_time()
stack = threading.local()
rows = {}

class Listener(event.Listener):
    def on_start(self, ev):
        if not hasattr(stack, "frames"):
            stack.frames = []
        stack.frames.append([time.perf_counter(), 0.0])

    def on_end(self, ev):
        began, inner = stack.frames.pop()
        took = time.perf_counter() - began
        if stack.frames:
            stack.frames[-1][1] += took
        dispatcher = ev.data["dispatcher"]
        name = f"{dispatcher.py_func.__module__}.{dispatcher.py_func.__qualname__}"
        row = rows.setdefault(name, [0.0, 0.0, 0])
        row[0] += took - inner
        row[1] += took
        row[2] += 1

event.register("numba:compile", Listener())
from cli.fast import main
sys.argv = ["tablebase", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
print("\n" + json.dumps({"rows": rows, "wall": time.perf_counter() - started, "cpu": time.process_time() - cpu0}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=list(SEARCHES), action="append", help="profile only these (default: all)")
    parser.add_argument("--top", type=int, default=20, help="kernels shown of each command (default 20)")
    args = parser.parse_args()
    for name in args.only or list(SEARCHES):
        variant, position = SEARCHES[name]
        with tempfile.TemporaryDirectory() as folder:
            env = {**os.environ, "NUMBA_CACHE_DIR": str(Path(folder) / "numba")}
            command = [sys.executable, "-c", _CHILD, "solve", variant, position, "--db", str(Path(folder) / "t.db")]
            done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
        if not done.stdout.strip():
            sys.exit(f"{name}: the command failed:\n{done.stderr}")
        report = json.loads(done.stdout.strip().splitlines()[-1])
        rows = sorted(report["rows"].items(), key=lambda item: -item[1][0])
        own_total = sum(row[0] for _, row in rows)
        print(f"{name}: wall {report['wall']:.2f} s, CPU {report['cpu']:.2f} s, compiling {own_total:.2f} s")
        print(f"  {'kernel':56} {'own s':>7} {'incl. s':>8} {'sigs':>5}")
        for kernel, (own, inclusive, count) in rows[: args.top]:
            print(f"  {kernel:56} {own:7.2f} {inclusive:8.2f} {count:5}")


if __name__ == "__main__":
    main()
