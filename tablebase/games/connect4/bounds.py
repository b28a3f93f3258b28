"""Static bounds on Connect Four scores from strategies that answer every move, for the prover.

On the bitboards of :mod:`tablebase.games.connect4.rules` (``cur``: the discs of the
side to move, ``mask``: every disc; ``bottom``: the bottom cell of each column, ``board``: every
cell, ``claims``: the cells the strategy's player takes) with scores in Pons' convention
(:mod:`tablebase.games.connect4.score`): an upper bound on the score of the side to move, or
:data:`NONE` when the strategy proves nothing.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from tablebase.games.connect4.compiled_bits import has_four, popcount

#: What a bound is when the strategy proves nothing (above every score).
NONE = 1000


@njit(cache=True, inline="always")
def win_score(cells: int, moves: int, k: int) -> int:
    """Score of winning ``k`` plies (odd) from a position with ``moves`` discs (negated: of losing ``k`` plies, even, from it)."""
    return (cells + 2 - moves - k) // 2


@njit(cache=True, inline="always")
def four(b: Any, s: Any) -> Any:
    """The top cell of each four of ``b`` in the direction of step ``s``."""
    pairs = b & (b << (np.uint64(2) * s))
    return pairs & (pairs << s)


@njit(cache=True, inline="always")
def four_cells(b: Any, s: Any) -> Any:
    """Every cell of each four of ``b`` in the direction of step ``s``."""
    quads = four(b, s)
    pairs = quads | (quads >> s)
    return pairs | (pairs >> (np.uint64(2) * s))


@njit(cache=True)
def evens_bound(cur: Any, mask: Any, h: int, bottom: Any, board: Any, claims: Any) -> int:
    """An upper bound on the score of the first player to move (an even number of discs, an
    even number of rows) from the second player claiming every even cell not playable now;
    ``NONE`` when the strategy proves nothing."""
    opp = cur ^ mask
    playable = mask + bottom
    theirs = opp | (claims & ~cur & ~playable)
    mine = board & ~theirs
    if four(mine, np.uint64(1)):
        return NONE
    sh = np.uint64(h + 1)
    sn = np.uint64(h)
    sp = np.uint64(h + 2)
    their_h = four(theirs, sh)
    their_n = four(theirs, sn)
    their_p = four(theirs, sp)
    my_h = four(mine, sh)
    my_n = four(mine, sn)
    my_p = four(mine, sp)
    headers = bottom << np.uint64(h)
    below = headers + np.uint64(1)
    if (my_h & (their_h - below)) or (my_n & (their_n - below)) or (my_p & (their_p - below)):
        return NONE
    if not (their_h or their_n or their_p):
        return 0
    if their_h:
        row = h // 2
        while row > 1:
            if their_h & (headers >> np.uint64(2 * row - 1)):
                return -row
            row -= 1
    else:
        losses = ~mask & (four_cells(theirs, sp) | four_cells(theirs, sn))
        for row in range(1, h // 2 + 1):
            if losses & (headers >> np.uint64(2 * row - 1)):
                return -row
    return -1


@njit(cache=True)
def follow_up_bound(cur: Any, mask: Any, h: int, bottom: Any, board: Any, claims: Any) -> int:
    """An upper bound on the score of the player to move with an even number of empty cells, from
    the other player answering each move on top of it (a move into a column with an odd number of
    empty cells: in another such column), which gives that player every cell of ``claims`` not
    playable now: 0 when the mover has no four without those cells; when the other player has a
    four with them, a loss no later than the cells above its top cell allow (they fill after it);
    ``NONE`` when it proves nothing."""
    playable = (mask + bottom) & board
    theirs = (cur ^ mask) | (claims & ~mask & ~playable)
    if has_four(board & ~theirs, h):
        return NONE
    sh = np.uint64(h)
    tops = four(theirs, np.uint64(1)) | four(theirs, sh + np.uint64(1)) | four(theirs, sh + np.uint64(2))
    tops |= four(theirs, sh) >> (np.uint64(3) * sh)
    if not tops:
        return 0
    row = 0
    while not (tops & (bottom << np.uint64(row))):
        row += 1
    above = h - 1 - row  # empty when the four is made: the loss comes that many plies before the end, or one more
    return -(1 + (above + above % 2) // 2)


@njit(cache=True)
def odd_threat_bound(cur: Any, mask: Any, threats: Any, h: int, bottom: Any, board: Any, cells: int, moves: int) -> int:
    """An upper bound on the score of the player to move with an odd number of empty cells, from a
    threat of the other player (an empty cell of ``threats``, those completing a four of its
    discs) in a column with an odd number of empty cells, on a cell of the other parity than the
    lowest empty one. The other player answers each move on top of it, except a move into
    another column with an odd number of empty cells, answered in the column paired with it
    (those columns, in pairs); so the mover must at last play below the threat and lose, unless
    it can make a four of its discs and the cells this leaves it: the lowest empty cell of every
    column and every second one above it, in the paired columns the others above the lowest,
    none from the threat up. The loss comes at the latest when every other cell below it is
    filled. ``NONE`` when no threat proves it."""
    empty = board & ~mask
    playable = (mask + bottom) & board
    movers = playable
    above = playable
    for _ in range((h - 1) // 2):
        above = (above << np.uint64(2)) & board & ~bottom
        movers |= above
    odd = movers & (bottom << np.uint64(h - 1))
    odd_columns = (odd << np.uint64(1)) - (odd >> np.uint64(h - 1))
    targets = threats & empty & odd_columns & ~movers
    best = NONE
    while targets:
        target = targets & (~targets + np.uint64(1))
        top = odd & ~(target - np.uint64(1))
        top &= ~top + np.uint64(1)
        column = (top << np.uint64(1)) - (top >> np.uint64(h - 1))
        targets &= ~column
        unreached = column & ~(target - np.uint64(1))
        paired = odd_columns & ~column
        left = cur | (movers & ~paired & ~unreached) | ((playable | (empty & ~movers)) & paired)
        if has_four(left, h):
            continue
        bound = -win_score(cells, moves, popcount(empty & ~unreached) + 1)
        if bound < best:
            best = bound
    return best
