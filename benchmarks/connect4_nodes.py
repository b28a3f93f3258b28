"""Connect Four search tree size: the prover's node count on positions with known scores, one thread.

Reads position files given on the command line, one position a line: the
columns played from the empty board, then optionally its known score (Pons'
convention), e.g. ``4453 -2``. Columns count from 1, or from 0 with
``--zero-based``. Each position is scored by a fresh
:class:`tablebase.games.connect4.prover.Prover` with one thread (so the count
is the same on every run) and a table of ``--entries`` entries; the score is
checked against the known one. ``--columns`` scores every child of the
position instead, together in one table (centre first, as ``tablebase
solve`` does), and the position from them.

Prints, per file, the positions, the nodes in all and per position and the
mismatches; ``--peer FILE`` (lines ``moves score nodes`` from another solver,
same numbering) adds that solver's node count on the same positions and the
ratio. ``--each`` prints every position.

    python benchmarks/connect4_nodes.py --zero-based --limit 200 positions/*.txt
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from tablebase.games.connect4.rules import make
from tablebase.games.connect4.prover import Prover


def read_positions(path: Path, zero_based: bool, limit: int | None) -> list[tuple[str, int | None]]:
    """``(moves numbered from 1, known score or None)`` of each line of ``path``."""
    out: list[tuple[str, int | None]] = []
    for line in path.read_text().splitlines():
        parts = line.split()
        if not parts:
            continue
        moves = parts[0] if parts[0] != "-" else ""
        if zero_based:
            moves = "".join(str(int(c) + 1) for c in moves)
        out.append((moves, int(parts[1]) if len(parts) > 1 else None))
        if limit is not None and len(out) >= limit:
            break
    return out


def read_peer(path: Path, zero_based: bool) -> dict[str, int]:
    """Nodes of each position (moves numbered from 1) in a ``moves score nodes`` file."""
    out = {}
    for line in path.read_text().splitlines():
        parts = line.split()
        if len(parts) >= 3:
            moves = parts[0] if parts[0] != "-" else ""
            if zero_based:
                moves = "".join(str(int(c) + 1) for c in moves)
            out[moves] = int(parts[2])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--board", default="7x6", help="W x H (default 7x6)")
    parser.add_argument("--zero-based", action="store_true", help="columns in the files count from 0")
    parser.add_argument("--limit", type=int, help="at most this many positions a file")
    parser.add_argument("--entries", type=int, default=(1 << 24) + 43, help="table entries (default 2^24 + 43)")
    parser.add_argument("--columns", action="store_true", help="score every child of each position (in one table), the position from them")
    parser.add_argument("--peer", type=Path, action="append", default=[], help="another solver's 'moves score nodes' lines")
    parser.add_argument("--each", action="store_true", help="print every position")
    args = parser.parse_args()
    width, height = (int(v) for v in args.board.lower().split("x"))
    game = make(width, height)
    peer: dict[str, int] = {}
    for p in args.peer:
        peer.update(read_peer(p, args.zero_based))
    Prover(width, height, 1 << 12, threads=1).score(game.initial_state(), 1000)  # load the compiled code
    grand = grand_peer = grand_matched = 0
    failed = False
    for path in args.files:
        total = total_peer = ours_matched = matched = wrong = 0
        began = time.perf_counter()
        positions = read_positions(path, args.zero_based, args.limit)
        for moves, known in positions:
            state = game.parse_position(moves) if moves else game.initial_state()
            prover = Prover(width, height, args.entries, threads=1)
            children = [child for _move, child in game.children(state)]
            if args.columns and all(game.outcome(child) is None for child in children):
                found = max(-s for s in prover.scores(children) if s is not None)
            else:
                found = prover.score(state)
            nodes = prover.nodes
            total += nodes
            if known is not None and found != known:
                wrong += 1
                print(f"  MISMATCH {moves}: found {found}, known {known}", flush=True)
            theirs = peer.get(moves)
            if theirs is not None:
                matched += 1
                total_peer += theirs
                ours_matched += nodes
            if args.each:
                ratio = f" peer {theirs:>12,} ratio {nodes / max(theirs, 1):6.2f}" if theirs is not None else ""
                print(f"  {moves or '-':<44} {found:>4} {nodes:>12,}{ratio}", flush=True)
        n = max(len(positions), 1)
        line = f"{path.name:<24} {len(positions):>5} positions {total:>14,} nodes {total / n:>12,.0f} a position"
        if matched:
            line += f"  peer {total_peer:>14,} ({matched} matched) ratio {ours_matched / max(total_peer, 1):.2f}"
        print(f"{line}  wrong {wrong}  {time.perf_counter() - began:.1f} s", flush=True)
        grand += total
        grand_peer += total_peer
        grand_matched += ours_matched
        failed = failed or wrong > 0
    print(f"all: {grand:,} nodes" + (f", peer {grand_peer:,}, ratio {grand_matched / max(grand_peer, 1):.2f}" if grand_peer else ""))
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
