"""The layered build of an m,n,k board on a Dask cluster against the local process pool, in one run.

Usage::

    python benchmarks/cluster.py [--variant mnk-5-4-4] [--build-dir DIR] [--workers 2]
        [--scheduler local:2] [--chunk N]

Solves the variant out of core twice into ``DIR/pool`` and ``DIR/dask`` (the
layer files only, no SQLite): first with ``--workers`` local processes (the
default executor), then on ``--scheduler`` (``local:N`` starts a
``LocalCluster`` of N worker processes; an address uses a running cluster
whose workers see ``DIR``). Prints each build's wall time, the ratio dask /
pool (target: at most 1.15), whether every ply's classes, positions and
terminal classes and the start value agree, and per ply the children
generated (live classes times empty cells), the children spilled to bucket
files, and the measured core-seconds per child that plans larger boards.
Each build directory is removed after its figures are read.

``--child-cost mnk-5-4-4,mnk-5-5-4`` only times the expansion (children,
canonical forms, sort and deduplication) of the same number of parents of
the same ply on each board, in this process, alternately: the cost per child
of a larger board relative to one that has been built.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tablebase import games  # noqa: E402
from phases import Phases  # noqa: E402
from tablebase.games.common.kernels import UNKNOWN_CODE  # noqa: E402
from tablebase.solve.chunked import CHUNK, LayeredSolution, expand_chunk, solve_chunked  # noqa: E402

TARGET_RATIO = 1.15


def run(label: str, args: argparse.Namespace, **where: object) -> tuple[float, LayeredSolution, dict[str, float]]:
    folder = Path(args.build_dir) / label
    shutil.rmtree(folder, ignore_errors=True)
    phases = Phases(label, only="layer")
    t0 = time.perf_counter()
    layered = solve_chunked(games.get(args.variant), folder, progress=phases, chunk=args.chunk, **where)  # type: ignore[arg-type]
    wall = time.perf_counter() - t0
    phases.close()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 2**20
    print(f"{label}: wall {wall:.1f} s ({', '.join(f'{k} {v:.1f} s' for k, v in phases.seconds.items())});"
          f" start {layered.result()[0]} in {layered.result()[1]}; peak RSS this process {rss[0]:.2f} GiB,"
          f" largest finished child so far {rss[1]:.2f} GiB", flush=True)
    return wall, layered, phases.seconds


def child_cost(names: list[str], ply: int = 8, parents: int = 1 << 18, rounds: int = 3) -> None:
    """Microseconds per child of expanding as many states of layer ``ply - 1`` on each board
    (``parents`` at most) into layer ``ply``."""
    layers = {}
    for name in names:
        game = games.get(name)
        kernels = game.vector
        assert kernels is not None
        layer = expand_chunk(kernels, kernels.canonical(np.array([game.initial_state()], dtype=np.uint64)), True)
        for _ in range(ply - 2):
            layer = expand_chunk(kernels, layer, True)
        layers[name] = (kernels, layer)
    parents = min(parents, *(layer.size for _, layer in layers.values()))
    layers = {name: (kernels, layer[:: max(1, layer.size // parents)][:parents]) for name, (kernels, layer) in layers.items()}
    best: dict[str, float] = {}
    for _ in range(rounds):
        for name, (kernels, chunk) in layers.items():
            children = kernels.children(chunk[kernels.outcome(chunk) == UNKNOWN_CODE])[0].size
            t0 = time.perf_counter()
            expand_chunk(kernels, chunk, True)
            per_child = (time.perf_counter() - t0) / children
            best[name] = min(best.get(name, per_child), per_child)
    base = best[names[0]]
    for name in names:
        print(f"{name}: {1e6 * best[name]:.3f} us per child expanded (layer {ply - 1} to {ply},"
              f" {layers[name][1].size:,} parents), {best[name] / base:.2f} x {names[0]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variant", default="mnk-5-4-4")
    parser.add_argument("--build-dir", default="cluster-bench", help="folder (or fsspec URL) for both builds")
    parser.add_argument("--workers", type=int, default=2, help="local pool processes")
    parser.add_argument("--scheduler", default="local:2", help="dask scheduler address, or local:N")
    parser.add_argument("--chunk", type=int, default=CHUNK, help="parents per task")
    parser.add_argument("--child-cost", default=None, help="comma-separated variants: time the expansion only")
    args = parser.parse_args()
    if args.child_cost:
        child_cost(args.child_cost.split(","))
        return
    game = games.get(args.variant)
    cells = game.parameters()["m"] * game.parameters()["n"]
    pool_wall, pool, pool_phases = run("pool", args, workers=args.workers)
    pool_layers = [(layer.depth, layer.states, layer.positions, layer.classes, layer.terminal) for layer in pool.manifest.layers]
    pool_result, spilled = pool.result(), pool.manifest.spilled
    shutil.rmtree(Path(args.build_dir) / "pool", ignore_errors=True)
    dask_wall, dask, dask_phases = run("dask", args, scheduler=args.scheduler)
    dask_layers = [(layer.depth, layer.states, layer.positions, layer.classes, layer.terminal) for layer in dask.manifest.layers]
    same = pool_layers == dask_layers and pool_result == dask.result()
    shutil.rmtree(Path(args.build_dir) / "dask", ignore_errors=True)

    print(f"{'ply':>3} {'classes':>12} {'positions':>13} {'terminal':>11} {'children':>13} {'spilled':>13}")
    children_total = 0
    for depth, states, positions, _, terminal in pool_layers:
        children = (states - terminal) * (cells - depth)
        children_total += children
        print(f"{depth:>3} {states:>12,} {positions:>13,} {terminal:>11,} {children:>13,} {spilled.get(depth, 0):>13,}")
    classes = sum(layer[1] for layer in pool_layers)
    print(f"total {classes:,} classes, {sum(layer[2] for layer in pool_layers):,} positions,"
          f" {children_total:,} children per pass, {sum(spilled.values()):,} spilled")
    print(f"per-ply counts and start value identical (pool, dask): {same}; start {pool_result[0]} in {pool_result[1]}")
    for label, wall, phases, cores in (("pool", pool_wall, pool_phases, args.workers), ("dask", dask_wall, dask_phases, None)):
        if cores is None:
            cores = int(args.scheduler.split(":")[1]) if args.scheduler.startswith("local:") else args.workers
        # every child is generated twice: expanded forward, recomputed and looked up backward
        per_child = cores * wall / (2 * children_total)
        print(f"{label}: {wall:.1f} s wall on {cores} cores, {1e6 * per_child:.3f} core-us per child"
              f" (enumerate {phases.get('enumerate', 0):.1f} s, merge {phases.get('merge', 0):.1f} s,"
              f" label {phases.get('label', 0):.1f} s)")
    ratio = dask_wall / pool_wall
    print(f"dask / pool wall: {ratio:.3f} (target at most {TARGET_RATIO}: {'met' if ratio <= TARGET_RATIO else 'NOT met'})")


if __name__ == "__main__":
    main()
