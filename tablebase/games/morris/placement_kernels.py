"""The compiled search of a Morris game's placement phase, its leaves the stored movement-phase tiers.

A node is seen from the side to move: its stones, the other side's, and the
stones each holds in hand. While a hand holds a stone a move places one on
an empty point (removing a stone of the other side's where it closes a
mill); the placement phase has no cycles, so a depth-first search is sound.
Once both hands are empty the position lies in the folded tier ``T(m, n)``
(:mod:`tablebase.games.morris.tier_index`) and its value is read there: the
tiers are in ``tiers``, indexed ``16 m + n``, each either the stored values
(``np.uint16``: outcome code in the low two bits, the distance above) or
their outcome codes alone, four a byte (:func:`pack_codes`), which the search
of outcomes alone reads. A tier not given yet stops the search, which names
it in ``need[0]`` and returns :data:`NEED`; so does a search past its node
budget (:data:`STOPPED`); what it proved stays in the table.

Scores are those of :mod:`tablebase.scores`: ``M - d`` for a win in ``d``
plies, ``d - M`` for a loss, 0 for a draw (with the codes alone a win is
``M`` and a loss ``-M`` at the leaves, the plies above counted as usual).
The table holds bounds ``(lo, hi)`` and the best move of each position's
class under the board's symmetries, a slot a hashed key.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from tablebase.games.common.kernels import LOSS_CODE, WIN_CODE
from tablebase.games.morris.kernels import removable_stones
from tablebase.games.morris.tier_kernels import _image, _in_mill, _low, _popcount, rank

#: The score of a win at distance 0 (:data:`tablebase.scores.M`).
M = 1 << 14
#: What a search returns when it needs a tier it was not given (named in ``need[0]``).
NEED = 1 << 20
#: What a search returns when its node budget ran out.
STOPPED = NEED + 1
#: The most moves of a placement: a point each, times the stones a mill may remove.
_MOST = 24 * 16
#: Moves kept in a table entry: ``point * 32 + removed + 1`` (``removed`` -1 for none), 0xFFFF none.
NO_MOVE = 0xFFFF


@numba.njit(cache=True)
def pack_codes(values: np.ndarray) -> np.ndarray:
    """The outcome codes of ``values`` (two bits each, four a byte, the first in the low bits)."""
    out = np.zeros((len(values) + 3) // 4, dtype=np.uint8)
    for i in range(len(values)):
        out[i >> 2] |= (values[i] & 3) << (2 * (i & 3))
    return out


@numba.njit(cache=True, inline="always")
def _key(own: int, other: int, own_hand: int, other_hand: int, perm: np.ndarray, cells: int) -> int:
    """The least image of the position under the board's symmetries, with the hands above it."""
    best = -1
    for g in range(perm.shape[0]):
        k = _image(own, g, perm) | _image(other, g, perm) << cells
        if best < 0 or k < best:
            best = k
    return best | own_hand << (2 * cells) | other_hand << (2 * cells + 4)


@numba.njit(cache=True, inline="always")
def _leaf(own: int, other: int, cells: int, ix: Any, values: Any, codes: Any, exact: bool, need: np.ndarray) -> int:
    """The score of a movement position from its tier, :data:`NEED` if that tier was not given."""
    m = _popcount(own)
    n = _popcount(other)
    t = 16 * m + n
    if exact:
        full = values[t]
        if len(full) == 0:
            need[0] = t
            return NEED
        v = int(full[rank(own, other, m, n, cells, ix)])
        code = v & 3
        d = v >> 2
    else:
        packed = codes[t]
        if len(packed) == 0:
            need[0] = t
            return NEED
        slot = rank(own, other, m, n, cells, ix)
        code = (int(packed[slot >> 2]) >> (2 * (slot & 3))) & 3
        d = 0
    if code == WIN_CODE:
        return M - d
    if code == LOSS_CODE:
        return d - M
    return 0


@numba.njit(cache=True, inline="always")
def _parent(c: int) -> int:
    """The score of a position whose best move leads to a child of score ``c``."""
    if c > 0:
        return 1 - c
    if c < 0:
        return -1 - c
    return 0


@numba.njit(cache=True, inline="always")
def _child_window(alpha: int, beta: int) -> tuple[int, int]:
    """The window of a child whose score ``c`` gives its parent :func:`_parent` ``(c)`` in
    ``(alpha, beta)``: at most its low end gives at least ``beta``, at least its high end at most ``alpha``."""
    low = -1 - beta if beta > 0 else 1 - beta
    high = -1 - alpha if alpha >= 0 else 1 - alpha
    return low, high


#: The deepest a search goes: a ply a stone in hand, and the leaf.
_DEPTH = 32


