"""Positions, symmetry classes and terminal classes per ply of an m,n,k board,
counted by combinatorics alone: no move generation, no tablebase code.

Usage::

    python benchmarks/census.py M N K        # e.g. 5 4 4: the 5x4 board, four in a row

A board with ``a`` x marks and ``b`` o marks (x moves first, so ``a - b`` is
0 or 1) arises in play exactly when the player who did not move last has no
line of ``k`` and the last mover's lines, if any, share a cell: placing that
cell last completes them all at once, and every earlier board has no line, so
the game was still on. Over tables of all ``2**(m*n)`` cell sets, the boards
of a ply are counted without listing them: for each set of the last mover's
cells that qualifies, the number of subsets of the remaining cells that the
other player may hold comes from a subset-sum (zeta) transform of the sets
without a line of that size. Classes come from Burnside's lemma: the average
over the board's symmetries of the number of boards each one fixes; a board
fixed by a symmetry is a choice of empty, x or o per orbit of cells, few
enough to list. A board is terminal when the last mover has a line or the
board is full. The 5x5 board takes about two minutes and 1 GB.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

import numpy as np

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


def _tables(cells: int, masks_of_lines: list[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Over all ``2**cells`` cell sets: has a line; may be the last mover's cells; number of cells."""
    everything = np.arange(1 << cells, dtype=np.uint32)
    has_line = np.zeros(everything.size, dtype=bool)
    common = np.full(everything.size, (1 << cells) - 1, dtype=np.uint32)
    for line in masks_of_lines:
        hit = (everything & np.uint32(line)) == np.uint32(line)
        has_line |= hit
        common[hit] &= np.uint32(line)
    del everything
    # a last mover's cells may hold lines only when they share a cell
    mover_ok = ~has_line | (common != 0)
    del common
    popcount = np.zeros(1 << cells, dtype=np.uint8)
    for cell in range(cells):
        popcount.reshape(-1, 2, 1 << cell)[:, 1, :] += 1
    return has_line, mover_ok, popcount


def _subsets_without_line(no_line: np.ndarray, popcount: np.ndarray, size: int, cells: int) -> np.ndarray:
    """For every cell set S, the number of subsets of S with ``size`` cells and no line (a subset-sum transform)."""
    table = (no_line & (popcount == size)).astype(np.int32)
    for cell in range(cells):
        view = table.reshape(-1, 2, 1 << cell)
        view[:, 1, :] += view[:, 0, :]
    return table


def _invariant_boards(perm: list[int], cells: int) -> tuple[np.ndarray, np.ndarray]:
    """The x and o cell sets of every board that the cell permutation ``perm`` maps onto itself."""
    seen: set[int] = set()
    orbits = []
    for start in range(cells):
        if start in seen:
            continue
        orbit, cell = 0, start
        while cell not in seen:
            seen.add(cell)
            orbit |= 1 << cell
            cell = perm[cell]
        orbits.append(orbit)
    x = np.zeros(1, dtype=np.uint32)
    o = np.zeros(1, dtype=np.uint32)
    for orbit in orbits:
        mask = np.uint32(orbit)
        x, o = np.concatenate([x, x | mask, x]), np.concatenate([o, o, o | mask])
    return x, o


def census(m: int, n: int, k: int) -> list[PlyCensus]:
    """Per-ply counts of every board of the m,n,k game (m columns, n rows) that arises in play."""
    cells = m * n
    if cells > 25:
        raise ValueError(f"{m}x{n} has {cells} cells; the tables cover at most 25")
    perms = symmetries(m, n)
    has_line, mover_ok, popcount = _tables(cells, lines(m, n, k))
    no_line = ~has_line
    full = np.uint32((1 << cells) - 1)
    plies = range(cells + 1)
    positions = dict.fromkeys(plies, 0)
    terminal = dict.fromkeys(plies, 0)
    # positions: the last mover's cells M (no line, or lines sharing a cell) times the
    # subsets of the other cells that the other player may hold (no line)
    for other in range(cells // 2 + 1):
        count = _subsets_without_line(no_line, popcount, other, cells)
        for ply in (2 * other, 2 * other + 1):
            if ply > cells:
                continue
            mover = np.flatnonzero((popcount == ply - other) & mover_ok).astype(np.uint32)
            rest = count[mover ^ full].astype(np.int64)
            positions[ply] = int(rest.sum())
            terminal[ply] = int(rest.sum()) if ply == cells else int(rest[has_line[mover]].sum())
        del count
    # classes by Burnside's lemma: each symmetry's fixed boards, counted one by one
    fixed = dict.fromkeys(plies, 0)
    fixed_terminal = dict.fromkeys(plies, 0)
    for perm in perms[1:]:
        x, o = _invariant_boards(perm, cells)
        nx, no = popcount[x].astype(np.int64), popcount[o].astype(np.int64)
        ply = nx + no
        odd = (ply % 2) == 1
        legal = (nx - no) == odd
        mover, other = np.where(odd, x, o), np.where(odd, o, x)
        arises = legal & mover_ok[mover] & no_line[other]
        ends = arises & (has_line[mover] | (ply == cells))
        for p, c in enumerate(np.bincount(ply[arises], minlength=cells + 1)):
            fixed[p] += int(c)
        for p, c in enumerate(np.bincount(ply[ends], minlength=cells + 1)):
            fixed_terminal[p] += int(c)
    group = len(perms)
    result = []
    for ply in plies:
        classes, rest = divmod(positions[ply] + fixed[ply], group)
        terminal_classes, rest2 = divmod(terminal[ply] + fixed_terminal[ply], group)
        if rest or rest2:
            raise ArithmeticError(f"ply {ply}: orbit counts do not divide by {group}")
        if positions[ply]:
            result.append(PlyCensus(ply, positions[ply], classes, terminal[ply], terminal_classes))
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("m", type=int, help="columns")
    parser.add_argument("n", type=int, help="rows")
    parser.add_argument("k", type=int, help="marks in a row that win")
    args = parser.parse_args()
    t0 = time.perf_counter()
    rows = census(args.m, args.n, args.k)
    print(f"{'ply':>3} {'positions':>14} {'classes':>13} {'terminal classes':>17}")
    for row in rows:
        print(f"{row.ply:>3} {row.positions:>14,} {row.classes:>13,} {row.terminal_classes:>17,}")
    print(f"total {sum(r.positions for r in rows):,} positions, {sum(r.classes for r in rows):,} classes"
          f" ({time.perf_counter() - t0:.1f} s)")


if __name__ == "__main__":
    main()
