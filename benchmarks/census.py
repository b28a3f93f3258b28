"""Positions, symmetry classes and terminal classes per ply of an m,n,k board,
counted by combinatorics alone: no move generation, no tablebase code.

Usage::

    python benchmarks/census.py M N K        # e.g. 5 4 4: the 5x4 board, four in a row

A board with ``a`` x marks and ``b`` o marks (x moves first, so ``a - b`` is
0 or 1) arises in play exactly when the player who did not move last has no
line of ``k`` and the last mover's lines, if any, share a cell: placing that
cell last completes them all at once, and every earlier board has no line, so
the game was still on. Every such board is counted by splitting each set of
``a + b`` occupied cells into x and o cells, and looking the two halves up in
tables over all ``2**(m*n)`` cell sets. Classes come from Burnside's lemma:
the average over the board's symmetries of the number of boards each one
fixes. A board is terminal when the last mover has a line or the board is full.

This is the check the tablebase's own counts (``tablebase stats --count``,
the builder's per-ply table) are compared with, in the tests for boards up to
4x4 and in ``benchmarks/mnk544.py`` for the 5x4 board.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from itertools import combinations
from math import comb

import numpy as np

#: Boards split at once (occupied sets times x/o splits).
BLOCK = 1 << 22


@dataclass(frozen=True)
class PlyCensus:
    """Counts of the boards with ``ply`` marks that arise in play."""

    ply: int
    positions: int
    classes: int
    terminal_positions: int
    terminal_classes: int


def lines(m: int, n: int, k: int) -> list[int]:
    """Bitmasks of every ``k`` cells in a row, column or diagonal; cell ``r * m + c``."""
    found = []
    for r in range(n):
        for c in range(m):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + i * dr, c + i * dc) for i in range(k)]
                if all(0 <= rr < n and 0 <= cc < m for rr, cc in cells):
                    found.append(sum(1 << (rr * m + cc) for rr, cc in cells))
    return found


def symmetries(m: int, n: int) -> list[list[int]]:
    """Cell permutations of the rectangle (4) or of the square (8), identity first."""
    maps = [
        lambda r, c: (r, c),
        lambda r, c: (r, m - 1 - c),
        lambda r, c: (n - 1 - r, c),
        lambda r, c: (n - 1 - r, m - 1 - c),
    ]
    if m == n:
        maps += [
            lambda r, c: (c, r),
            lambda r, c: (m - 1 - c, r),
            lambda r, c: (c, n - 1 - r),
            lambda r, c: (m - 1 - c, n - 1 - r),
        ]
    perms = []
    for f in maps:
        perm = [0] * (m * n)
        for r in range(n):
            for c in range(m):
                rr, cc = f(r, c)
                perm[r * m + c] = rr * m + cc
        perms.append(perm)
    return perms


def _tables(cells: int, masks_of_lines: list[int], perms: list[list[int]]) -> tuple[np.ndarray, ...]:
    everything = np.arange(1 << cells, dtype=np.uint32)
    has_line = np.zeros(everything.size, dtype=bool)
    common = np.full(everything.size, (1 << cells) - 1, dtype=np.uint32)
    for line in masks_of_lines:
        hit = (everything & np.uint32(line)) == np.uint32(line)
        has_line |= hit
        common[hit] &= np.uint32(line)
    images = []
    for perm in perms[1:]:
        image = np.zeros(everything.size, dtype=np.uint32)
        for cell, to in enumerate(perm):
            image |= ((everything >> np.uint32(cell)) & np.uint32(1)) << np.uint32(to)
        images.append(image)
    popcount = np.zeros(everything.size, dtype=np.uint8)
    for cell in range(cells):
        popcount += ((everything >> np.uint32(cell)) & np.uint32(1)).astype(np.uint8)
    # a last mover's cells may hold lines only when they share a cell
    mover_ok = ~has_line | (common != 0)
    return has_line, mover_ok, popcount, *images


def census(m: int, n: int, k: int) -> list[PlyCensus]:
    """Per-ply counts of every board of the m,n,k game (m columns, n rows) that arises in play."""
    cells = m * n
    if cells > 25:
        raise ValueError(f"{m}x{n} has {cells} cells; the tables cover at most 25")
    perms = symmetries(m, n)
    has_line, mover_ok, popcount, *images = _tables(cells, lines(m, n, k), perms)
    no_line = ~has_line
    bit = np.uint64(1) << np.arange(cells, dtype=np.uint64)
    result = []
    for ply in range(cells + 1):
        xs = (ply + 1) // 2
        occupied = np.flatnonzero(popcount == ply).astype(np.uint32)
        split = np.zeros((comb(ply, xs), ply), dtype=np.float64)
        for i, chosen in enumerate(combinations(range(ply), xs)):
            split[i, list(chosen)] = 1.0
        positions = terminal = 0
        fixed = np.zeros(len(images), dtype=np.int64)
        fixed_terminal = np.zeros(len(images), dtype=np.int64)
        rows = max(1, BLOCK // max(1, split.shape[0]))
        for lo in range(0, occupied.size, rows):
            sets = occupied[lo : lo + rows]
            on = (sets[:, None].astype(np.uint64) & bit) != 0
            # the cells of each set in increasing order, as powers of two (exact in float64)
            weights = np.where(on, bit.astype(np.float64), np.inf)
            weights.sort(axis=1)
            weights = weights[:, :ply] if ply else np.zeros((sets.size, 0))
            x = (weights @ split.T).astype(np.uint32)
            o = sets[:, None] ^ x
            mover, other = (x, o) if ply % 2 else (o, x)
            arises = mover_ok[mover] & no_line[other]
            ends = arises & (has_line[mover] | (ply == cells))
            positions += int(np.count_nonzero(arises))
            terminal += int(np.count_nonzero(ends))
            for g, image in enumerate(images):
                still = np.flatnonzero(image[sets] == sets)
                if still.size:
                    same = image[x[still]] == x[still]
                    fixed[g] += int(np.count_nonzero(same & arises[still]))
                    fixed_terminal[g] += int(np.count_nonzero(same & ends[still]))
        group = len(perms)
        classes, rest = divmod(positions + int(fixed.sum()), group)
        terminal_classes, rest2 = divmod(terminal + int(fixed_terminal.sum()), group)
        if rest or rest2:
            raise ArithmeticError(f"ply {ply}: orbit counts do not divide by {group}")
        if positions:
            result.append(PlyCensus(ply, positions, classes, terminal, terminal_classes))
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("m", type=int, help="columns")
    parser.add_argument("n", type=int, help="rows")
    parser.add_argument("k", type=int, help="marks in a row that win")
    args = parser.parse_args()
    t0 = time.perf_counter()
    rows = census(args.m, args.n, args.k)
    print(f"{'ply':>3} {'positions':>13} {'classes':>12} {'terminal classes':>17}")
    for row in rows:
        print(f"{row.ply:>3} {row.positions:>13,} {row.classes:>12,} {row.terminal_classes:>17,}")
    print(f"total {sum(r.positions for r in rows):,} positions, {sum(r.classes for r in rows):,} classes"
          f" ({time.perf_counter() - t0:.1f} s)")


if __name__ == "__main__":
    main()
