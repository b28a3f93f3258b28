"""The outcome search of Ultimate tic-tac-toe compiled with numba (a default dependency).

:class:`OutcomeTable` is what :meth:`tablebase.games.ultimate.Ultimate.outcome_table`
returns when numba is installed: the win/draw/loss alpha-beta of
:mod:`tablebase.solve.search` (same move ordering, same fail-soft bounds)
run as machine code over the fields of the board, with its transposition
table in numpy arrays (:mod:`.table`). Both searches also
bound a position by who can still make a line of fields (a side that cannot
is worth at most a draw), and the outcome search can order moves by their
history of cut-offs fully or only as a tie-break (:meth:`OutcomeTable.rival`).
:meth:`OutcomeTable.dfpn` proves one bound of the value ("at least 1?", "at
least 0?") by depth-first proof-number search, with proof and disproof numbers
in a table of their own and what it settles as bounds in the outcome table, its starting
numbers from the marks each side still needs to make a line of fields (none if it needs more
than it can still place), which also bound how soon the distance search can find a win; the
distance search narrows its bounds by parity (a win comes after an odd number of plies). Both
settle a move before searching its child when it sends the other side where that side wins
the game at once, or when every reply to it sends the mover where it does (a win in 3).

The three searches are one walk over one explicit stack (:func:`_walk`, a frame a ply),
told which search it runs, and so its own parts: what bounds a node, how its moves are ordered
or numbered, and what a child's result does to its parent. What they know of a position is
:mod:`.fields`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, types

from tablebase.games.common.compiled import announce_compile
from tablebase.games.compiled_search import CompiledSearch
from tablebase.games.ultimate.fields import (
    DRAWS,
    FREE,
    GOES_ON,
    HANDS_A_WIN,
    M81,
    OPEN_MOVE,
    TRAPS,
    UNREACHABLE,
    WINS,
    _at_once,
    _child,
    _in_time,
    _knowledge,
    _moves,
    _needs,
    _threats,
    words,
)
from tablebase.games.ultimate.table import (
    EMPTY,
    INT,
    KEYS,
    DistanceTable,
    ProofTable,
    _bound,
    _dget,
    _find,
    _get,
    _merge,
    _pstore,
    _rehash,
    _store,
    _Table,
)
from tablebase.scores import INF, M, settle, shift, unshift

#: About how long compiling the searches takes (seconds of one core) when numba's cache lacks them.
COMPILE_SECONDS = 13
#: The searches of :func:`_walk`: the outcome's alpha-beta, the distance's, the proof numbers of a bound.
OUTCOME, DISTANCE, PROOF = 0, 1, 2
#: What each search returns when its node budget is spent.
ABORT = 100
DIST_ABORT = 1 << 40
DFPN_ABORT = -1
#: Proof and disproof numbers: ``PN_INF`` stands for a proved (or disproved) proposition; sums stop below it.
PN_INF = 1 << 50
#: The bit of a proof table key's third word (free in every state's) set for the proposition "value >= 1"
#: (clear: "value >= 0").
TARGET_BIT = 1 << 58
#: The 1 + epsilon trick of the proof-number search: a child's disproof threshold is the second-best
#: child's times ``1 + 1 / EPSILON``.
EPSILON = 4
#: What the walk does next at the top frame: enter it, take its next move, hand its result to its parent.
ENTER, NEXT, RETURN = 0, 1, 2
DEPTH = 82


@njit(
    types.void(
        types.int64[::1], types.int64[::1], INT, INT, KEYS, types.bool_[:, ::1], KEYS, KEYS, KEYS, *[types.int64[::1]] * 7
    ),
    cache=True,
)
def _descend(
    xf: np.ndarray, of: np.ndarray, d: int, i: int, moves: np.ndarray, newly: np.ndarray,
    c0: np.ndarray, c1: np.ndarray, c2: np.ndarray, fw0: np.ndarray, fw1: np.ndarray, fw2: np.ndarray,
    fwx: np.ndarray, fwo: np.ndarray, fact: np.ndarray, fmover: np.ndarray,
) -> None:
    """Play move ``i`` of frame ``d`` on the fields and fill frame ``d + 1`` (all but its window)."""
    m = moves[d, i]
    f = m // 9
    bit = 1 << (m % 9)
    e = d + 1
    if fmover[d] == 0:
        xf[f] |= bit
        fwx[e] = fwx[d] | (1 << f) if newly[d, i] else fwx[d]
        fwo[e] = fwo[d]
    else:
        of[f] |= bit
        fwo[e] = fwo[d] | (1 << f) if newly[d, i] else fwo[d]
        fwx[e] = fwx[d]
    fw0[e], fw1[e], fw2[e] = c0[d, i], c1[d, i], c2[d, i]
    fact[e] = (c2[d, i] >> 54) & 15
    fmover[e] = 1 - fmover[d]


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


@njit(cache=True)
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


@njit(cache=True, inline="always")
def _frames() -> tuple:  # type: ignore[type-arg]
    """The explicit stack: per ply, move lists (moves, order, known values, child words, proof and
    disproof numbers; fields won, values known) and the node's scalars."""
    two = np.empty((8, DEPTH, 81), dtype=np.int64)
    one = np.empty((22, DEPTH), dtype=np.int64)
    return two, np.empty((DEPTH, 81), dtype=np.bool_), np.empty((DEPTH, 81), dtype=np.bool_), one


