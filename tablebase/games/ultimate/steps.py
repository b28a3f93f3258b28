"""The steps of a node of the compiled searches of Ultimate tic-tac-toe (:mod:`.search`): playing
a move on the explicit stack, a node's bounds from the tables and from the lines of fields, the
fail-soft result; and which kernels a first use compiles where (:data:`HERE`, :data:`BESIDE`).
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

from tablebase.games.common.compiled import kernel
from tablebase.games.ultimate import fields, table
from tablebase.games.ultimate.fields import INT, ROW, UNREACHABLE, _in_time, _knowledge, _needs
from tablebase.games.ultimate.table import KEYS, VALS, _dget, _find
from tablebase.scores import M, settle, shift, unshift

#: The rows of the explicit stack (:func:`.search._walk`, a frame a ply): of its move lists
#: (``two[row, ply, move]``) the moves, their order, their known values, each child's three words,
#: its proof and disproof numbers;
MOVES, ORDER, KNOWN, C0, C1, C2, CPN, CDN = range(8)
#: of its scalars (``one[row, ply]``) the node's three words, the fields won by x and by o, the
#: active field, the mover, its count of moves, the move being searched, its window and the alpha
#: it came with, its bounds, its best value and move so far, the next move in the order, whether
#: moves were skipped; the proof search's target, thresholds and nodes counted at the start.
FW0, FW1, FW2, FWX, FWO, FACT, FMOVER, FN, FI, FA, FB, FA0, FLO, FHI = range(14)
FBEST, FBESTI, FJ, FSKIP, FT, FTHPN, FTHDN, FWORK = range(14, 22)


@kernel(types.void(ROW, ROW, INT, INT, types.int64[:, :, ::1], types.bool_[:, ::1], types.int64[:, ::1]), python=False)
def _descend(
    xf: np.ndarray, of: np.ndarray, d: int, i: int, two: np.ndarray, newly: np.ndarray, one: np.ndarray
) -> None:
    """Play move ``i`` of frame ``d`` on the fields and fill frame ``d + 1`` (all but its window)."""
    m = two[MOVES, d, i]
    f = m // 9
    bit = 1 << (m % 9)
    e = d + 1
    if one[FMOVER, d] == 0:
        xf[f] |= bit
        one[FWX, e] = one[FWX, d] | (1 << f) if newly[d, i] else one[FWX, d]
        one[FWO, e] = one[FWO, d]
    else:
        of[f] |= bit
        one[FWO, e] = one[FWO, d] | (1 << f) if newly[d, i] else one[FWO, d]
        one[FWX, e] = one[FWX, d]
    one[FW0, e], one[FW1, e], one[FW2, e] = two[C0, d, i], two[C1, d, i], two[C2, d, i]
    one[FACT, e] = (two[C2, d, i] >> 54) & 15
    one[FMOVER, e] = 1 - one[FMOVER, d]


@njit(cache=True, inline="always")
def _undo(xf: np.ndarray, of: np.ndarray, m: int, mover: int) -> None:
    """Take move ``m`` of ``mover`` back off the fields."""
    if mover == 0:
        xf[m // 9] ^= 1 << (m % 9)
    else:
        of[m // 9] ^= 1 << (m % 9)


#: The fail-soft result of a node (:func:`tablebase.scores.settle`), compiled.
_settle = njit(cache=True, inline="always")(settle)
#: A child's score one ply earlier, and back (:func:`tablebase.scores.shift`), compiled.
_shift = njit(cache=True, inline="always")(shift)
_unshift = njit(cache=True, inline="always")(unshift)


@njit(cache=True, inline="always")
def _parity(lo: int, hi: int) -> tuple[int, int]:
    """Bounds on a distance score narrowed by parity: the side that completes a line of fields
    makes the last move, so a win comes after an odd number of plies, a loss after an even one."""
    if lo > 0 and (M - lo) % 2 == 0:
        lo += 1
    elif lo < 0 and (M + lo) % 2 == 1:
        lo += 1
    if hi > 0 and (M - hi) % 2 == 0:
        hi -= 1
    elif hi < 0 and (M + hi) % 2 == 1:
        hi -= 1
    return lo, hi


@njit(cache=True, inline="always")
def _narrowed(
    dkeys: np.ndarray, dvals: np.ndarray, w0: int, w1: int, w2: int, lo: int, hi: int
) -> tuple[int, int, int, bool]:
    """Bounds ``lo..hi`` on a distance score narrowed by the distance table's entry of a state and by
    parity: ``(lo, hi, the entry's best move index or -1, whether the entry holds them already)``."""
    found, elo, ehi, best_index = _dget(dkeys, dvals, w0, w1, w2)
    if found:
        if elo > lo:
            lo = elo
        if ehi < hi:
            hi = ehi
    lo, hi = _parity(lo, hi)
    return lo, hi, best_index, found and elo == ehi


@njit(cache=True, inline="always")
def _outcome_bounds(
    keys: np.ndarray, vals: np.ndarray, xf: np.ndarray, of: np.ndarray, wx: int, wo: int, mover: int,
    w0: int, w1: int, w2: int, alpha: int, beta: int,
) -> tuple[int, int, int]:
    """``(lo, hi, best move index)`` of a node of the outcome search: its entry in the outcome table,
    narrowed by who can still make a line of fields where the entry leaves ``alpha..beta`` open."""
    lo, hi, best_index = -1, 1, -1
    at = _find(keys, w0, w1, w2)
    if at >= 0:
        lo, hi, best_index = vals[at, 0], vals[at, 1], vals[at, 2]
    if not (lo >= beta or lo == hi or hi <= alpha):
        klo, khi = _knowledge(xf, of, wx, wo, mover)
        if klo > lo:
            lo = klo
        if khi < hi:
            hi = khi
    return lo, hi, best_index


@kernel((KEYS, VALS[0], KEYS, VALS[1], ROW, ROW, *[INT] * 7), python=False)
def _distance_bounds(
    keys: np.ndarray, vals: np.ndarray, dkeys: np.ndarray, dvals: np.ndarray, xf: np.ndarray, of: np.ndarray,
    wx: int, wo: int, mover: int, w0: int, w1: int, w2: int, plies: int,
) -> tuple[int, int, int, bool]:
    """``(lo, hi, best move index, whether the distance table holds them already)`` of a node of the
    distance search with at most ``plies`` plies left: from its outcome, from who can still make
    a line of fields and how soon, from the distance table, and by parity."""
    lo, hi = 1 - M, M - 1
    at = _find(keys, w0, w1, w2)
    if at >= 0:
        if vals[at, 0] == 1:
            lo = M - plies
        elif vals[at, 0] == 0:
            lo = 0
        if vals[at, 1] == -1:
            hi = -(M - plies)
        elif vals[at, 1] == 0:
            hi = 0
    # a win takes the mover at least 2 * need - 1 plies, a loss comes after at least 2 * the
    # other side's need
    need_me, need_you = _needs(xf, of, wx, wo, mover)
    need_me, need_you = _in_time(need_me, need_you, plies)
    if need_you >= UNREACHABLE:
        if lo < 0:
            lo = 0
    elif lo < -(M - 2 * need_you):
        lo = -(M - 2 * need_you)
    if need_me >= UNREACHABLE:
        if hi > 0:
            hi = 0
    elif hi > M - (2 * need_me - 1):
        hi = M - (2 * need_me - 1)
    return _narrowed(dkeys, dvals, w0, w1, w2, lo, hi)


#: What the walk calls, compiled before it (each after what it calls): ``HERE`` in the search's
#: process; ``BESIDE[0]`` at the same time in a second one on a first use
#: (:class:`tablebase.games.common.compiled.Beside`), ``BESIDE[1]``, what Python alone calls
#: (and what it calls), while the walk compiles.
HERE = (_find, table._store, table._bound, table._pstore, _dget, _distance_bounds, _descend)
BESIDE = (
    (fields._at_once, fields._child, fields._threats, fields._moves, _knowledge),
    (_find, table._store, table._bound, table._get, table._rehash, table._merge),
)
