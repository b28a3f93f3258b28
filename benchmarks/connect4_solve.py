"""Connect Four 7x6: the `tablebase solve connect4` command against Pascal Pons' solver, same positions, same run.

Times the whole command a user types, ``tablebase solve connect4 --file F``
(its own process: start-up, the search on every core, storing each position
with every column's value and distance in a fresh file), on a batch of
positions, then Pons' solver (a binary built from github PascalPons/connect4,
given with ``--pons BINARY``; no opening book, one process) on the same
positions alone and with every column (its ``-a``), and prints the times and
the ratios. Every stored value (each position and each of its columns) is
checked against Pons' scores. Without ``--pons`` (or when the binary is
absent) the Pons part is skipped.

Positions: ``--random`` positions with 18 to 36 discs from random play, and
``--hard`` positions with ``--hard-min`` to 16 discs from near-best play: each
move is drawn among the best-scoring columns (scored by the plain compiled
search of tests/pons_scorer.py within ``--budget`` nodes a column), or, while some column's score is out of
that budget, drawn with weights that favour the centre. None is over or has
an immediate win for the side to move.

Before the timed run the command solves one late position into a scratch
file, so numba's compiled code is in its cache (``cache=True``) and the timed
run loads it rather than compiling. ``--empty`` also times
``tablebase solve connect4`` of the empty board on its own (minutes).
``--scaling POSITION`` only scores one position with one thread, then with
one thread a core (both cores in one search).

    python benchmarks/connect4_solve.py --pons /tmp/pons/c4solver --empty
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import tablebase  # noqa: E402
from pons_scorer import PonsScorer  # noqa: E402
from tablebase.games.connect4 import connect4, to_bitboards  # noqa: E402
from tablebase.games.connect4.prover import Prover, cores  # noqa: E402
from tablebase.games.connect4.score import score_from_outcome  # noqa: E402


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
    chooser = PonsScorer(7, 6)
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


def command() -> list[str]:
    """The ``tablebase`` command of this environment."""
    script = Path(sys.executable).with_name("tablebase")
    return [str(script)] if script.exists() else [sys.executable, "-m", "cli"]


def timed(args: list[str], **kwargs: object) -> tuple[float, subprocess.CompletedProcess[str]]:
    began = time.perf_counter()
    run = subprocess.run(args, capture_output=True, text=True, **kwargs)  # type: ignore[call-overload]
    return time.perf_counter() - began, run


def stored_scores(db: Path, batch: list[str]) -> list[tuple[int, list[int]]]:
    """Pons' score of each stored position and of each of its columns (-1000: no such move),
    read back from the file."""
    out = []
    with tablebase.open(db) as tb:
        table = tb.variant("connect4")
        for seq in batch:
            probe = table.probe(seq, search=False)
            discs = len(seq)
            assert probe.outcome is not None and probe.distance is not None
            columns = [-1000] * 7
            for m in probe.moves:
                assert m.outcome is not None and m.distance is not None
                columns[int(m.move) - 1] = score_from_outcome(m.outcome, m.distance, discs, 7, 6)
            out.append((score_from_outcome(probe.outcome, probe.distance, discs, 7, 6), columns))
    return out


def scaling(position: str) -> None:
    """Wall and CPU time of one score with 1 thread and with one thread a core, each with a fresh table."""
    state = connect4().parse_position(position)
    Prover(7, 6, 1 << 12, threads=1).score(connect4().parse_position("4444"), 1000)  # load the compiled code
    for threads in sorted({1, cores()}):
        prover = Prover(7, 6, 1 << 27, threads=threads)
        wall, cpu = time.perf_counter(), time.process_time()
        score = prover.score(state)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        print(f"{position}: score {score}, {threads} thread(s): {wall:.1f} s wall, {cpu:.1f} s CPU, {prover.nodes:,} nodes"
              f" (load average {os.getloadavg()[0]:.2f})", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pons", type=Path, help="Pons' solver binary (built from PascalPons/connect4); skipped when absent")
    parser.add_argument("--random", type=int, default=80, help="positions with 18..36 discs")
    parser.add_argument("--hard", type=int, default=16, help="positions with --hard-min..16 discs")
    parser.add_argument("--hard-min", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--budget", type=int, default=1_000_000, help="nodes per column score when choosing near-best moves")
    parser.add_argument("--time-limit", type=float, default=600, help="--time-limit of the command, per position")
    parser.add_argument("--empty", action="store_true", help="also time `tablebase solve connect4` of the empty board")
    parser.add_argument("--scaling", metavar="POSITION", help="only score POSITION with 1 thread, then with one a core (fresh tables)")
    args = parser.parse_args()
    if args.scaling:
        scaling(args.scaling)
        return
    rng = random.Random(args.seed)
    began = time.perf_counter()
    batch = positions(rng, args.random, 18, 36) + near_best(rng, args.hard, args.hard_min, 16, args.budget)
    discs = [to_bitboards(connect4().parse_position(s), 7, 6)[1].bit_count() for s in batch]
    print(f"positions chosen in {time.perf_counter() - began:.1f} s: {len(batch)} ({args.random} with 18-36 discs,"
          f" {args.hard} with {args.hard_min}-16; discs {min(discs)}..{max(discs)})", flush=True)
    print(f"cores: {os.cpu_count()}, load average at the start: {os.getloadavg()[0]:.2f}", flush=True)
    tb_command = command()
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        batch_file = work / "batch.txt"
        batch_file.write_text("\n".join(batch) + "\n")
        warm = subprocess.run([*tb_command, "solve", "connect4", batch[0], "--db", str(work / "warm.db")], capture_output=True, text=True)
        if warm.returncode:
            sys.exit(f"warm-up solve failed: {warm.stderr.strip()}")
        db = work / "batch.db"
        ours, run = timed([*tb_command, "solve", "connect4", "--file", str(batch_file), "--time-limit", str(args.time_limit), "--db", str(db)])
        if run.returncode:
            sys.exit(f"tablebase solve failed: {run.stderr.strip()[-400:]}")
        print(f"ours:  {ours:8.2f} s  tablebase solve connect4 --file (whole process, every column stored)", flush=True)
        if args.pons is not None and args.pons.exists():
            pons_alone, alone = timed([str(args.pons)], input="\n".join(batch) + "\n", cwd=tmp)
            pons_all, every = timed([str(args.pons), "-a"], input="\n".join(batch) + "\n", cwd=tmp)
            print(f"pons:  {pons_alone:8.2f} s  the positions (one process, no book)")
            print(f"pons:  {pons_all:8.2f} s  the positions and every column (-a, one process, no book)")
            print(f"ratio ours/pons, positions and every column: {ours / pons_all:.2f}")
            print(f"ratio ours/pons, positions alone:            {ours / pons_alone:.2f}")
            expected_alone = [int(line.split()[1]) for line in alone.stdout.splitlines()]
            expected_every = [[int(v) for v in line.split()[1:]] for line in every.stdout.splitlines()]
            found = stored_scores(db, batch)
            wrong = [
                (seq, f, (a, e)) for seq, f, a, e in zip(batch, found, expected_alone, expected_every) if f != (a, e)
            ]
            print(f"stored values agree with Pons (position and every column): {len(batch) - len(wrong)}/{len(batch)}")
            for seq, f, p in wrong:
                print(f"  MISMATCH {seq}: ours {f}, pons {p}")
            failed = bool(wrong) or len(expected_alone) != len(batch)
        else:
            print("pons: skipped (no --pons binary)")
        if args.empty:
            empty_db = work / "empty.db"
            seconds, run = timed([*tb_command, "solve", "connect4", "--db", str(empty_db)])
            print(f"empty board: {seconds:8.2f} s  tablebase solve connect4: {run.stdout.strip()}", flush=True)
            probe = subprocess.run([*tb_command, "probe", "connect4", "--db", str(empty_db)], capture_output=True, text=True)
            print(probe.stdout)
            failed = failed or run.returncode != 0
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