@numba.njit(cache=True)
def search(
    own: int, other: int, own_hand: int, other_hand: int, alpha: int, beta: int, cells: int,
    lines: Any, ix: Any, values: Any, codes: Any, exact: bool, table: Any, need: np.ndarray, budget: np.ndarray,
) -> int:
    """The fail-soft score of the position in the window ``(alpha, beta)``; :data:`NEED` or
    :data:`STOPPED` (a depth-first search on a stack of its own: numba's cache does not keep
    recursive functions)."""
    neighbours, mills, mills_of, weight = lines
    keys, lows, highs, best_moves = table
    perm = ix[0]
    full = (1 << cells) - 1
    f_own = np.empty(_DEPTH, dtype=np.int64)
    f_other = np.empty(_DEPTH, dtype=np.int64)
    f_hand = np.empty(_DEPTH, dtype=np.int64)
    f_other_hand = np.empty(_DEPTH, dtype=np.int64)
    f_alpha = np.empty(_DEPTH, dtype=np.int64)
    f_beta = np.empty(_DEPTH, dtype=np.int64)
    f_alpha0 = np.empty(_DEPTH, dtype=np.int64)
    f_lo = np.empty(_DEPTH, dtype=np.int64)
    f_hi = np.empty(_DEPTH, dtype=np.int64)
    f_at = np.empty(_DEPTH, dtype=np.int64)
    f_key = np.empty(_DEPTH, dtype=np.int64)
    f_best = np.empty(_DEPTH, dtype=np.int64)
    f_move = np.empty(_DEPTH, dtype=np.int64)
    f_count = np.empty(_DEPTH, dtype=np.int64)
    f_next = np.empty(_DEPTH, dtype=np.int64)
    f_current = np.empty(_DEPTH, dtype=np.int64)
    moves = np.empty((_DEPTH, _MOST), dtype=np.int64)
    order = np.empty((_DEPTH, _MOST), dtype=np.int64)
    f_own[0], f_other[0], f_hand[0], f_other_hand[0] = own, other, own_hand, other_hand
    f_alpha[0], f_beta[0] = alpha, beta
    depth = 0
    entering = True
    result = 0
    while True:
        returning = False
        if entering:
            entering = False
            own, other = f_own[depth], f_other[depth]
            own_hand, other_hand = f_hand[depth], f_other_hand[depth]
            alpha, beta = f_alpha[depth], f_beta[depth]
            returning = True
            if _popcount(own) + own_hand < 3:
                result = -M
            elif own_hand == 0 and other_hand == 0:
                result = _leaf(own, other, cells, ix, values, codes, exact, need)
                if result == NEED:
                    return NEED
            else:
                budget[0] -= 1
                if budget[0] < 0:
                    return STOPPED
                key = _key(own, other, own_hand, other_hand, perm, cells)
                at = (key * 0x2545F4914F6CDD1D >> 40) & (len(keys) - 1)
                hint = NO_MOVE
                lo, hi = -M - 1, M + 1
                returning = False
                if keys[at] == key:
                    lo, hi = int(lows[at]), int(highs[at])
                    if lo >= beta or lo == hi:
                        result = lo
                        returning = True
                    elif hi <= alpha:
                        result = hi
                        returning = True
                    else:
                        alpha = max(alpha, lo)
                        beta = min(beta, hi)
                        hint = int(best_moves[at])
                if not returning:
                    empty = full & ~(own | other)
                    threats = 0
                    for mill in mills:
                        if not own & mill and _popcount(other & mill) == 2:
                            threats |= mill & empty
                    removable = removable_stones(other, mills)
                    count = 0
                    spots = empty
                    while spots:
                        p = _low(spots)
                        spots &= spots - 1
                        placed = own | 1 << p
                        rank_of = weight[p] + (64 if threats >> p & 1 else 0)
                        if _in_mill(placed, p, mills_of):
                            taken = removable
                            while taken:
                                c = _low(taken)
                                taken &= taken - 1
                                moves[depth, count] = p * 32 + c + 1
                                order[depth, count] = 256 + rank_of
                                count += 1
                        else:
                            moves[depth, count] = p * 32
                            order[depth, count] = rank_of
                            count += 1
                    if hint != NO_MOVE:
                        for i in range(count):
                            if moves[depth, i] == hint:
                                order[depth, i] = 1 << 20
                    f_alpha[depth], f_beta[depth], f_alpha0[depth] = alpha, beta, alpha
                    f_lo[depth], f_hi[depth], f_at[depth], f_key[depth] = lo, hi, at, key
                    f_best[depth], f_move[depth] = -M - 1, NO_MOVE
                    f_count[depth], f_next[depth] = count, 0
        elif f_next[depth] >= f_count[depth]:
            result = f_best[depth]
            lo, hi = f_lo[depth], f_hi[depth]
            if result <= f_alpha0[depth]:
                hi = min(hi, result)
            elif result >= f_beta[depth]:
                lo = max(lo, result)
            else:
                lo = hi = result
            at = f_at[depth]
            keys[at] = f_key[depth]
            lows[at] = lo
            highs[at] = hi
            best_moves[at] = f_move[depth]
            returning = True
        if returning:
            if depth == 0:
                return int(result)
            depth -= 1
            score = _parent(result)
            if score > f_best[depth]:
                f_best[depth] = score
                f_move[depth] = f_current[depth]
                if score > f_alpha[depth]:
                    f_alpha[depth] = score
                    if score >= f_beta[depth]:
                        f_next[depth] = f_count[depth]
            continue
        i = f_next[depth]
        count = f_count[depth]
        top = i
        for j in range(i + 1, count):
            if order[depth, j] > order[depth, top]:
                top = j
        mv = moves[depth, top]
        moves[depth, top] = moves[depth, i]
        order[depth, top] = order[depth, i]
        f_next[depth] = i + 1
        f_current[depth] = mv
        p = mv >> 5
        c = (mv & 31) - 1
        d = depth + 1
        f_own[d] = f_other[depth] if c < 0 else f_other[depth] & ~(1 << c)
        f_other[d] = f_own[depth] | 1 << p
        f_hand[d] = f_other_hand[depth]
        f_other_hand[d] = f_hand[depth] - 1
        f_alpha[d], f_beta[d] = _child_window(f_alpha[depth], f_beta[depth])
        depth = d
        entering = True


def new_table(bits: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """An empty table of ``2 ** bits`` slots: keys, low and high bounds, best moves."""
    size = 1 << bits
    return (
        np.full(size, -1, dtype=np.int64),
        np.zeros(size, dtype=np.int32),
        np.zeros(size, dtype=np.int32),
        np.full(size, NO_MOVE, dtype=np.uint16),
    )
