"""Connect Four 7x6: our compiled exact search against Pascal Pons' solver, same positions, same run.

Builds Pons' solver (github PascalPons/connect4) with g++ into a temporary
directory from ``--pons PATH`` (a checkout of its source, or its git
directory), feeds it the batch on standard input (no opening book), solves the
same batch with :class:`tablebase.games.connect4.search.Solver` in this process,
prints both times and their ratio and checks every score against Pons'.

Positions: ``--random`` positions with 18 to 36 discs from random play, and
``--hard`` positions with ``--hard-min`` to 16 discs from near-best play: each
move is drawn among the best-scoring columns (our solver, a table of its own,
not the timed one; each column's score searched within ``--budget`` nodes),
or, while some column's score is out of that budget, drawn with weights that
favour the centre. None is over or has an immediate win for the side to move.
Numba's compile time is reported apart
(``cache=True``: a second run loads the compiled code) and not counted in our
time; our table (1 << 24 slots) is kept across the whole batch; Pons' solver runs
once per set (random, hard), each process keeping its table across its set.
Times are printed per set and for the whole batch.

    python benchmarks/connect4_solve.py --pons ../connect4
"""

from __future__ import annotations

import argparse
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tablebase.games.connect4 import connect4, to_bitboards
from tablebase.games.connect4.search import Solver


def build_pons(source: Path, workdir: Path) -> Path:
    """Pons' solver compiled with g++ -O3 in ``workdir``."""
    src = workdir / "src"
    src.mkdir()
    if (source / "Solver.cpp").exists():
        for f in source.iterdir():
            if f.suffix in (".cpp", ".hpp"):
                shutil.copy(f, src)
    else:  # a git directory
        archive = subprocess.run(["git", "--git-dir", str(source), "archive", "HEAD"], check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
    binary = workdir / "c4solver"
    subprocess.run(
        ["g++", "-std=c++11", "-O3", "-march=native", "-DNDEBUG", "-o", str(binary), str(src / "main.cpp"), str(src / "Solver.cpp")],
        check=True,
    )
    return binary


def positions(rng: random.Random, count: int, low: int, high: int) -> list[str]:
    """Move sequences (columns 1..7) of ``count`` positions with ``low``..``high`` discs."""
    game = connect4()
    out: list[str] = []
    while len(out) < count:
        discs = rng.randint(low, high)
        state, seq = game.initial_state(), ""
        for _ in range(discs):
            moves = game.legal_moves(state)
            if not moves:
                break
            move = rng.choice(moves)
            state, seq = game.apply(state, move), seq + str(move + 1)
        if len(seq) != discs or game.outcome(state) is not None or wins_now(state):
            continue
        out.append(seq)
    return out


def near_best(rng: random.Random, count: int, low: int, high: int, budget: int) -> list[str]:
    """Move sequences of ``count`` positions with ``low``..``high`` discs along near-best lines."""
    game = connect4()
    chooser = Solver(7, 6)
    out: list[str] = []
    while len(out) < count:
        discs = rng.randint(low, high)
        state, seq = game.initial_state(), ""
        while len(seq) < discs and game.outcome(state) is None:
            scores = {}
            for move, child in game.children(state):
                if game.outcome(child) is not None:
                    scores[move] = 1 << 8 if game.outcome(child) != "draw" else 0
                else:
                    found = chooser.score(child, budget)
                    if found is None:
                        break
                    scores[move] = -found
            moves = game.legal_moves(state)
            if len(scores) == len(moves):
                best = max(scores.values())
                move = rng.choice([m for m in moves if scores[m] == best])
            else:
                move = rng.choices(moves, [[1, 2, 4, 6, 4, 2, 1][m] for m in moves])[0]
            state, seq = game.apply(state, move), seq + str(move + 1)
        if len(seq) == discs and game.outcome(state) is None and not wins_now(state):
            out.append(seq)
    return out


def wins_now(state: int) -> bool:
    game = connect4()
    return any(game.outcome(child) is not None and game.outcome(child) != "draw" for _, child in game.children(state))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pons", type=Path, required=True, help="Pons' connect4 source (checkout or git directory)")
    parser.add_argument("--random", type=int, default=60, help="positions with 18..36 discs")
    parser.add_argument("--hard", type=int, default=8, help="positions with --hard-min..16 discs")
    parser.add_argument("--hard-min", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--budget", type=int, default=1_000_000, help="nodes per column score when choosing near-best moves")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    began = time.perf_counter()
    batch = positions(rng, args.random, 18, 36) + near_best(rng, args.hard, args.hard_min, 16, args.budget)
    print(f"positions chosen in {time.perf_counter() - began:.1f} s: {' '.join(batch[args.random:])}", flush=True)
    game = connect4()
    sets = {"random": batch[: args.random], "hard": batch[args.random :]}
    pons_times: dict[str, float] = {}
    pons_scores: list[int] = []
    with tempfile.TemporaryDirectory() as tmp:
        binary = build_pons(args.pons, Path(tmp))
        for name, part in sets.items():  # one process per set
            began = time.perf_counter()
            run = subprocess.run([str(binary)], input="\n".join(part) + "\n", capture_output=True, text=True, check=True, cwd=tmp)
            pons_times[name] = time.perf_counter() - began
            pons_scores += [int(line.split()[1]) for line in run.stdout.splitlines()]
            print(f"pons {name} done: {pons_times[name]:.2f} s", flush=True)
    pons_seconds = sum(pons_times.values())
    began = time.perf_counter()
    solver = Solver(7, 6)
    solver.score(game.parse_position(batch[0]))  # compile or load the cached code
    compile_seconds = time.perf_counter() - began
    solver = Solver(7, 6)  # one table for the whole batch
    ours: list[int] = []
    our_times: dict[str, float] = {}
    for name, part in sets.items():
        began = time.perf_counter()
        for seq in part:
            score = solver.score(game.parse_position(seq))
            assert score is not None
            ours.append(score)
        our_times[name] = time.perf_counter() - began
    our_seconds = sum(our_times.values())
    wrong = [(seq, o, p) for seq, o, p in zip(batch, ours, pons_scores) if o != p]
    discs = [to_bitboards(game.parse_position(s), 7, 6)[1].bit_count() for s in batch]
    print(f"positions: {len(batch)} ({args.random} with 18-36 discs, {args.hard} with {args.hard_min}-16; discs {min(discs)}..{max(discs)})")
    print(f"pons:  {pons_seconds:8.2f} s (whole process, g++ -O3 -march=native, no book)")
    print(f"ours:  {our_seconds:8.2f} s (one process, {solver.nodes} nodes; numba load/compile {compile_seconds:.2f} s not counted)")
    for name in sets:
        print(f"  {name:6} pons {pons_times[name]:8.2f} s, ours {our_times[name]:8.2f} s, ratio {our_times[name] / pons_times[name]:.2f}")
    print(f"ratio ours/pons: {our_seconds / pons_seconds:.2f}")
    print(f"scores agree: {len(batch) - len(wrong)}/{len(batch)}")
    for seq, o, p in wrong:
        print(f"  MISMATCH {seq}: ours {o}, pons {p}")
    sys.exit(1 if wrong else 0)


if __name__ == "__main__":
    main()
