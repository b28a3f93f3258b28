"""Array kernels of the Morris games: outcomes and children of many states at once, compiled.

They follow :class:`~tablebase.games.morris.rules.MorrisGame` move for move
(the same moves in the same order); the symmetry kernels are those of every
bitboard game (:class:`~tablebase.games.common.kernels.BitboardKernels`).
"""

from __future__ import annotations

from typing import Any, Protocol, Sequence

import numba
import numpy as np

from tablebase.games.common.kernels import LOSS_CODE, UNKNOWN_CODE, BitboardKernels, BoardRules


class BoardLines(Protocol):
    """A board's steps and mills (a :class:`~tablebase.games.morris.board.MorrisBoard`, or a game on one)."""

    @property
    def neighbours(self) -> Sequence[int]: ...

    @property
    def mills(self) -> Sequence[int]: ...

    @property
    def mills_of(self) -> Sequence[Sequence[int]]: ...


class MorrisRules(BoardRules, BoardLines, Protocol):
    """What the kernels read of a :class:`~tablebase.games.morris.rules.MorrisGame`."""

    @property
    def flying(self) -> bool: ...


@numba.njit(cache=True, inline="always")
def _popcount(x: int) -> int:
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@numba.njit(cache=True)
def _unpack(state: np.uint64, n: int) -> tuple[Any, Any, Any, Any, bool]:
    """``(own, other, own hand, other hand, o to move)`` of a state."""
    s = np.int64(state)
    mask = (np.int64(1) << n) - 1
    xs, os = s & mask, (s >> n) & mask
    side = (s >> (2 * n)) & 1
    xh, oh = (s >> (2 * n + 1)) & 15, (s >> (2 * n + 5)) & 15
    if side:
        return os, xs, oh, xh, True
    return xs, os, xh, oh, False


@numba.njit(cache=True, inline="always")
def removable_stones(other: int, mills: np.ndarray) -> int:
    """The stones of ``other`` a mill may remove: those in no mill, or all when every one is in one."""
    free = other
    for m in mills:
        if other & m == m:
            free &= ~m
    return free if free else other


@numba.njit(cache=True)
def _in_mill(bits: Any, point: int, mills_of: np.ndarray) -> bool:
    for m in mills_of[point]:
        if m and bits & m == m:
            return True
    return False


@numba.njit(cache=True)
def _has_step(own: int, other: int, n: int, neighbours: np.ndarray, flying: bool) -> Any:
    empty = ((np.int64(1) << n) - 1) & ~(own | other)
    if flying and _popcount(own) == 3:
        return empty != 0
    for a in range(n):
        if own >> a & 1 and neighbours[a] & empty:
            return True
    return False


@numba.njit(cache=True)
def _outcomes(states: np.ndarray, n: int, neighbours: np.ndarray, flying: bool) -> np.ndarray:
    out = np.full(len(states), UNKNOWN_CODE, dtype=np.int8)
    for i in range(len(states)):
        own, other, hand, _, _ = _unpack(states[i], n)
        if _popcount(own) + hand < 3 or (hand == 0 and not _has_step(own, other, n, neighbours, flying)):
            out[i] = LOSS_CODE
    return out


@numba.njit(cache=True)
def _expand(
    states: np.ndarray, n: int, neighbours: np.ndarray, mills: np.ndarray, mills_of: np.ndarray, flying: bool,
    fill: bool, parent: np.ndarray, move: np.ndarray, child: np.ndarray,
) -> int:
    """Count (``fill`` false) or write the children of ``states``; returns how many."""
    k = 0
    full = (np.int64(1) << n) - 1
    for i in range(len(states)):
        s = np.int64(states[i])
        own, other, hand, _, o_moves = _unpack(states[i], n)
        if _popcount(own) + hand < 3:
            continue
        empty = full & ~(own | other)
        removable = removable_stones(other, mills) if other else 0
        own_shift, other_shift = (n, 0) if o_moves else (0, n)
        flies = flying and hand == 0 and _popcount(own) == 3
        for a in range(-1, n):
            if a < 0:
                if hand == 0:
                    continue
                targets = empty
            else:
                if hand or not own >> a & 1:
                    continue
                targets = empty if flies else neighbours[a] & empty
            for b in range(n):
                if not targets >> b & 1:
                    continue
                after = (own & ~(np.int64(1) << a) if a >= 0 else own) | np.int64(1) << b
                base = b + n * (a + 1)
                t = s
                if a >= 0:
                    t &= ~(np.int64(1) << (a + own_shift))
                else:
                    t -= np.int64(1) << (2 * n + 1 + (4 if o_moves else 0))
                t |= np.int64(1) << (b + own_shift)
                t ^= np.int64(1) << (2 * n)
                if removable and _in_mill(after, b, mills_of):
                    for c in range(n):
                        if removable >> c & 1:
                            if fill:
                                parent[k] = i
                                move[k] = base + n * (n + 1) * (c + 1)
                                child[k] = np.uint64(t & ~(np.int64(1) << (c + other_shift)))
                            k += 1
                else:
                    if fill:
                        parent[k] = i
                        move[k] = base
                        child[k] = np.uint64(t)
                    k += 1
    return k


def line_arrays(rules: BoardLines) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(neighbours, mills, mills_of)`` of a board as the kernels read them: each point's steps and
    each mill as bitmasks, and the mills through each point in a row of a table (zeros after them)."""
    neighbours = np.array(rules.neighbours, dtype=np.int64)
    mills = np.array(rules.mills, dtype=np.int64)
    widest = max(len(m) for m in rules.mills_of)
    mills_of = np.zeros((len(rules.mills_of), widest), dtype=np.int64)
    for point, through in enumerate(rules.mills_of):
        mills_of[point, : len(through)] = through
    return neighbours, mills, mills_of


class MorrisKernels(BitboardKernels):
    """The compiled rules of one Morris variant over ``np.uint64`` states."""

    def __init__(self, game: MorrisRules):
        super().__init__(game, state_bits=2 * game.cells + 9)
        self.n = game.cells
        self.flying = game.flying
        self.neighbours, self.mills, self.mills_of = line_arrays(game)

    def outcome(self, states: np.ndarray) -> np.ndarray:
        result: np.ndarray = _outcomes(np.ascontiguousarray(states, dtype=np.uint64), self.n, self.neighbours, self.flying)
        return result

    def children(self, states: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        states = np.ascontiguousarray(states, dtype=np.uint64)
        empty64, empty_u = np.empty(0, dtype=np.int64), np.empty(0, dtype=np.uint64)
        args = (states, self.n, self.neighbours, self.mills, self.mills_of, self.flying)
        count = _expand(*args, False, empty64, empty64, empty_u)
        parent = np.empty(count, dtype=np.int64)
        move = np.empty(count, dtype=np.int64)
        child = np.empty(count, dtype=np.uint64)
        _expand(*args, True, parent, move, child)
        return parent, move, child
