"""The Ultimate searches' speed on one thread, nodes a second, on the same positions for two builds.

Samples ``--samples`` positions of ``--empty`` empty spots from random play
(``--seed``; the sampling of ``benchmarks/ultimate_solve.py``), then proves
each one in this process with one thread (``prove(..., processes=1)``, the
compiled search, compiled and warmed on the first position before the timed
runs) and prints per search (outcome, distance, draw) its nodes, seconds and
nodes a second over all positions. With ``--vs DIR`` (a checkout of another
build, e.g. ``git worktree add /tmp/before REV``) each round runs that build
too, in its own process with ``PYTHONPATH=DIR`` on the same positions, rounds
alternating, and the ratio of the two builds' rates is printed a round.

    python benchmarks/ultimate_nodes.py --vs /tmp/before --rounds 5
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

SEARCHES = ("outcome", "distance", "draw")


def sample(variant: str, empty: int, samples: int, seed: int) -> list[str]:
    """The positions of ``benchmarks/ultimate_solve.py``'s sampling, as text."""
    from tablebase.games import get
    from ultimate_solve import sample_positions

    game = get(variant)
    return [game.format_position(s) for s in sample_positions(game, empty, samples, seed, variant)]


def measure(variant: str, positions: list[str]) -> dict[str, tuple[int, float]]:
    """Per search, the nodes and seconds over ``positions`` (after one untimed warm-up proof); the
    game taken from its family's module, so that a build older than the installed registry runs."""
    import importlib

    from tablebase.solve.search import prove

    game = importlib.import_module("tablebase.games.ultimate").VARIANTS[variant]()
    states = [game.parse_position(p) for p in positions]
    prove(game, states[0], processes=1)
    totals = {s: [0, 0.0] for s in SEARCHES}
    for state in states:
        stats = prove(game, state, processes=1).stats
        for s in SEARCHES:
            totals[s][0] += int(stats.get(f"{s}_nodes", 0))
            totals[s][1] += float(stats.get(f"{s}_s", 0.0))
    return {s: (int(n), float(t)) for s, (n, t) in totals.items()}


def run_build(root: str | None, variant: str, positions: list[str]) -> dict[str, tuple[int, float]]:
    """:func:`measure` in a fresh process of the build in ``root`` (``None``: this checkout)."""
    env = dict(os.environ)
    if root is not None:
        env["PYTHONPATH"] = root
    out = subprocess.run(
        [sys.executable, __file__, "--measure", variant], input=json.dumps(positions), env=env,
        capture_output=True, text=True, check=True,
    ).stdout
    return {s: (int(n), float(t)) for s, (n, t) in json.loads(out).items()}


def main() -> None:
    if sys.argv[1:2] == ["--measure"]:
        print(json.dumps(measure(sys.argv[2], json.loads(sys.stdin.read()))))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for flag, default in (("--variant", "ultimate"), ("--empty", 38), ("--samples", 10), ("--seed", 1), ("--rounds", 3)):
        parser.add_argument(flag, type=type(default), default=default)
    parser.add_argument("--vs", help="a checkout of the build to compare against")
    args = parser.parse_args()
    positions = sample(args.variant, args.empty, args.samples, args.seed)
    print(f"{args.variant}: {len(positions)} positions of {args.empty} empty spots (seed {args.seed}), one thread")
    builds: list[tuple[str, str | None]] = [("this", None)] + ([("vs", args.vs)] if args.vs else [])
    rates: dict[tuple[str, str], list[float]] = {}
    for r in range(args.rounds):
        order = builds if r % 2 == 0 else builds[::-1]
        got = {}
        for label, root in order:
            started = time.perf_counter()
            got[label] = run_build(root, args.variant, positions)
            line = ", ".join(
                f"{s} {n:,} nodes {t:.2f} s {n / t / 1e6:.2f} M/s" for s, (n, t) in got[label].items() if t > 0
            )
            print(f"round {r + 1} {label:>4}: {line} ({time.perf_counter() - started:.1f} s, load {os.getloadavg()[0]:.1f})")
            for s, (n, t) in got[label].items():
                if t > 0:
                    rates.setdefault((label, s), []).append(n / t)
        if args.vs:
            ratios = [f"{s} {got['this'][s][0] / got['this'][s][1] / (got['vs'][s][0] / got['vs'][s][1]):.3f}"
                      for s in SEARCHES if got["this"][s][1] > 0 and got["vs"][s][1] > 0]
            same = all(got["this"][s][0] == got["vs"][s][0] for s in SEARCHES)
            print(f"round {r + 1} this/vs rate: {', '.join(ratios)} ({'same nodes' if same else 'nodes differ'})")
    for (label, s), values in sorted(rates.items()):
        print(f"{label:>4} {s:>8}: median {statistics.median(values) / 1e6:.2f} M nodes/s"
              f" ({min(values) / 1e6:.2f}-{max(values) / 1e6:.2f})")


if __name__ == "__main__":
    main()
