"""Time the compiled passes of a dense index (solve, check, collect) in-process, against a baseline checkout.

Usage::

    python benchmarks/dense_passes.py [--variants mnk-4-4-4 connect4-5-4] [--rounds 3]
        [--baseline-code DIR]

For each variant, a child process loads the code (this checkout, and with
``--baseline-code`` the one in DIR, taking turns round by round), runs every
pass once to load or compile its kernels, then ``--rounds`` times: ``solve``
(every ply, last first), ``check`` (every stored label against its
children's) and ``positions`` (every stored position back as a state). The
medians of the rounds are printed, with the ratio this checkout / baseline.
The figures are CPU-bound and parallel: on a shared machine run both sides in
the same run, as this does, and read the ratio rather than the seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: Run in the child, with the checkout to time first on ``sys.path``.
CHILD = r"""
import json, sys, time
from tablebase.games import get

index = get(sys.argv[1]).dense_index()
rounds = int(sys.argv[2])


def once():
    began = time.process_time()
    stored = {ply: values for ply, values, _counts in index.solve()}
    solved = time.process_time()
    bad = sum(len(slots) for _ply, _checked, slots in index.check(stored.__getitem__))
    checked = time.process_time()
    found = sum(len(states) for _ply, states, _values in index.positions(stored.__getitem__))
    collected = time.process_time()
    assert bad == 0
    return {"solve": solved - began, "check": checked - solved, "positions": collected - checked, "found": found}


once()
print(json.dumps([once() for _ in range(rounds)]))
"""


def run(code: Path, variant: str, rounds: int) -> list[dict[str, float]]:
    """The rounds of one child process on ``code``."""
    env = dict(os.environ, PYTHONPATH=str(code))
    result = subprocess.run(
        [sys.executable, "-c", CHILD, variant, str(rounds)], cwd=code, env=env, capture_output=True, text=True, check=True
    )
    rows: list[dict[str, float]] = json.loads(result.stdout.strip().splitlines()[-1])
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", nargs="+", default=["mnk-4-4-4", "connect4-5-4"])
    parser.add_argument("--rounds", type=int, default=3, help="timed runs of every pass per child process")
    parser.add_argument("--turns", type=int, default=2, help="child processes per side, taking turns")
    parser.add_argument("--baseline-code", type=Path, help="a checkout to compare with")
    args = parser.parse_args(argv)
    sides = {"this": ROOT} | ({"baseline": args.baseline_code.resolve()} if args.baseline_code else {})
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    for variant in args.variants:
        rows: dict[str, list[dict[str, float]]] = {side: [] for side in sides}
        for turn in range(args.turns):
            for side in sides if turn % 2 == 0 else reversed(list(sides)):
                rows[side] += run(sides[side], variant, args.rounds)
        medians = {side: {p: statistics.median(r[p] for r in found) for p in ("solve", "check", "positions")} for side, found in rows.items()}
        for side, times in medians.items():
            counts = {int(r["found"]) for r in rows[side]}
            line = "  ".join(f"{p} {t:7.3f} s CPU" for p, t in times.items())
            print(f"{variant:14} {side:8}  {line}  ({counts.pop():,} positions, {len(rows[side])} rounds)")
        if "baseline" in medians:
            ratio = "  ".join(f"{p} {medians['this'][p] / medians['baseline'][p]:.2f}" for p in ("solve", "check", "positions"))
            print(f"{variant:14} this / baseline: {ratio}")
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