@njit(cache=True)
def _walk(
    kind: int, board: tuple, alpha: int, beta: int, keys: np.ndarray, vals: np.ndarray,  # type: ignore[type-arg]
    side_keys: np.ndarray, side_vals: np.ndarray, history: np.ndarray, history_cap: int, epsilon: int,
    counter: np.ndarray,
) -> int:
    """The search ``kind`` of the non-terminal position ``board`` (:meth:`OutcomeTable._start`),
    depth first with an explicit stack (one frame a ply), within the node budget ``counter[1]``
    (``counter[0]``: the nodes searched); ``keys``, ``vals``: the outcome table, ``side_keys``,
    ``side_vals``: the distance table or the proof table (of one type: the walk compiles once).
    The searches:

    - ``OUTCOME``: fail-soft negamax in -1..1 in the window ``alpha..beta``, its bounds in the
      outcome table; a move's history of cut-offs counts at most
      ``history_cap`` in the move order.
    - ``DISTANCE``: the distance search of
      :meth:`tablebase.solve.search.distance._DistanceSearch.dist_search` in the window
      ``alpha..beta`` of distance scores, its bounds in the distance table ``side_*``.
    - ``PROOF``: depth-first proof-number search of "the value for the side to move is at least
      ``alpha``" (1 or 0): 1 proved, 0 disproved. Negamax form: a node's proposition holds when
      some child's ("the child's value is at least ``1 - alpha``") fails, so its proof number is
      the least of its children's disproof numbers and its disproof number the sum of their proof
      numbers. Settled propositions go to the outcome table as bounds; the others' numbers to
      the proof table ``side_*`` (proof number, disproof number, nodes of the last search below).
      A child the tables do not know starts from what the lines of fields say, else from the
      marks each side still needs to make one (:func:`.fields._need`) and its count of moves:
      "the child's mover wins" from proof number its need and disproof number its moves, "the
      child's mover does not lose" from proof number 1 and disproof number its moves times the
      parent's mover's need. A child's disproof threshold is the second-best child's times
      ``1 + 1 / epsilon``.

    Returns :data:`ABORT`, :data:`DIST_ABORT` or :data:`DFPN_ABORT` when the budget is spent.
    """
    xf, of, wx, wo, active, w0, w1, w2, mover, classic = board
    two, newly, isknown, one = _frames()
    moves, order, known, c0, c1, c2, cpn, cdn = two[0], two[1], two[2], two[3], two[4], two[5], two[6], two[7]
    key = np.empty(81, dtype=np.int64)
    threats = np.empty(9, dtype=np.int64)
    own_threats = np.empty(9, dtype=np.int64)
    fw0, fw1, fw2, fwx, fwo, fact, fmover, fn, fi = one[0], one[1], one[2], one[3], one[4], one[5], one[6], one[7], one[8]
    fa, fb, fa0, flo, fhi, fbest, fbesti, fj, fskip = one[9], one[10], one[11], one[12], one[13], one[14], one[15], one[16], one[17]
    ft, fthpn, fthdn, fwork = one[18], one[19], one[20], one[21]
    if kind == PROOF:
        # the start settled by the outcome table or by the lines of fields: no node searched
        at = _find(keys, w0, w1, w2)
        if at >= 0:
            if vals[at, 0] >= alpha:
                return 1
            if vals[at, 1] < alpha:
                return 0
        klo, khi = _knowledge(xf, of, wx, wo, mover)
        if klo >= alpha:
            return 1
        if khi < alpha:
            return 0
        ft[0], fthpn[0], fthdn[0] = alpha, PN_INF, PN_INF
    fw0[0], fw1[0], fw2[0], fwx[0], fwo[0], fact[0], fmover[0] = w0, w1, w2, wx, wo, active, mover
    fa[0], fb[0] = alpha, beta
    lo = hi = best_index = n = closed = free_open = fields = own = t = tc = 0
    exact = False
    depth = 0
    mode = ENTER
    ret = ret2 = 0
    have = False
    value = 0
    while True:
        d = depth
        if mode == ENTER:
            alpha, beta = fa[d], fb[d]
            if kind == DISTANCE and (alpha >= M - 1 or beta <= 1 - M):
                # a window beyond every score: answered before it counts as a node
                ret = M - 1 if alpha >= M - 1 else 1 - M
                mode = RETURN
                continue
            counter[0] += 1
            if counter[0] > counter[1]:
                return ABORT if kind == OUTCOME else DIST_ABORT if kind == DISTANCE else DFPN_ABORT
            w0, w1, w2 = fw0[d], fw1[d], fw2[d]
            wx, wo, active, mover = fwx[d], fwo[d], fact[d], fmover[d]
            won = wx | wo
            mine_won = wx if mover == 0 else wo
            if kind == OUTCOME:
                lo, hi, best_index = _outcome_bounds(keys, vals, xf, of, wx, wo, mover, w0, w1, w2, alpha, beta)
            else:
                n, closed, free_open = _moves(xf, of, won, active, classic, moves[d])
            if kind == DISTANCE:
                lo, hi, best_index, exact = _distance_bounds(
                    keys, vals, side_keys, side_vals, xf, of, wx, wo, mover, w0, w1, w2, free_open
                )
                if lo == hi and not exact:
                    _store(side_keys, side_vals, w0, w1, w2, lo, hi, best_index)
            if kind == PROOF:
                fwork[d] = counter[0]
                t = ft[d]
                tc = 1 - t
            else:
                if lo >= beta or lo == hi:
                    ret = lo
                    mode = RETURN
                    continue
                if hi <= alpha:
                    ret = hi
                    mode = RETURN
                    continue
                if lo > alpha:
                    alpha = lo
                if hi < beta:
                    beta = hi
                fa[d], fb[d], fa0[d], flo[d], fhi[d] = alpha, beta, alpha, lo, hi
            if kind == OUTCOME:
                n, closed, free_open = _moves(xf, of, won, active, classic, moves[d])
            else:
                fields = _threats(xf, of, wx, wo, 1 - mover, threats)
                own = _threats(xf, of, wx, wo, mover, own_threats)
            # each move: the child's words and what is known of it, or the move that settles the node
            pick = -1
            skipped = False
            count = 0
            for i in range(n):
                m = moves[d, i]
                ends, wins_field, a0, a1, a2, replies = _child(
                    xf, of, w0, w1, w2, won, mine_won, mover, closed, free_open, classic, m
                )
                newly[d, i] = wins_field
                c0[d, i], c1[d, i], c2[d, i] = a0, a1, a2
                isknown[d, i] = ends != GOES_ON
                if kind == OUTCOME:
                    if ends == WINS:
                        pick = i
                        break
                    if ends == DRAWS:
                        known[d, i] = 0
                        key[i] = -(10**9)
                    else:
                        k = 0
                        e = _find(keys, a0, a1, a2)
                        if e >= 0:
                            if vals[e, 1] == -1:
                                pick = i
                                break
                            k = (vals[e, 0] + vals[e, 1]) * 10**6
                        if i == best_index:
                            k = -(10**8)
                        key[i] = k + replies * 1000 - min(history[m], history_cap)
                elif kind == DISTANCE:
                    if ends != GOES_ON:
                        known[d, i] = M - 1 if ends == WINS else 0
                        key[i] = (((-3 * M + 4 * M) * (1 << 23) + 2 * M) * 128) * 128 + i
                    else:
                        # the child's value when the reply wins at once (M - 1 for it), or when every
                        # reply lets the mover win at once (a loss in 2 for it)
                        settles = _at_once(
                            xf, of, won, mover, classic, threats, fields, own_threats, own, m, wins_field, (a2 >> 54) & 15
                        )
                        if settles != OPEN_MOVE:
                            cv = M - 1 if settles == HANDS_A_WIN else 2 - M
                            isknown[d, i] = True
                            known[d, i] = _shift(-cv)
                            key[i] = (((cv + 4 * M) * (1 << 23) + (cv + 2 * M)) * 128) * 128 + i
                        else:
                            clo, chi = 1 - M, M - 1
                            e = _find(keys, a0, a1, a2)
                            if e >= 0:
                                if vals[e, 0] >= 0:
                                    if alpha >= 0:
                                        skipped = True
                                        continue
                                    clo = 0 if vals[e, 0] == 0 else 1
                                if vals[e, 1] <= 0:
                                    chi = 0 if vals[e, 1] == 0 else -1
                            clo, chi, _, _ = _narrowed(side_keys, side_vals, a0, a1, a2, clo, chi)
                            if i == best_index:
                                chi = -3 * M + 1
                            key[i] = (((chi + 4 * M) * (1 << 23) + (clo + 2 * M)) * 128 + replies) * 128 + i
                else:
                    if ends == WINS:
                        pick = i
                        break
                    if ends == DRAWS:
                        if t == 0:
                            pick = i
                            break
                        cpn[d, i] = 0
                        cdn[d, i] = PN_INF
                        continue
                    settles = _at_once(
                        xf, of, won, mover, classic, threats, fields, own_threats, own, m, wins_field, (a2 >> 54) & 15
                    )
                    if settles == HANDS_A_WIN:
                        cpn[d, i] = 0
                        cdn[d, i] = PN_INF
                        continue
                    if settles == TRAPS:
                        pick = i
                        break
                    e = _find(keys, a0, a1, a2)
                    if e >= 0:
                        if vals[e, 1] < tc:
                            pick = i
                            break
                        if vals[e, 0] >= tc:
                            cpn[d, i] = 0
                            cdn[d, i] = PN_INF
                            continue
                    p = _find(side_keys, a0, a1, a2 | (TARGET_BIT if tc == 1 else 0))
                    if p >= 0:
                        cpn[d, i] = side_vals[p, 0]
                        cdn[d, i] = side_vals[p, 1]
                        continue
                    f = m // 9
                    bit = 1 << (m % 9)
                    cwx, cwo = wx, wo
                    if mover == 0:
                        xf[f] |= bit
                        if wins_field:
                            cwx |= 1 << f
                    else:
                        of[f] |= bit
                        if wins_field:
                            cwo |= 1 << f
                    n_child, n_parent = _needs(xf, of, cwx, cwo, 1 - mover)
                    _undo(xf, of, m, mover)
                    plies = free_open - 1
                    if classic and wins_field:
                        plies -= FREE[xf[f] | of[f] | bit]
                    n_child, n_parent = _in_time(n_child, n_parent, plies)
                    if (1 if n_child < UNREACHABLE else 0) < tc:
                        pick = i
                        break
                    if (-1 if n_parent < UNREACHABLE else 0) >= tc:
                        cpn[d, i] = 0
                        cdn[d, i] = PN_INF
                        continue
                    # "the child's mover wins": as many moves to prove as the marks it still needs;
                    # "it does not lose": to disprove, every reply refuted, each the more work the
                    # more marks the parent's mover still needs
                    if tc == 1:
                        cpn[d, i] = n_child
                        cdn[d, i] = replies if replies > 0 else 1
                    else:
                        cpn[d, i] = 1
                        cdn[d, i] = (replies if replies > 0 else 1) * n_parent
                order[d, count] = i
                count += 1
            if pick >= 0:
                if kind == OUTCOME:
                    _store(keys, vals, w0, w1, w2, 1, 1, pick)
                    ret = 1
                else:
                    _bound(keys, vals, w0, w1, w2, t, 1, pick)
                    ret, ret2 = 0, PN_INF
                mode = RETURN
                continue
            if kind == PROOF:
                fn[d] = n
            else:
                for i in range(1, count):  # insertion sort by key, stable like Python's sort
                    j = i
                    item = order[d, i]
                    while j > 0 and key[order[d, j - 1]] > key[item]:
                        order[d, j] = order[d, j - 1]
                        j -= 1
                    order[d, j] = item
                fn[d], fj[d], fbest[d], fbesti[d], fskip[d] = count, 0, -INF, -1, 1 if skipped else 0
                have = False
            mode = NEXT
            continue
        if mode == NEXT and kind != PROOF:
            cut = False
            descended = False
            while True:
                if have:
                    have = False
                    v = value
                elif fj[d] < fn[d] and isknown[d, order[d, fj[d]]]:
                    v = known[d, order[d, fj[d]]]
                elif fj[d] < fn[d]:
                    i = order[d, fj[d]]
                    fi[d] = i
                    _descend(xf, of, d, i, moves, newly, c0, c1, c2, fw0, fw1, fw2, fwx, fwo, fact, fmover)
                    e = d + 1
                    if kind == OUTCOME:
                        fa[e] = -fb[d]
                        fb[e] = -fa[d]
                    else:
                        fa[e] = -_unshift(fb[d])
                        fb[e] = -_unshift(fa[d])
                    depth = e
                    mode = ENTER
                    descended = True
                    break
                else:
                    break
                i = order[d, fj[d]]
                if v > fbest[d]:
                    fbest[d] = v
                    fbesti[d] = i
                    if v > fa[d]:
                        fa[d] = v
                        if v >= fb[d]:
                            if kind == OUTCOME:
                                history[moves[d, i]] += 1
                            cut = True
                fj[d] += 1
                if cut:
                    break
            if descended:
                continue
            best = 0 if fskip[d] != 0 and fbest[d] < 0 else fbest[d]  # the skipped moves are worth at most 0
            best, lo, hi = _settle(best, flo[d], fhi[d], fa0[d], fb[d])
            if kind == OUTCOME:
                _store(keys, vals, fw0[d], fw1[d], fw2[d], lo, hi, fbesti[d])
            else:
                _store(side_keys, side_vals, fw0[d], fw1[d], fw2[d], lo, hi, fbesti[d])
            ret = best
            mode = RETURN
            continue
        if mode == NEXT:
            n = fn[d]
            t = ft[d]
            pn = PN_INF + 1
            dn2 = PN_INF
            dn = 0
            best = -1
            for i in range(n):
                x = cdn[d, i]
                if x < pn:
                    dn2 = pn
                    pn = x
                    best = i
                elif x < dn2:
                    dn2 = x
                dn += cpn[d, i]
            if pn == 0:
                _bound(keys, vals, fw0[d], fw1[d], fw2[d], t, 1, best)
                ret, ret2 = 0, PN_INF
                mode = RETURN
                continue
            if dn == 0:
                _bound(keys, vals, fw0[d], fw1[d], fw2[d], -1, t - 1, -1)
                ret, ret2 = PN_INF, 0
                mode = RETURN
                continue
            if dn >= PN_INF:
                dn = PN_INF - 1
            if dn2 > PN_INF:
                dn2 = PN_INF
            if pn >= fthpn[d] or dn >= fthdn[d]:
                _pstore(
                    side_keys, side_vals, fw0[d], fw1[d], fw2[d] | (TARGET_BIT if t == 1 else 0), pn, dn,
                    counter[0] - fwork[d],
                )
                ret, ret2 = pn, dn
                mode = RETURN
                continue
            e = d + 1
            thpn = fthdn[d] - dn + cpn[d, best]
            grown = dn2 + dn2 // epsilon
            if grown < dn2 + 1:
                grown = dn2 + 1
            thdn = fthpn[d] if fthpn[d] < grown else grown
            fi[d] = best
            _descend(xf, of, d, best, moves, newly, c0, c1, c2, fw0, fw1, fw2, fwx, fwo, fact, fmover)
            ft[e] = 1 - t
            fthpn[e] = thpn if thpn < PN_INF else PN_INF
            fthdn[e] = thdn
            depth = e
            mode = ENTER
            continue
        # RETURN: hand the result to the parent frame
        if depth == 0:
            if kind == PROOF:
                return 1 if ret == 0 else 0
            return ret
        depth -= 1
        d = depth
        i = fi[d]
        _undo(xf, of, moves[d, i], fmover[d])
        if kind == PROOF:
            cpn[d, i] = ret
            cdn[d, i] = ret2
        else:
            value = -ret if kind == OUTCOME else _shift(-ret)
            have = True
        mode = NEXT


