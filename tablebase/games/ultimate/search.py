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

from tablebase.games.common.compiled import Beside, announce_compile, kernel, ready
from tablebase.games.compiled_search import CompiledSearch
from tablebase.games.ultimate import steps
from tablebase.games.ultimate.fields import (
    DRAWS,
    FLAG,
    FREE,
    GOES_ON,
    HANDS_A_WIN,
    INT,
    M81,
    OPEN_MOVE,
    ROW,
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
from tablebase.games.ultimate.steps import (
    C0,
    C1,
    C2,
    CDN,
    CPN,
    FA,
    FA0,
    FACT,
    FB,
    FBEST,
    FBESTI,
    FHI,
    FI,
    FJ,
    FLO,
    FMOVER,
    FN,
    FSKIP,
    FT,
    FTHDN,
    FTHPN,
    FW0,
    FW1,
    FW2,
    FWO,
    FWORK,
    FWX,
    HERE,
    KNOWN,
    MOVES,
    ORDER,
    _descend,
    _distance_bounds,
    _narrowed,
    _outcome_bounds,
    _settle,
    _shift,
    _undo,
    _unshift,
)
from tablebase.games.ultimate.table import (
    EMPTY,
    KEYS,
    VALS,
    DistanceTable,
    ProofTable,
    _bound,
    _dget,
    _fetch,
    _find,
    _get,
    _merge,
    _pstore,
    _rehash,
    _store,
    _Table,
)
from tablebase.scores import INF, M

#: About how long compiling the searches takes (seconds, a second core free) when numba's cache lacks them.
COMPILE_SECONDS = 8
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


@njit(cache=True, inline="always")
def _frames() -> tuple:  # type: ignore[type-arg]
    """The explicit stack: per ply, move lists (moves, order, known values, child words, proof and
    disproof numbers; fields won, values known) and the node's scalars."""
    two = np.empty((8, DEPTH, 81), dtype=np.int64)
    one = np.empty((22, DEPTH), dtype=np.int64)
    return two, np.empty((DEPTH, 81), dtype=np.bool_), np.empty((DEPTH, 81), dtype=np.bool_), one


#: The position :func:`_walk` searches (:meth:`OutcomeTable._start`).
BOARD = types.Tuple((ROW, ROW, *[INT] * 7, FLAG))  # type: ignore[no-untyped-call]


@kernel((INT, BOARD, INT, INT, KEYS, VALS[0], KEYS, VALS[1], ROW, INT, INT, ROW))
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
    key = np.empty(81, dtype=np.int64)
    child_ends = np.empty(81, dtype=np.int64)
    child_replies = np.empty(81, dtype=np.int64)
    threats = np.empty(9, dtype=np.int64)
    own_threats = np.empty(9, dtype=np.int64)
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
        one[FT, 0], one[FTHPN, 0], one[FTHDN, 0] = alpha, PN_INF, PN_INF
    one[FW0, 0], one[FW1, 0], one[FW2, 0] = w0, w1, w2
    one[FWX, 0], one[FWO, 0], one[FACT, 0], one[FMOVER, 0] = wx, wo, active, mover
    one[FA, 0], one[FB, 0] = alpha, beta
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
            alpha, beta = one[FA, d], one[FB, d]
            if kind == DISTANCE and (alpha >= M - 1 or beta <= 1 - M):
                # a window beyond every score: answered before it counts as a node
                ret = M - 1 if alpha >= M - 1 else 1 - M
                mode = RETURN
                continue
            counter[0] += 1
            if counter[0] > counter[1]:
                return ABORT if kind == OUTCOME else DIST_ABORT if kind == DISTANCE else DFPN_ABORT
            w0, w1, w2 = one[FW0, d], one[FW1, d], one[FW2, d]
            wx, wo, active, mover = one[FWX, d], one[FWO, d], one[FACT, d], one[FMOVER, d]
            won = wx | wo
            mine_won = wx if mover == 0 else wo
            if kind == OUTCOME:
                lo, hi, best_index = _outcome_bounds(keys, vals, xf, of, wx, wo, mover, w0, w1, w2, alpha, beta)
            else:
                n, closed, free_open = _moves(xf, of, won, active, classic, two[MOVES, d])
            if kind == DISTANCE:
                lo, hi, best_index, exact = _distance_bounds(
                    keys, vals, side_keys, side_vals, xf, of, wx, wo, mover, w0, w1, w2, free_open
                )
                if lo == hi and not exact:
                    _store(side_keys, side_vals, w0, w1, w2, lo, hi, best_index)
            if kind == PROOF:
                one[FWORK, d] = counter[0]
                t = one[FT, d]
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
                one[FA, d], one[FB, d], one[FA0, d], one[FLO, d], one[FHI, d] = alpha, beta, alpha, lo, hi
            if kind == OUTCOME:
                n, closed, free_open = _moves(xf, of, won, active, classic, two[MOVES, d])
            else:
                fields = _threats(xf, of, wx, wo, 1 - mover, threats)
                own = _threats(xf, of, wx, wo, mover, own_threats)
            # each move: the child's words and what is known of it, or the move that settles the node
            pick = -1
            skipped = False
            count = 0
            # every child's words first, its table slots fetched, then what is known of each
            last = n
            for i in range(n):
                ends, wins_field, a0, a1, a2, replies = _child(
                    xf, of, w0, w1, w2, won, mine_won, mover, closed, free_open, classic, two[MOVES, d, i]
                )
                newly[d, i] = wins_field
                two[C0, d, i], two[C1, d, i], two[C2, d, i] = a0, a1, a2
                child_ends[i], child_replies[i] = ends, replies
                if ends == WINS and kind != DISTANCE:
                    last = i + 1
                    break
                if ends == GOES_ON:
                    _fetch(keys, vals, a0, a1, a2)
                    if kind == DISTANCE:
                        _fetch(side_keys, side_vals, a0, a1, a2)
            for i in range(last):
                m = two[MOVES, d, i]
                ends, wins_field, replies = child_ends[i], newly[d, i], child_replies[i]
                a0, a1, a2 = two[C0, d, i], two[C1, d, i], two[C2, d, i]
                isknown[d, i] = ends != GOES_ON
                if kind == OUTCOME:
                    if ends == WINS:
                        pick = i
                        break
                    if ends == DRAWS:
                        two[KNOWN, d, i] = 0
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
                        two[KNOWN, d, i] = M - 1 if ends == WINS else 0
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
                            two[KNOWN, d, i] = _shift(-cv)
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
                        two[CPN, d, i] = 0
                        two[CDN, d, i] = PN_INF
                        continue
                    settles = _at_once(
                        xf, of, won, mover, classic, threats, fields, own_threats, own, m, wins_field, (a2 >> 54) & 15
                    )
                    if settles == HANDS_A_WIN:
                        two[CPN, d, i] = 0
                        two[CDN, d, i] = PN_INF
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
                            two[CPN, d, i] = 0
                            two[CDN, d, i] = PN_INF
                            continue
                    p = _find(side_keys, a0, a1, a2 | (TARGET_BIT if tc == 1 else 0))
                    if p >= 0:
                        two[CPN, d, i] = side_vals[p, 0]
                        two[CDN, d, i] = side_vals[p, 1]
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
                        two[CPN, d, i] = 0
                        two[CDN, d, i] = PN_INF
                        continue
                    # "the child's mover wins": as many moves to prove as the marks it still needs;
                    # "it does not lose": to disprove, every reply refuted, each the more work the
                    # more marks the parent's mover still needs
                    if tc == 1:
                        two[CPN, d, i] = n_child
                        two[CDN, d, i] = replies if replies > 0 else 1
                    else:
                        two[CPN, d, i] = 1
                        two[CDN, d, i] = (replies if replies > 0 else 1) * n_parent
                two[ORDER, d, count] = i
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
                one[FN, d] = n
            else:
                for i in range(1, count):  # insertion sort by key, stable like Python's sort
                    j = i
                    item = two[ORDER, d, i]
                    while j > 0 and key[two[ORDER, d, j - 1]] > key[item]:
                        two[ORDER, d, j] = two[ORDER, d, j - 1]
                        j -= 1
                    two[ORDER, d, j] = item
                one[FN, d], one[FJ, d], one[FSKIP, d] = count, 0, 1 if skipped else 0
                one[FBEST, d], one[FBESTI, d] = -INF, -1
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
                elif one[FJ, d] < one[FN, d] and isknown[d, two[ORDER, d, one[FJ, d]]]:
                    v = two[KNOWN, d, two[ORDER, d, one[FJ, d]]]
                elif one[FJ, d] < one[FN, d]:
                    i = two[ORDER, d, one[FJ, d]]
                    one[FI, d] = i
                    _descend(xf, of, d, i, two, newly, one)
                    e = d + 1
                    if kind == OUTCOME:
                        one[FA, e] = -one[FB, d]
                        one[FB, e] = -one[FA, d]
                    else:
                        one[FA, e] = -_unshift(one[FB, d])
                        one[FB, e] = -_unshift(one[FA, d])
                    depth = e
                    mode = ENTER
                    descended = True
                    break
                else:
                    break
                i = two[ORDER, d, one[FJ, d]]
                if v > one[FBEST, d]:
                    one[FBEST, d] = v
                    one[FBESTI, d] = i
                    if v > one[FA, d]:
                        one[FA, d] = v
                        if v >= one[FB, d]:
                            if kind == OUTCOME:
                                history[two[MOVES, d, i]] += 1
                            cut = True
                one[FJ, d] += 1
                if cut:
                    break
            if descended:
                continue
            best = 0 if one[FSKIP, d] != 0 and one[FBEST, d] < 0 else one[FBEST, d]  # the skipped moves are worth at most 0
            best, lo, hi = _settle(best, one[FLO, d], one[FHI, d], one[FA0, d], one[FB, d])
            if kind == OUTCOME:
                _store(keys, vals, one[FW0, d], one[FW1, d], one[FW2, d], lo, hi, one[FBESTI, d])
            else:
                _store(side_keys, side_vals, one[FW0, d], one[FW1, d], one[FW2, d], lo, hi, one[FBESTI, d])
            ret = best
            mode = RETURN
            continue
        if mode == NEXT:
            n = one[FN, d]
            t = one[FT, d]
            pn = PN_INF + 1
            dn2 = PN_INF
            dn = 0
            best = -1
            for i in range(n):
                x = two[CDN, d, i]
                if x < pn:
                    dn2 = pn
                    pn = x
                    best = i
                elif x < dn2:
                    dn2 = x
                dn += two[CPN, d, i]
            if pn == 0:
                _bound(keys, vals, one[FW0, d], one[FW1, d], one[FW2, d], t, 1, best)
                ret, ret2 = 0, PN_INF
                mode = RETURN
                continue
            if dn == 0:
                _bound(keys, vals, one[FW0, d], one[FW1, d], one[FW2, d], -1, t - 1, -1)
                ret, ret2 = PN_INF, 0
                mode = RETURN
                continue
            if dn >= PN_INF:
                dn = PN_INF - 1
            if dn2 > PN_INF:
                dn2 = PN_INF
            if pn >= one[FTHPN, d] or dn >= one[FTHDN, d]:
                _pstore(
                    side_keys, side_vals, one[FW0, d], one[FW1, d], one[FW2, d] | (TARGET_BIT if t == 1 else 0), pn, dn,
                    counter[0] - one[FWORK, d],
                )
                ret, ret2 = pn, dn
                mode = RETURN
                continue
            e = d + 1
            thpn = one[FTHDN, d] - dn + two[CPN, d, best]
            grown = dn2 + dn2 // epsilon
            if grown < dn2 + 1:
                grown = dn2 + 1
            thdn = one[FTHPN, d] if one[FTHPN, d] < grown else grown
            one[FI, d] = best
            _descend(xf, of, d, best, two, newly, one)
            one[FT, e] = 1 - t
            one[FTHPN, e] = thpn if thpn < PN_INF else PN_INF
            one[FTHDN, e] = thdn
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
        i = one[FI, d]
        _undo(xf, of, two[MOVES, d, i], one[FMOVER, d])
        if kind == PROOF:
            two[CPN, d, i] = ret
            two[CDN, d, i] = ret2
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


#: What Python calls: loaded from numba's cache when they are all there (what only they call is in
#: their machine code), else compiled with what they call.
ENTRIES = (_walk, _find, _store, _get, _dget, _rehash, _merge)


def _prepare() -> None:
    """Load the kernels from numba's cache, or compile them after saying so (a first use: what the
    walk calls shared with a second process, :data:`.steps.BESIDE`); on import, not inside a timed
    search."""
    if not announce_compile("the ultimate search", ENTRIES, COMPILE_SECONDS):
        ready(ENTRIES)
        return
    beside = Beside(steps.__name__)
    ready(HERE)
    beside.wait(0)
    ready((_walk,))
    beside.wait(1)


_prepare()
