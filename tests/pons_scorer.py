"""A plain exact Connect Four search compiled with numba, Pascal Pons' score of a position: the
reference the tests hold the prover (:mod:`tablebase.games.connect4.prover`) and the dense
build to.

Bitboards on the bits of the states of :mod:`tablebase.games.connect4.bits` (``H + 1``
bits per column): ``current`` holds the discs of the side to move, ``mask``
every disc. The search is a negamax over scores (the score encodes value and
distance, :mod:`tablebase.games.connect4.score`) with null windows narrowed
from both sides, a transposition table of bounds (full keys, so no false
hits; a new entry replaces the old one in its slot), moves that hand the
opponent an immediate win pruned, and the remaining moves ordered by the
number of winning spots they create, the centre first among equals.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from tablebase.games.connect4.compiled_bits import popcount, winning_spots
from tablebase.games.connect4.score import ScoreSearch

#: Default number of table slots (9 bytes each: about 150 MB).
DEFAULT_SLOTS = 1 << 24
#: The most slots a table may have: 9 bytes each, at most 1 GiB in all (an odd count).
MAX_SLOTS = ((1 << 30) // 9 - 1) | 1


@njit(cache=True, inline="always")
def _winning_spots(position: Any, mask: Any, h: int, board: Any) -> Any:
    """Empty cells (on the board, not necessarily playable) that would complete a four of ``position``."""
    return winning_spots(position, h) & (board ^ mask)


@njit(cache=True)
def _negamax(
    current: Any,
    mask: Any,
    moves: int,
    alpha: int,
    beta: int,
    w: int,
    h: int,
    bottom: Any,
    board: Any,
    order: np.ndarray,
    keys: np.ndarray,
    vals: np.ndarray,
    stats: np.ndarray,
) -> int:
    """Score of a position whose side to move cannot win at once, fail-soft in ``(alpha, beta)``.
    ``stats``: nodes, node budget, aborted flag (results of an aborted call mean nothing)."""
    stats[0] += 1
    if stats[0] > stats[1]:
        stats[2] = 1
        return 0
    cells = w * h
    possible = (mask + bottom) & board
    opponent_wins = _winning_spots(current ^ mask, mask, h, board)
    forced = possible & opponent_wins
    if forced:
        if forced & (forced - np.uint64(1)):
            return -((cells - moves) // 2)
        possible = forced
    nonlosing = possible & ~(opponent_wins >> np.uint64(1))
    if nonlosing == 0:
        return -((cells - moves) // 2)
    if moves >= cells - 2:
        return 0
    lo = -((cells - 2 - moves) // 2)
    if alpha < lo:
        alpha = lo
        if alpha >= beta:
            return alpha
    hi = (cells - 1 - moves) // 2
    key = current + mask + np.uint64(1)  # never 0, the mark of an empty slot
    slot = np.int64(key % np.uint64(keys.shape[0]))
    max_score = (cells + 1) // 2
    min_score = -(cells // 2)
    if keys[slot] == key:
        v: int = vals[slot]
        if v > max_score - min_score + 1:
            bound = v + 2 * min_score - max_score - 2
            if alpha < bound:
                alpha = bound
                if alpha >= beta:
                    return alpha
        else:
            hi = v + min_score - 1
    if beta > hi:
        beta = hi
        if alpha >= beta:
            return beta
    # order the non-losing moves: most winning spots created first, centre first among equals
    cand = np.empty(w, np.uint64)
    score = np.empty(w, np.int64)
    n = 0
    column_bits = (np.uint64(1) << np.uint64(h)) - np.uint64(1)
    for i in range(w):
        c = order[i]
        move = nonlosing & (column_bits << np.uint64(c * (h + 1)))
        if move:
            s = popcount(_winning_spots(current | move, mask, h, board))
            j = n
            while j > 0 and score[j - 1] < s:
                cand[j] = cand[j - 1]
                score[j] = score[j - 1]
                j -= 1
            cand[j] = move
            score[j] = s
            n += 1
    for i in range(n):
        move = cand[i]
        child_current = current ^ mask
        child_mask = mask | move
        value = -_negamax(child_current, child_mask, moves + 1, -beta, -alpha, w, h, bottom, board, order, keys, vals, stats)
        if stats[2]:
            return 0
        if value >= beta:
            keys[slot] = key
            vals[slot] = np.int8(value + max_score - 2 * min_score + 2)
            return value
        if value > alpha:
            alpha = value
    keys[slot] = key
    vals[slot] = np.int8(alpha - min_score + 1)
    return alpha


@njit(cache=True)
def _wins_now(current: Any, mask: Any, h: int, bottom: Any, board: Any) -> Any:
    return ((mask + bottom) & board & _winning_spots(current, mask, h, board)) != 0


@njit(cache=True)
def _score(
    current: Any, mask: Any, moves: int, lo: int, hi: int, w: int, h: int, bottom: Any, board: Any,
    order: np.ndarray, keys: np.ndarray, vals: np.ndarray, stats: np.ndarray,
) -> int:
    """Score of a non-terminal position (in ``[lo, hi]``) by null windows that narrow the
    interval from both sides (``stats`` as for :func:`_negamax`)."""
    if _wins_now(current, mask, h, bottom, board):
        return (w * h + 1 - moves) // 2
    while lo < hi:
        med = lo + (hi - lo) // 2
        if med <= 0 and lo // 2 < med:
            med = lo // 2
        elif med >= 0 and hi // 2 > med:
            med = hi // 2
        r = _negamax(current, mask, moves, med, med + 1, w, h, bottom, board, order, keys, vals, stats)
        if stats[2]:
            return 0
        if r <= med:
            hi = r
        else:
            lo = r
    return lo


class PonsScorer(ScoreSearch):
    """Pons' score, outcome and distance of Connect Four positions on ``columns`` x ``rows``,
    with a table of ``slots`` entries kept between calls.

    The table takes 9 bytes a slot: ``slots`` is capped at :data:`MAX_SLOTS`, so it never
    exceeds 1 GiB (the default, :data:`DEFAULT_SLOTS`, is about 150 MB). Its entries are
    bounds on the score of a position keyed by the whole position, true whichever search
    stored them, so one solver may serve any number of positions (``reusable``).
    """

    #: What the table holds is exact for every position: a batch may share one solver.
    reusable = True

    def __init__(self, columns: int, rows: int, slots: int = DEFAULT_SLOTS):
        if columns * (rows + 1) > 64:
            raise ValueError(f"board {columns}x{rows} does not fit 64-bit bitboards")
        self.columns, self.rows = columns, rows
        self.keys = np.zeros(min(max(slots, 1) | 1, MAX_SLOTS), np.uint64)  # an odd size spreads the keys
        self.vals = np.zeros(self.keys.shape[0], np.int8)
        bottom = sum(1 << c * (rows + 1) for c in range(columns))
        self.bottom = np.uint64(bottom)
        self.board = np.uint64(bottom * ((1 << rows) - 1))
        centre = columns // 2
        self.order = np.array(sorted(range(columns), key=lambda c: (abs(c - centre), c)), np.int64)
        self.nodes = 0

    def score(self, state: int, budget: int | None = None) -> int | None:
        """Pons' score of a non-terminal state, ``None`` when ``budget`` nodes did not suffice
        (the table keeps what was proved, so asking again goes on from there)."""
        current_int, mask_int, moves = self.mover(state)
        current, mask = np.uint64(current_int), np.uint64(mask_int)
        cells = self.columns * self.rows
        h = self.rows
        lo, hi = -((cells - moves) // 2), (cells + 1 - moves) // 2
        stats = np.array([0, budget if budget is not None else 1 << 62, 0], np.int64)
        found = _score(
            current, mask, moves, lo, hi, self.columns, h, self.bottom, self.board, self.order, self.keys, self.vals, stats
        )
        self.nodes += int(stats[0])
        return None if stats[2] else int(found)

    def __len__(self) -> int:
        return int(np.count_nonzero(self.keys))
