"""Distance scores: a position's outcome and distance as one integer, as the exact searches compare them.

A win in ``d`` plies scores ``M - d``, a loss in ``d`` plies ``-(M - d)``,
a draw 0 (for the side to move), so a higher score is better and a faster
win or a slower loss is higher. ``M`` is larger than any game's length;
``INF`` is beyond every score.

The functions are plain Python on ints, so that a compiled search (Ultimate's,
:mod:`tablebase.games.ultimate.search`) compiles these same steps.
"""

from __future__ import annotations

#: Base of the distance scores (``M - d`` a win in ``d`` plies, ``-(M - d)`` a loss); larger than any game length.
M = 1 << 20
INF = M + 1


def shift(score: int) -> int:
    """A child's score seen one ply earlier: one ply further from the end."""
    if score > 0:
        return score - 1
    if score < 0:
        return score + 1
    return 0


def unshift(bound: int) -> int:
    """The child-side bound that corresponds to a parent-side window bound (inverse of :func:`shift`)."""
    if bound > 0:
        return bound + 1
    if bound < 0:
        return bound - 1
    return 0


def settle(best: int, lo: int, hi: int, alpha0: int, beta: int) -> tuple[int, int, int]:
    """The fail-soft result of a node searched with the window ``(alpha0, beta)`` whose best move scored
    ``best`` and whose bounds were ``lo``, ``hi``: ``(value, bounds to store)``."""
    if best < lo:
        best = lo
    elif best > hi:
        best = hi
    if best <= alpha0:
        hi = best
    elif best >= beta:
        lo = best
    else:
        lo = hi = best
    return best, lo, hi