class OutcomeTable(_Table, CompiledSearch):
    """The compiled outcome search and its table of bounds, keyed by state, at most
    ``2 ** max_bits`` entries (and as many for the distances).

    Reads and writes like the ``{state: (lo, hi, best move index)}`` dict of
    the Python search; :meth:`search` runs the negamax of a non-terminal
    state, :meth:`distance_search` the distance search, :meth:`dfpn` the
    proof-number search, within a node budget; :meth:`rival` races it.
    """

    races = True
    proof_numbers = True

    def __init__(self, classic: bool, max_bits: int = 22, history_cap: int = 1 << 62):
        super().__init__(max_bits, np.int8)
        self.classic = classic
        self.history = np.zeros(81, dtype=np.int64)
        self.history_cap = history_cap
        self.counter = np.zeros(2, dtype=np.int64)
        #: The bounds of the distance search, a table of its own.
        self.distances: DistanceTable = DistanceTable(max_bits)
        #: The proof and disproof numbers of :meth:`dfpn`'s unsettled positions.
        self.proofs = ProofTable(max_bits)

    def get(self, state: int) -> tuple[int, int, int] | None:
        code = _get(self.keys, self.vals, *words(state))
        if code < 0:
            return None
        return code // 1024 - 1, code // 256 % 4 - 1, code % 256 - 1

    def _start(self, state: int, budget: int) -> tuple[Any, ...]:
        """The position :func:`_walk` searches, ``state`` as ``(xf, of, wx, wo, active, w0, w1, w2,
        mover, classic)`` (:mod:`.fields`), with the budget set."""
        x = state & M81
        o = (state >> 81) & M81
        high = state >> 162
        self.counter[0] = 0
        self.counter[1] = budget
        return (
            np.array([(x >> (9 * f)) & 511 for f in range(9)], dtype=np.int64),
            np.array([(o >> (9 * f)) & 511 for f in range(9)], dtype=np.int64),
            high & 511,
            (high >> 9) & 511,
            (high >> 18) & 15,
            *words(state),
            (x.bit_count() + o.bit_count()) & 1,
            self.classic,
        )

    def distance_search(self, state: int, alpha: int, beta: int, budget: int) -> tuple[int | None, int]:
        """``(fail-soft distance score, nodes)`` of the non-terminal ``state`` (scores of
        :mod:`tablebase.solve.search`; its outcome bounds come from this table); score
        ``None`` when ``budget`` nodes were not enough."""
        value = _walk(
            DISTANCE, self._start(state, budget), alpha, beta, self.keys, self.vals, self.distances.keys,
            self.distances.vals, self.history, 0, 0, self.counter,
        )
        nodes = int(min(self.counter[0], budget))
        self.distances.note(nodes)
        return (None if value == DIST_ABORT else int(value)), nodes

    def search(self, state: int, alpha: int, beta: int, budget: int) -> tuple[int | None, int]:
        """``(fail-soft value in -1..1, nodes)`` of the non-terminal ``state``; value ``None``
        when ``budget`` nodes were not enough (what was proved stays in the table)."""
        value = _walk(
            OUTCOME, self._start(state, budget), alpha, beta, self.keys, self.vals, self.distances.keys,
            self.distances.vals, self.history, self.history_cap, 0, self.counter,
        )
        nodes = int(min(self.counter[0], budget))
        self.note(nodes)
        return (None if value == ABORT else int(value)), nodes

    def dfpn(self, state: int, target: int, budget: int) -> tuple[bool | None, int]:
        """``(whether the value of the non-terminal ``state`` for its mover is at least ``target``
        (1 or 0), nodes)`` by proof-number search; ``None`` when ``budget`` nodes were not enough.
        What it settles lands in this table as bounds (so the other searches use it); the numbers
        of what it did not settle stay in :attr:`proofs`, for the next call."""
        result = _walk(
            PROOF, self._start(state, budget), target, 0, self.keys, self.vals, self.proofs.keys, self.proofs.vals,
            self.history, 0, EPSILON, self.counter,
        )
        nodes = int(min(self.counter[0], budget))
        self.note(nodes)
        self.proofs.note(nodes)
        return (None if result == DFPN_ABORT else result == 1), nodes

    def rival(self) -> OutcomeTable:
        """An empty table whose search orders moves otherwise (the history of cut-offs only breaks
        ties between moves with as many replies): hard positions take either far fewer or far
        more nodes in one order than in the other, so two processes can race the two."""
        return OutcomeTable(self.classic, self.max_bits, history_cap=999)

    def export(self, states: list[int] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """What :meth:`adopt` takes: the table's entries (of ``states`` only, if given)."""
        if states is None:
            used = self.keys[:, 2] != EMPTY
            return self.keys[used], self.vals[used]
        found = [at for at in (_find(self.keys, *words(state)) for state in states) if at >= 0]
        return self.keys[found], self.vals[found]

    def adopt(self, exported: tuple[np.ndarray, np.ndarray]) -> None:
        """Add the entries of another table of the same variant (proved bounds, like this one's) to
        this one's: where both know a state, its bounds are narrowed to both."""
        keys, vals = exported
        self.grow(len(keys))
        _merge(self.keys, self.vals, keys, vals)


def _load() -> None:
    """Run the compiled functions once on a tiny table: numba loads (or compiles) the machine
    code at the first call, so that is done on import, not inside a timed search."""
    table = OutcomeTable(classic=False, max_bits=6)
    table.search(9 << 180, -1, 1, 1)
    table.distance_search(9 << 180, 0, 1, 1)
    table.get(0)
    table.dfpn(9 << 180, 1, 1)
    table.adopt(table.export())
    table.distances[0] = (0, 0, -1)
    table.distances.get(0)
    _rehash(table.keys, table.vals, np.zeros((64, 3), dtype=np.int64), np.zeros((64, 3), dtype=np.int8))
    _rehash(table.distances.keys, table.distances.vals, np.zeros((16, 3), dtype=np.int64), np.zeros((16, 3), dtype=np.int64))


announce_compile("the ultimate search", (_walk, _get, _dget, _find, _store, _merge, _rehash), COMPILE_SECONDS)
_load()
