"""The slots of positions in the folded tiers of a Morris board, from the board's symmetries alone.

The same numbering as :func:`tablebase.games.morris.tier_kernels.rank` (see
:mod:`tablebase.games.morris.tier_index`): the class of the other side's
stones among the representatives of their size (the least masks of their
classes, in increasing order), times ``C(cells - n, m)``, plus the colex rank
of the least image of the mover's stones, under the symmetries taking the
other side's stones to that representative, among the points it leaves free.
A probe ranks a position and its children here, without the table over
every subset of points the tier engine builds: in numpy for a process's first
:data:`COMPILED_FROM` calls (a command that probes once never loads numba),
then in one compiled loop (:mod:`tablebase.games.morris.tier_rank_kernels`,
about 20 times quicker on a probe's positions).
"""

from __future__ import annotations

from functools import cached_property
from math import comb

import numpy as np

from tablebase.games.morris.board import MorrisBoard

#: Calls of :meth:`TierRanker.rank` made in numpy before the compiled loop takes over.
COMPILED_FROM = 64


def permutation_tables(board: MorrisBoard) -> np.ndarray:
    """``[g, b, v]``: the image under symmetry ``g`` of the points of byte ``b`` given by ``v`` (``np.int64``)."""
    width = (board.cells + 7) // 8
    values = np.arange(256)
    out = np.zeros((len(board.symmetries), width, 256), dtype=np.int64)
    for g, perm in enumerate(board.symmetries):
        for b in range(width):
            for j in range(8):
                if 8 * b + j < board.cells:
                    out[g, b] |= np.where(values >> j & 1, 1 << perm[8 * b + j], 0)
    return out


def subsets(n: int, k: int) -> np.ndarray:
    """Every ``k``-subset of ``n`` points as an ``np.int64`` bitmask (in no particular order)."""
    low = n // 2
    halves = [np.arange(1 << low, dtype=np.int64), np.arange(1 << (n - low), dtype=np.int64)]
    counts = [np.array([int(x).bit_count() for x in range(len(h))]) for h in halves]
    parts = [
        (halves[0][counts[0] == j][:, None] | (halves[1][counts[1] == k - j] << low)[None, :]).ravel()
        for j in range(max(0, k - (n - low)), min(k, low) + 1)
    ]
    return np.concatenate([np.empty(0, dtype=np.int64), *parts])


class TierRanker:
    """Slots of positions of the folded tiers of ``board`` (see the module notes)."""

    def __init__(self, board: MorrisBoard):
        self.cells = board.cells
        self.perm = permutation_tables(board)
        self._reps: dict[int, np.ndarray] = {}
        self.calls = 0

    @cached_property
    def binom(self) -> np.ndarray:
        """``[a, b]``: C(a, b), from 0 to the board's points."""
        n = self.cells
        return np.array([[comb(a, b) for b in range(n + 1)] for a in range(n + 1)], dtype=np.int64)

    def images(self, masks: np.ndarray) -> np.ndarray:
        """``[g, i]``: the image of ``masks[i]`` under symmetry ``g``."""
        masks = np.asarray(masks, dtype=np.int64)
        out = np.zeros((self.perm.shape[0], len(masks)), dtype=np.int64)
        for b in range(self.perm.shape[1]):
            out |= self.perm[:, b, (masks >> (8 * b)) & 255]
        return out

    def representatives(self, k: int) -> np.ndarray:
        """The representatives of the ``k``-subsets of the points, in increasing order."""
        found = self._reps.get(k)
        if found is None:
            found = subsets(self.cells, k)
            for g in range(1, self.perm.shape[0]):
                image = np.zeros(len(found), dtype=np.int64)
                for b in range(self.perm.shape[1]):
                    image |= self.perm[g, b, (found >> (8 * b)) & 255]
                found = found[found <= image]
            found.sort()
            self._reps[k] = found
        return found

    def rank(self, movers: np.ndarray, others: np.ndarray, m: int, n: int) -> np.ndarray:
        """The slot in ``T(m, n)`` of each position ``(movers[i], others[i])`` (bitmasks of points)."""
        movers = np.asarray(movers, dtype=np.int64)
        others = np.asarray(others, dtype=np.int64)
        if not len(movers):
            return np.empty(0, dtype=np.int64)
        self.calls += 1
        if self.calls > COMPILED_FROM:
            from tablebase.games.morris.tier_rank_kernels import rank_each

            compiled: np.ndarray = rank_each(
                movers, others, comb(self.cells - n, m), self.perm, self.representatives(n), self.binom
            )
            return compiled
        return self.ranked(movers, others, m, n)

    def ranked(self, movers: np.ndarray, others: np.ndarray, m: int, n: int) -> np.ndarray:
        """:meth:`rank` in numpy."""
        other_images = self.images(others)
        reps = other_images.min(axis=0)
        mover_images = np.where(other_images == reps, self.images(movers), np.iinfo(np.int64).max)
        least = mover_images.min(axis=0)
        points = np.arange(self.cells)
        stones = (least[:, None] >> points) & 1
        taken = (reps[:, None] >> points) & 1
        below = np.cumsum(taken, axis=1) - taken
        colex = (self.binom[points - below, np.cumsum(stones, axis=1)] * stones).sum(axis=1)
        index = np.searchsorted(self.representatives(n), reps)
        slots: np.ndarray = index * comb(self.cells - n, m) + colex
        return slots
