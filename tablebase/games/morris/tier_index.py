"""The dense index of the colour-folded movement-phase tiers of a Morris board: one slot a symmetry class.

A movement position (both hands empty) is seen from the side to move: the
mover's stones and the other side's. The position with o to move is the
colour swap of one with x to move, so a class is stored once, in the folded
tier ``T(m, n)`` of ``m`` stones of the mover's and ``n`` of the other's.

:class:`TierIndex` numbers the classes of every folded tier of a board
(:mod:`tablebase.games.morris.tier_kernels`: ``rank``, ``unrank``): a table
over every subset of the points gives the class of the other side's stones
among the representatives of their size and a symmetry taking them there;
the slot is that class's number times ``C(cells - n, m)`` plus the rank of
the mover's stones, so mapped, among the free points. Slots a class does
not use (when the representative has symmetries of its own) are marked.

:func:`burnside` counts a tier's classes from the symmetries' cycles alone,
which the index's used slots must match.
"""

from __future__ import annotations

from functools import cached_property
from math import comb
from typing import Any

import numpy as np

from tablebase.games.morris import tier_kernels as tk
from tablebase.games.morris.board import MorrisBoard
from tablebase.games.morris.tier_rank import permutation_tables


def _cycles(perm: tuple[int, ...]) -> list[int]:
    seen = [False] * len(perm)
    lengths = []
    for start in range(len(perm)):
        length, p = 0, start
        while not seen[p]:
            seen[p] = True
            p = perm[p]
            length += 1
        if length:
            lengths.append(length)
    return lengths


def burnside(board: MorrisBoard, m: int, n: int) -> int:
    """The classes of ``T(m, n)`` on ``board``: the mean over the symmetries of the ``(mover, other)``
    pairs each keeps (each set a union of the permutation's cycles)."""
    total = 0
    for perm in board.symmetries:
        # ways[(i, j)]: choices of cycles so far giving the mover i points and the other j
        ways = {(0, 0): 1}
        for length in _cycles(perm):
            grown: dict[tuple[int, int], int] = {}
            for (i, j), w in ways.items():
                for di, dj in ((0, 0), (length, 0), (0, length)):
                    if i + di <= m and j + dj <= n:
                        grown[(i + di, j + dj)] = grown.get((i + di, j + dj), 0) + w
            ways = grown
        total += ways.get((m, n), 0)
    count, rest = divmod(total, len(board.symmetries))
    assert rest == 0
    return count


def fold(states: np.ndarray, cells: int) -> tuple[np.ndarray, np.ndarray]:
    """``(movers, others)``: the stones of the side to move and of the other side (``np.int64``
    bitmasks) of movement-phase states of a Morris game of ``cells`` points (state bits as
    :mod:`tablebase.games.morris.rules` encodes them)."""
    states = np.asarray(states, dtype=np.uint64)
    mask = np.uint64((1 << cells) - 1)
    xs = (states & mask).astype(np.int64)
    os = ((states >> np.uint64(cells)) & mask).astype(np.int64)
    o_moves = ((states >> np.uint64(2 * cells)) & np.uint64(1)).astype(bool)
    return np.where(o_moves, os, xs), np.where(o_moves, xs, os)


class TierIndex:
    """The slots of the folded tiers of ``board`` (built once: a table over every subset of its points)."""

    def __init__(self, board: MorrisBoard):
        self.board = board
        self.cells = board.cells
        self.perm = permutation_tables(board)
        self.binom = np.array([[comb(a, b) for b in range(self.cells + 1)] for a in range(self.cells + 1)], dtype=np.int64)
        self.rep_of, self.sym_of, self.sub_start, self.reps, self.rep_start = tk.build_classes(
            self.cells, self.perm, self.binom
        )
        self.stabs = tk.stabilisers(self.reps, self.perm)

    @cached_property
    def arrays(self) -> tuple[Any, ...]:
        """What the compiled kernels read of the index, in their order."""
        return (self.perm, self.rep_of, self.sym_of, self.reps, self.rep_start, self.stabs, self.binom, self.sub_start)

    def representatives(self, n: int) -> int:
        """How many classes the ``n``-subsets of the points fall into."""
        return int(self.rep_start[n + 1] - self.rep_start[n])

    def size(self, m: int, n: int) -> int:
        """The slots of ``T(m, n)`` (used or not)."""
        return self.representatives(n) * comb(self.cells - n, m)

    def used(self, m: int, n: int) -> np.ndarray:
        """Whether each slot of ``T(m, n)`` holds a class."""
        result: np.ndarray = tk.used_slots(m, n, self.cells, self.arrays)
        return result

    def classes(self, m: int, n: int) -> int:
        """How many classes ``T(m, n)`` holds (its used slots)."""
        return int(tk.count_used(m, n, self.cells, self.arrays))

    def rank(self, movers: np.ndarray, others: np.ndarray, m: int, n: int) -> np.ndarray:
        """The slot of each position ``(movers[i], others[i])`` of ``T(m, n)`` (bitmasks of points)."""
        movers = np.ascontiguousarray(movers, dtype=np.int64)
        others = np.ascontiguousarray(others, dtype=np.int64)
        result: np.ndarray = tk.rank_many(movers, others, m, n, self.cells, self.arrays)
        return result

    def unrank(self, slots: np.ndarray, m: int, n: int) -> tuple[np.ndarray, np.ndarray]:
        """``(movers, others)``: the representative position of each slot of ``T(m, n)``."""
        slots = np.ascontiguousarray(slots, dtype=np.int64)
        movers, others = tk.unrank_many(slots, m, n, self.cells, self.arrays)
        return movers, others
