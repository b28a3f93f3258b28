"""The outcome search of Ultimate tic-tac-toe compiled with numba (an optional dependency).

:class:`OutcomeTable` is what :meth:`tablebase.games.ultimate.Ultimate.outcome_table`
returns when numba is installed: the win/draw/loss alpha-beta of
:mod:`tablebase.solve.search` (same move ordering, same fail-soft bounds)
run as machine code over the fields of the board, with its transposition
table in numpy arrays. The table is a cache of proved bounds: an entry may be
overwritten when its slots are taken, never made wrong. Both searches also
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

A state is keyed by three 63-bit words: the x marks of fields 0-6; the x marks
of fields 7-8 and the o marks of fields 0-4; the o marks of fields 5-8, the
fields won by x and by o and the active field (the layout of
:mod:`tablebase.games.ultimate.rules` shifted to fit), with the marks of settled
fields folded as :func:`words` says.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from tablebase.scores import INF, M, settle, shift, unshift

_LINES = (0b000000111, 0b000111000, 0b111000000, 0b001001001, 0b010010010, 0b100100100, 0b100010001, 0b001010100)
LINE = np.array([any(b & ln == ln for ln in _LINES) for b in range(512)], dtype=np.bool_)
FREE = np.array([9 - bin(b).count("1") for b in range(512)], dtype=np.int64)
#: ``OPEN[p]``: some line of a field holds none of the marks ``p`` (the other side can still take the field).
OPEN = np.array([any(b & ln == 0 for ln in _LINES) for b in range(512)], dtype=np.bool_)

#: What :data:`NEED` gives for a field a side can no longer take (and, summed, for a line of
#: fields it can no longer make: any sum of at least this).
UNREACHABLE = 30


def _field_needs() -> np.ndarray:
    need = np.full((512, 512), UNREACHABLE, dtype=np.int64)
    other = np.arange(512)[None, :]
    for ln in _LINES:
        cost = np.array([bin(ln & ~m).count("1") for m in range(512)], dtype=np.int64)[:, None]
        need = np.where((other & ln) == 0, np.minimum(need, cost), need)
    return need.astype(np.int8).ravel()


#: ``NEED[512 * mine + other]``: the fewest marks a side holding the spots ``mine`` of a field
#: still needs to complete a line of it where the other side holds ``other``
#: (:data:`UNREACHABLE` when every line holds an opposing mark).
NEED = _field_needs()


def _field_wins() -> np.ndarray:
    mine = np.arange(512)[:, None]
    other = np.arange(512)[None, :]
    wins = np.zeros((512, 512), dtype=np.int64)
    for s in range(9):
        completes = np.array([LINE[m | (1 << s)] and not LINE[m] for m in range(512)])[:, None]
        wins |= np.where(completes & (((mine | other) >> s) & 1 == 0), 1 << s, 0)
    return wins.astype(np.int16).ravel()


#: ``WINS_FIELD[512 * mine + other]``: the empty spots of a field where a side holding ``mine``
#: (and no line of it yet) completes a line, the other side holding ``other``.
WINS_FIELD = _field_wins()

#: Returned through the recursion when the node budget is spent.
ABORT = 100
#: A free slot of a table (zeroed memory: the pages are only touched when used) and the tag
#: of a used one, set on the third word (whose bits 58 up are free).
EMPTY = 0
USED = 1 << 62
PROBES = 16
M63 = (1 << 63) - 1
M45 = (1 << 45) - 1
M81 = (1 << 81) - 1


@njit(cache=True, inline="always")
def _slot(w0: int, w1: int, w2: int, mask: int) -> int:
    h = w0 ^ ((w1 << 3) & 0x7FFFFFFFFFFFFFFF) ^ ((w2 << 5) & 0x7FFFFFFFFFFFFFFF) ^ (w0 >> 31) ^ (w1 >> 29) ^ (w2 >> 23)
    h ^= h >> 29
    return h & mask


@njit(cache=True)
def _find(keys: np.ndarray, w0: int, w1: int, w2: int) -> int:
    mask = keys.shape[0] - 1
    i = _slot(w0, w1, w2, mask)
    for _ in range(PROBES):
        if keys[i, 2] == EMPTY:
            return -1
        if keys[i, 2] == (w2 | USED) and keys[i, 0] == w0 and keys[i, 1] == w1:
            return i
        i = (i + 1) & mask
    return -1


@njit(cache=True)
def _get(keys: np.ndarray, vals: np.ndarray, w0: int, w1: int, w2: int) -> int:
    """The entry of a state packed in one int (-1 if absent): ``(lo + 1) * 1024 + (hi + 1) * 256 + best + 1``."""
    at = _find(keys, w0, w1, w2)
    if at < 0:
        return -1
    return int((vals[at, 0] + 1) * 1024 + (vals[at, 1] + 1) * 256 + vals[at, 2] + 1)


@njit(cache=True)
def _store(keys: np.ndarray, vals: np.ndarray, w0: int, w1: int, w2: int, lo: int, hi: int, best: int) -> None:
    mask = keys.shape[0] - 1
    first = _slot(w0, w1, w2, mask)
    i = first
    for _ in range(PROBES):
        if keys[i, 2] == EMPTY or (keys[i, 2] == (w2 | USED) and keys[i, 0] == w0 and keys[i, 1] == w1):
            break
        i = (i + 1) & mask
    else:
        i = first  # every slot taken: forget the first one's entry
    keys[i, 0] = w0
    keys[i, 1] = w1
    keys[i, 2] = w2 | USED
    vals[i, 0] = lo
    vals[i, 1] = hi
    vals[i, 2] = best


@njit(cache=True, inline="always")
def _can_win(mine_won: int, other_won: int, other: np.ndarray) -> bool:
    """Whether a side that has won the fields ``mine_won`` can still make a line of fields: some
    line has only fields it won or can still win (not won yet, with a line free of ``other``'s marks)."""
    possible = mine_won
    taken = mine_won | other_won
    for f in range(9):
        if not (taken >> f) & 1 and OPEN[other[f]]:
            possible |= 1 << f
    can: bool = LINE[possible]
    return can


@njit(cache=True, inline="always")
def _knowledge(xf: np.ndarray, of: np.ndarray, wx: int, wo: int, mover: int) -> tuple[int, int]:
    """Bounds ``(lo, hi)`` on the value for ``mover`` from who can still make a line of fields:
    at most 0 when the mover cannot, at least 0 when the opponent cannot."""
    if mover == 0:
        me = _can_win(wx, wo, of)
        you = _can_win(wo, wx, xf)
    else:
        me = _can_win(wo, wx, xf)
        you = _can_win(wx, wo, of)
    return (-1 if you else 0), (1 if me else 0)


@njit(cache=True, inline="always")
def _need(mine: np.ndarray, other: np.ndarray, mine_won: int, other_won: int) -> int:
    """The fewest marks a side that holds ``mine`` and has won the fields ``mine_won`` still needs
    to make a line of fields (a field won by either side is settled); :data:`UNREACHABLE` or more
    when it cannot make one any more."""
    f0 = 0 if mine_won & 1 else UNREACHABLE if other_won & 1 else NEED[512 * mine[0] + other[0]]
    f1 = 0 if mine_won & 2 else UNREACHABLE if other_won & 2 else NEED[512 * mine[1] + other[1]]
    f2 = 0 if mine_won & 4 else UNREACHABLE if other_won & 4 else NEED[512 * mine[2] + other[2]]
    f3 = 0 if mine_won & 8 else UNREACHABLE if other_won & 8 else NEED[512 * mine[3] + other[3]]
    f4 = 0 if mine_won & 16 else UNREACHABLE if other_won & 16 else NEED[512 * mine[4] + other[4]]
    f5 = 0 if mine_won & 32 else UNREACHABLE if other_won & 32 else NEED[512 * mine[5] + other[5]]
    f6 = 0 if mine_won & 64 else UNREACHABLE if other_won & 64 else NEED[512 * mine[6] + other[6]]
    f7 = 0 if mine_won & 128 else UNREACHABLE if other_won & 128 else NEED[512 * mine[7] + other[7]]
    f8 = 0 if mine_won & 256 else UNREACHABLE if other_won & 256 else NEED[512 * mine[8] + other[8]]
    best = min(f0 + f1 + f2, f3 + f4 + f5, f6 + f7 + f8, f0 + f3 + f6, f1 + f4 + f7, f2 + f5 + f8)
    best = min(best, f0 + f4 + f8, f2 + f4 + f6)
    return int(best)


@njit(cache=True, inline="always")
def _needs(xf: np.ndarray, of: np.ndarray, wx: int, wo: int, mover: int) -> tuple[int, int]:
    """:func:`_need` of the side to move and of the other side."""
    nx = _need(xf, of, wx, wo)
    no = _need(of, xf, wo, wx)
    return (nx, no) if mover == 0 else (no, nx)


@njit(cache=True, inline="always")
def _in_time(need_mover: int, need_other: int, plies: int) -> tuple[int, int]:
    """:func:`_needs` with :data:`UNREACHABLE` for a side that needs more marks than it can still
    place in the ``plies`` moves left (the mover places every other mark, the first one included)."""
    if need_mover > (plies + 1) // 2:
        need_mover = UNREACHABLE
    if need_other > plies // 2:
        need_other = UNREACHABLE
    return need_mover, need_other


@njit(cache=True, inline="always")
def _threats(xf: np.ndarray, of: np.ndarray, wx: int, wo: int, side: int, out: np.ndarray) -> int:
    """Into ``out``, per field, the spots where ``side`` wins the game at once (completing a line
    of the field that completes a line of fields); returns how many fields have such a spot."""
    mine, other = (xf, of) if side == 0 else (of, xf)
    mine_won = wx if side == 0 else wo
    won = wx | wo
    fields = 0
    for g in range(9):
        if (won >> g) & 1 or not LINE[mine_won | (1 << g)]:
            out[g] = 0
        else:
            out[g] = WINS_FIELD[512 * mine[g] + other[g]]
            if out[g]:
                fields += 1
    return fields


@njit(cache=True, inline="always")
def _hands_a_win(threats: np.ndarray, fields: int, m: int, wins_field: bool, child_active: int) -> bool:
    """Whether move ``m`` lets the other side win at once: it is sent to a field where it wins the
    game in one move (or may choose one). ``threats`` and ``fields``: :func:`_threats` of that side
    before the move."""
    f = m // 9
    left = 0 if wins_field else threats[f] & ~(1 << (m % 9))
    if child_active == 9:
        return left != 0 or fields - (1 if threats[f] else 0) > 0
    return (left if child_active == f else threats[child_active]) != 0


@njit(cache=True, inline="always")
def _trapped(
    xf: np.ndarray, of: np.ndarray, won: int, mover: int, classic: bool, threats: np.ndarray, fields: int,
    m: int, wins_field: bool, a: int,
) -> bool:
    """Whether, after the mover's move ``m`` (sending the other side to field ``a``), every reply
    there sends the mover where it wins the game at once. ``threats`` and ``fields``:
    :func:`_threats` of the mover before the move (its threats after are as many or more)."""
    f = m // 9
    bit = 1 << (m % 9)
    tf = 0 if wins_field else threats[f] & ~bit
    fields += (1 if tf else 0) - (1 if threats[f] else 0)
    won_after = won | (1 << f) if wins_field else won
    theirs = of[a] if mover == 0 else xf[a]
    occupied = xf[a] | of[a] | (bit if a == f else 0)
    ta = tf if a == f else threats[a]
    for s in range(9):
        b = 1 << s
        if occupied & b:
            continue
        takes = not (won_after >> a) & 1 and LINE[theirs | b]
        ta_after = 0 if takes else ta & ~b
        if s == a:
            shut = (occupied | b) == 511 or (classic and (takes or (won_after >> a) & 1))
        else:
            shut = (xf[s] | of[s] | (bit if s == f else 0)) == 511 or (classic and (won_after >> s) & 1)
        if shut:
            if fields - (1 if ta else 0) + (1 if ta_after else 0) <= 0:
                return False
        elif (ta_after if s == a else tf if s == f else threats[s]) == 0:
            return False
    return True


#: What :func:`_at_once` says of a move: nothing, it hands the other side a win, it traps the other side.
OPEN_MOVE, HANDS_A_WIN, TRAPS = 0, 1, 2


@njit(cache=True, inline="always")
def _at_once(
    xf: np.ndarray, of: np.ndarray, won: int, mover: int, classic: bool, theirs: np.ndarray, their_fields: int,
    mine: np.ndarray, my_fields: int, m: int, wins_field: bool, child_active: int,
) -> int:
    """What the immediate wins say of the mover's move ``m`` (one that does not end the game):
    :data:`HANDS_A_WIN` (:func:`_hands_a_win`), :data:`TRAPS` (:func:`_trapped`: a win in 3) or
    :data:`OPEN_MOVE`. ``theirs``/``mine`` and their counts: :func:`_threats` of each side."""
    if their_fields and _hands_a_win(theirs, their_fields, m, wins_field, child_active):
        return HANDS_A_WIN
    if my_fields and child_active != 9 and _trapped(
        xf, of, won, mover, classic, mine, my_fields, m, wins_field, child_active
    ):
        return TRAPS
    return OPEN_MOVE


ENTER, NEXT, RETURN = 0, 1, 2
DEPTH = 82
#: How a move ends the game: it does not, the mover wins, a draw (every field closed).
GOES_ON, WINS, DRAWS = 2, 1, 0


@njit(cache=True, inline="always")
def _moves(xf: np.ndarray, of: np.ndarray, won: int, active: int, classic: bool, out: np.ndarray) -> tuple[int, int, int]:
    """The legal moves into ``out``: ``(how many, closed fields, free spots in open fields)``."""
    closed = 0
    free_open = 0
    for f in range(9):
        occ = xf[f] | of[f]
        if occ == 511 or (classic and (won >> f) & 1):
            closed |= 1 << f
        else:
            free_open += FREE[occ]
    n = 0
    if active != 9:
        occ = xf[active] | of[active]
        for s in range(9):
            if not (occ >> s) & 1:
                out[n] = 9 * active + s
                n += 1
    else:
        for f in range(9):
            if not (closed >> f) & 1:
                occ = xf[f] | of[f]
                for s in range(9):
                    if not (occ >> s) & 1:
                        out[n] = 9 * f + s
                        n += 1
    return n, closed, free_open


@njit(cache=True, inline="always")
def _settle_field(w0: int, w1: int, w2: int, f: int, occupied: int, flags: int) -> tuple[int, int, int]:
    """The key words with field ``f`` settled: its spots ``occupied`` as x marks, no o marks, ``flags`` set."""
    if f < 7:
        w0 = (w0 & ~(511 << (9 * f))) | (occupied << (9 * f))
    else:
        w1 = (w1 & ~(511 << (9 * (f - 7)))) | (occupied << (9 * (f - 7)))
    if f < 5:
        w1 &= ~(511 << (18 + 9 * f))
    else:
        w2 &= ~(511 << (9 * (f - 5)))
    return w0, w1, w2 | flags


@njit(cache=True, inline="always")
def _child(
    xf: np.ndarray, of: np.ndarray, w0: int, w1: int, w2: int, won: int, mine_won: int, mover: int,
    closed: int, free_open: int, classic: bool, m: int,
) -> tuple[int, bool, int, int, int, int]:
    """Move ``m``: ``(GOES_ON/WINS/DRAWS, wins its field, the child's three words, its move count)``."""
    f = m // 9
    s = m % 9
    bit = 1 << s
    field_now = xf[f] | of[f] | bit
    mine = (xf[f] if mover == 0 else of[f]) | bit
    shut = closed
    free = free_open - 1
    if field_now == 511:
        shut |= 1 << f
    wins_field = not (won >> f) & 1 and LINE[mine]
    ends = GOES_ON
    if wins_field:
        if LINE[mine_won | (1 << f)]:
            ends = WINS
        elif classic and field_now != 511:
            shut |= 1 << f
            free -= FREE[field_now]
    a0, a1, a2 = w0, w1, w2
    index = 9 * f + s
    if (won >> f) & 1 or not (OPEN[xf[f]] or OPEN[of[f]]):
        # a settled field: the key holds where its marks are, not whose
        if index < 63:
            a0 |= 1 << index
        else:
            a1 |= 1 << (index - 63)
    elif mover == 0:
        if index < 63:
            a0 |= 1 << index
        else:
            a1 |= 1 << (index - 63)
        if wins_field:
            a2 |= 1 << (36 + f)
    else:
        if index < 45:
            a1 |= 1 << (18 + index)
        else:
            a2 |= 1 << (index - 45)
        if wins_field:
            a2 |= 1 << (45 + f)
    if wins_field:
        a0, a1, a2 = _settle_field(a0, a1, a2, f, field_now, 0)
    elif not (won >> f) & 1 and not (OPEN[mine] or OPEN[field_now ^ mine]):
        a0, a1, a2 = _settle_field(a0, a1, a2, f, field_now, (1 << (36 + f)) | (1 << (45 + f)))
    child_active = 9 if (shut >> s) & 1 else s
    a2 = (a2 & ~(15 << 54)) | (child_active << 54)
    if ends == GOES_ON and shut == 511:
        ends = DRAWS
    if child_active == 9:
        replies = free
    else:
        replies = FREE[field_now if s == f else xf[s] | of[s]]
    return ends, wins_field, a0, a1, a2, replies


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
def _frames() -> tuple:  # type: ignore[type-arg]
    """The explicit stack: per ply, move lists (moves, order, known values, fields won, child words)
    and the node's scalars."""
    two = np.empty((6, DEPTH, 81), dtype=np.int64)
    one = np.empty((17, DEPTH), dtype=np.int64)
    return two, np.empty((DEPTH, 81), dtype=np.bool_), np.empty((DEPTH, 81), dtype=np.bool_), one


@njit(cache=True)
def _search(
    xf: np.ndarray,
    of: np.ndarray,
    wx: int,
    wo: int,
    active: int,
    w0: int,
    w1: int,
    w2: int,
    mover: int,
    classic: bool,
    alpha: int,
    beta: int,
    keys: np.ndarray,
    vals: np.ndarray,
    history: np.ndarray,
    history_cap: int,
    counter: np.ndarray,
) -> int:
    """Fail-soft negamax in -1..1, depth first with an explicit stack (one frame a ply); a move's
    history counts at most ``history_cap`` in the move order."""
    two, newly, isknown, one = _frames()
    moves, order, known, c0, c1, c2 = two[0], two[1], two[2], two[3], two[4], two[5]
    key = np.empty(81, dtype=np.int64)
    fw0, fw1, fw2, fwx, fwo, fact, fmover, fa, fb = one[0], one[1], one[2], one[3], one[4], one[5], one[6], one[7], one[8]
    fa0, flo, fhi, fbest, fbesti, fj, fn, fskip = one[9], one[10], one[11], one[12], one[13], one[14], one[15], one[16]
    fw0[0], fw1[0], fw2[0], fwx[0], fwo[0], fact[0], fmover[0], fa[0], fb[0] = (
        w0, w1, w2, wx, wo, active, mover, alpha, beta
    )
    depth = 0
    mode = ENTER
    ret = 0
    have = False
    value = 0
    while True:
        d = depth
        if mode == ENTER:
            counter[0] += 1
            if counter[0] > counter[1]:
                return ABORT
            w0, w1, w2 = fw0[d], fw1[d], fw2[d]
            alpha, beta = fa[d], fb[d]
            lo, hi, best_index = -1, 1, -1
            at = _find(keys, w0, w1, w2)
            if at >= 0:
                lo, hi, best_index = vals[at, 0], vals[at, 1], vals[at, 2]
            if not (lo >= beta or lo == hi or hi <= alpha):
                # the table does not settle it: what the lines of fields left say
                klo, khi = _knowledge(xf, of, fwx[d], fwo[d], fmover[d])
                if klo > lo:
                    lo = klo
                if khi < hi:
                    hi = khi
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
            wx, wo, active, mover = fwx[d], fwo[d], fact[d], fmover[d]
            won = wx | wo
            n, closed, free_open = _moves(xf, of, won, active, classic, moves[d])
            mine_won = wx if mover == 0 else wo
            immediate = False
            for i in range(n):
                m = moves[d, i]
                ends, wins_field, a0, a1, a2, replies = _child(
                    xf, of, w0, w1, w2, won, mine_won, mover, closed, free_open, classic, m
                )
                if ends == WINS:
                    _store(keys, vals, w0, w1, w2, 1, 1, i)
                    immediate = True
                    break
                newly[d, i] = wins_field
                c0[d, i], c1[d, i], c2[d, i] = a0, a1, a2
                order[d, i] = i
                if ends == DRAWS:
                    known[d, i] = 0
                    key[i] = -(10**9)
                    continue
                known[d, i] = 2
                k = 0
                e = _find(keys, a0, a1, a2)
                if e >= 0:
                    if vals[e, 1] == -1:
                        _store(keys, vals, w0, w1, w2, 1, 1, i)
                        immediate = True
                        break
                    k = (vals[e, 0] + vals[e, 1]) * 10**6
                if i == best_index:
                    k = -(10**8)
                key[i] = k + replies * 1000 - min(history[m], history_cap)
            if immediate:
                ret = 1
                mode = RETURN
                continue
            for i in range(1, n):  # insertion sort by key, stable like Python's sort
                j = i
                item = order[d, i]
                while j > 0 and key[order[d, j - 1]] > key[item]:
                    order[d, j] = order[d, j - 1]
                    j -= 1
                order[d, j] = item
            fn[d], fj[d], fbest[d], fbesti[d] = n, 0, -2, -1
            have = False
            mode = NEXT
            continue
        if mode == NEXT:
            cut = False
            descended = False
            while True:
                if have:
                    have = False
                    v = value
                elif fj[d] < fn[d] and known[d, order[d, fj[d]]] != 2:
                    v = known[d, order[d, fj[d]]]
                elif fj[d] < fn[d]:
                    i = order[d, fj[d]]
                    _descend(xf, of, d, i, moves, newly, c0, c1, c2, fw0, fw1, fw2, fwx, fwo, fact, fmover)
                    e = d + 1
                    fa[e] = -fb[d]
                    fb[e] = -fa[d]
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
                            history[moves[d, i]] += 1
                            cut = True
                fj[d] += 1
                if cut:
                    break
            if descended:
                continue
            best, lo, hi = _settle(fbest[d], flo[d], fhi[d], fa0[d], fb[d])
            _store(keys, vals, fw0[d], fw1[d], fw2[d], lo, hi, fbesti[d])
            ret = best
            mode = RETURN
            continue
        # RETURN: hand the value to the parent frame
        if depth == 0:
            return ret
        depth -= 1
        d = depth
        _undo(xf, of, moves[d, order[d, fj[d]]], fmover[d])
        value = -ret
        have = True
        mode = NEXT


#: Distance scores as in :mod:`tablebase.solve.search` (:data:`tablebase.scores.M`).
DIST_ABORT = 1 << 40


@njit(cache=True)
def _dget(keys: np.ndarray, vals: np.ndarray, w0: int, w1: int, w2: int) -> tuple[bool, int, int, int]:
    at = _find(keys, w0, w1, w2)
    if at < 0:
        return False, 0, 0, -1
    return True, vals[at, 0], vals[at, 1], vals[at, 2]


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


@njit(cache=True)
def _dist(
    xf: np.ndarray,
    of: np.ndarray,
    wx: int,
    wo: int,
    active: int,
    w0: int,
    w1: int,
    w2: int,
    mover: int,
    classic: bool,
    alpha: int,
    beta: int,
    keys: np.ndarray,
    vals: np.ndarray,
    dkeys: np.ndarray,
    dvals: np.ndarray,
    counter: np.ndarray,
) -> int:
    """The distance search of :meth:`tablebase.solve.search.distance._DistanceSearch.dist_search`, with an explicit stack."""
    two, newly, isknown, one = _frames()
    moves, order, known, c0, c1, c2 = two[0], two[1], two[2], two[3], two[4], two[5]
    key = np.empty(81, dtype=np.int64)
    threats = np.empty(9, dtype=np.int64)
    own_threats = np.empty(9, dtype=np.int64)
    fw0, fw1, fw2, fwx, fwo, fact, fmover, fa, fb = one[0], one[1], one[2], one[3], one[4], one[5], one[6], one[7], one[8]
    fa0, flo, fhi, fbest, fbesti, fj, fn, fskip = one[9], one[10], one[11], one[12], one[13], one[14], one[15], one[16]
    fw0[0], fw1[0], fw2[0], fwx[0], fwo[0], fact[0], fmover[0], fa[0], fb[0] = (
        w0, w1, w2, wx, wo, active, mover, alpha, beta
    )
    depth = 0
    mode = ENTER
    ret = 0
    have = False
    value = 0
    while True:
        d = depth
        if mode == ENTER:
            alpha, beta = fa[d], fb[d]
            if alpha >= M - 1:
                ret = M - 1
                mode = RETURN
                continue
            if beta <= 1 - M:
                ret = 1 - M
                mode = RETURN
                continue
            counter[0] += 1
            if counter[0] > counter[1]:
                return DIST_ABORT
            w0, w1, w2 = fw0[d], fw1[d], fw2[d]
            wx, wo, active, mover = fwx[d], fwo[d], fact[d], fmover[d]
            won = wx | wo
            n, closed, free_open = _moves(xf, of, won, active, classic, moves[d])
            plies = free_open
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
            # who can still make a line of fields, and how soon: a win takes the mover at least
            # 2 * need - 1 plies, a loss comes after at least 2 * the other side's need
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
            best_index = -1
            found, elo, ehi, eb = _dget(dkeys, dvals, w0, w1, w2)
            if found:
                if elo > lo:
                    lo = elo
                if ehi < hi:
                    hi = ehi
                best_index = eb
            lo, hi = _parity(lo, hi)
            if lo == hi:
                if not found or elo != ehi:
                    _store(dkeys, dvals, w0, w1, w2, lo, hi, best_index)
                ret = lo
                mode = RETURN
                continue
            if lo >= beta:
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
            mine_won = wx if mover == 0 else wo
            fields = _threats(xf, of, wx, wo, 1 - mover, threats)
            own = _threats(xf, of, wx, wo, mover, own_threats)
            skipped = False
            count = 0
            for i in range(n):
                m = moves[d, i]
                ends, wins_field, a0, a1, a2, replies = _child(
                    xf, of, w0, w1, w2, won, mine_won, mover, closed, free_open, classic, m
                )
                newly[d, i] = wins_field
                c0[d, i], c1[d, i], c2[d, i] = a0, a1, a2
                if ends != GOES_ON:
                    isknown[d, i] = True
                    known[d, i] = M - 1 if ends == WINS else 0
                    key[i] = (((-3 * M + 4 * M) * (1 << 23) + 2 * M) * 128) * 128 + i
                    order[d, count] = i
                    count += 1
                    continue
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
                    order[d, count] = i
                    count += 1
                    continue
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
                cf, cl, ch, cb = _dget(dkeys, dvals, a0, a1, a2)
                if cf:
                    if cl > clo:
                        clo = cl
                    if ch < chi:
                        chi = ch
                clo, chi = _parity(clo, chi)
                if i == best_index:
                    chi = -3 * M + 1
                isknown[d, i] = False
                key[i] = (((chi + 4 * M) * (1 << 23) + (clo + 2 * M)) * 128 + replies) * 128 + i
                order[d, count] = i
                count += 1
            n = count
            for i in range(1, n):  # insertion sort by key
                j = i
                item = order[d, i]
                while j > 0 and key[order[d, j - 1]] > key[item]:
                    order[d, j] = order[d, j - 1]
                    j -= 1
                order[d, j] = item
            fn[d], fj[d], fbest[d], fbesti[d], fskip[d] = n, 0, -INF, -1, 1 if skipped else 0
            have = False
            mode = NEXT
            continue
        if mode == NEXT:
            descended = False
            cut = False
            while True:
                if have:
                    have = False
                    v = value
                elif fj[d] < fn[d] and isknown[d, order[d, fj[d]]]:
                    v = known[d, order[d, fj[d]]]
                elif fj[d] < fn[d]:
                    i = order[d, fj[d]]
                    _descend(xf, of, d, i, moves, newly, c0, c1, c2, fw0, fw1, fw2, fwx, fwo, fact, fmover)
                    e = d + 1
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
                            cut = True
                fj[d] += 1
                if cut:
                    break
            if descended:
                continue
            best = 0 if fskip[d] != 0 and fbest[d] < 0 else fbest[d]  # the skipped moves are worth at most 0
            best, lo, hi = _settle(best, flo[d], fhi[d], fa0[d], fb[d])
            _store(dkeys, dvals, fw0[d], fw1[d], fw2[d], lo, hi, fbesti[d])
            ret = best
            mode = RETURN
            continue
        if depth == 0:
            return ret
        depth -= 1
        d = depth
        _undo(xf, of, moves[d, order[d, fj[d]]], fmover[d])
        value = _shift(-ret)
        have = True
        mode = NEXT


#: Proof and disproof numbers: ``PN_INF`` stands for a proved (or disproved) proposition; sums stop below it.
PN_INF = 1 << 50
#: The bit of a proof table key's third word (free in every state's) set for the proposition "value >= 1"
#: (clear: "value >= 0").
TARGET_BIT = 1 << 58
#: Returned by :func:`_dfpn` when the node budget is spent.
DFPN_ABORT = -1


@njit(cache=True)
def _pstore(keys: np.ndarray, vals: np.ndarray, w0: int, w1: int, w2: int, pn: int, dn: int, work: int) -> None:
    """Store proof and disproof numbers; when all probed slots are taken, replace the entry of least work."""
    mask = keys.shape[0] - 1
    i = _slot(w0, w1, w2, mask)
    victim = i
    least = vals[i, 2]
    for _ in range(PROBES):
        if keys[i, 2] == EMPTY or (keys[i, 2] == (w2 | USED) and keys[i, 0] == w0 and keys[i, 1] == w1):
            break
        if vals[i, 2] < least:
            least = vals[i, 2]
            victim = i
        i = (i + 1) & mask
    else:
        i = victim
    keys[i, 0] = w0
    keys[i, 1] = w1
    keys[i, 2] = w2 | USED
    vals[i, 0] = pn
    vals[i, 1] = dn
    vals[i, 2] = work


@njit(cache=True, inline="always")
def _bound(keys: np.ndarray, vals: np.ndarray, w0: int, w1: int, w2: int, lo: int, hi: int, best: int) -> None:
    """Narrow the outcome table's entry of a state to ``lo..hi`` (``best``: the move that proves ``lo``)."""
    at = _find(keys, w0, w1, w2)
    old_lo, old_hi, old_best = -1, 1, -1
    if at >= 0:
        old_lo, old_hi, old_best = int(vals[at, 0]), int(vals[at, 1]), int(vals[at, 2])
    if lo > old_lo:
        old_lo = lo
        old_best = best
    if hi < old_hi:
        old_hi = hi
    _store(keys, vals, w0, w1, w2, old_lo, old_hi, old_best)


@njit(cache=True)
def _dfpn(
    xf: np.ndarray,
    of: np.ndarray,
    wx: int,
    wo: int,
    active: int,
    w0: int,
    w1: int,
    w2: int,
    mover: int,
    classic: bool,
    target: int,
    epsilon: int,
    keys: np.ndarray,
    vals: np.ndarray,
    pkeys: np.ndarray,
    pvals: np.ndarray,
    counter: np.ndarray,
) -> int:
    """Depth-first proof-number search of "the value for the side to move is at least ``target``"
    (1 or 0): 1 proved, 0 disproved, :data:`DFPN_ABORT` when the budget is spent.

    Negamax form: a node's proposition holds when some child's ("the child's value is at least
    ``1 - target``") fails, so its proof number is the least of its children's disproof numbers
    and its disproof number the sum of their proof numbers. Settled propositions go to the
    outcome table (``keys``, ``vals``) as bounds; the others' numbers to the proof table
    (``pkeys``, ``pvals``: proof number, disproof number, nodes of the last search below).
    A child the tables do not know starts from what the lines of fields say, else from the marks
    each side still needs to make one (:func:`_need`) and its count of moves: "the child's mover
    wins" from proof number its need and disproof number its moves, "the child's mover does not
    lose" from proof number 1 and disproof number its moves times the parent's mover's need. A child's disproof threshold is the
    second-best child's times ``1 + 1 / epsilon``."""
    two, newly, isknown, one = _frames()
    moves, c0, c1, c2 = two[0], two[3], two[4], two[5]
    cpn = np.empty((DEPTH, 81), dtype=np.int64)
    cdn = np.empty((DEPTH, 81), dtype=np.int64)
    threats = np.empty(9, dtype=np.int64)
    own_threats = np.empty(9, dtype=np.int64)
    fw0, fw1, fw2, fwx, fwo, fact, fmover = one[0], one[1], one[2], one[3], one[4], one[5], one[6]
    ft, fthpn, fthdn, fwork, fpick, fn = one[7], one[8], one[9], one[10], one[11], one[12]
    at = _find(keys, w0, w1, w2)
    if at >= 0:
        if vals[at, 0] >= target:
            return 1
        if vals[at, 1] < target:
            return 0
    klo, khi = _knowledge(xf, of, wx, wo, mover)
    if klo >= target:
        return 1
    if khi < target:
        return 0
    fw0[0], fw1[0], fw2[0], fwx[0], fwo[0], fact[0], fmover[0] = w0, w1, w2, wx, wo, active, mover
    ft[0], fthpn[0], fthdn[0] = target, PN_INF, PN_INF
    depth = 0
    mode = ENTER
    rpn = 0
    rdn = 0
    while True:
        d = depth
        if mode == ENTER:
            counter[0] += 1
            if counter[0] > counter[1]:
                return DFPN_ABORT
            fwork[d] = counter[0]
            w0, w1, w2 = fw0[d], fw1[d], fw2[d]
            wx, wo, active, mover = fwx[d], fwo[d], fact[d], fmover[d]
            t = ft[d]
            tc = 1 - t
            won = wx | wo
            n, closed, free_open = _moves(xf, of, won, active, classic, moves[d])
            mine_won = wx if mover == 0 else wo
            fields = _threats(xf, of, wx, wo, 1 - mover, threats)
            own = _threats(xf, of, wx, wo, mover, own_threats)
            pick = -1
            for i in range(n):
                m = moves[d, i]
                ends, wins_field, a0, a1, a2, replies = _child(
                    xf, of, w0, w1, w2, won, mine_won, mover, closed, free_open, classic, m
                )
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
                newly[d, i] = wins_field
                c0[d, i], c1[d, i], c2[d, i] = a0, a1, a2
                e = _find(keys, a0, a1, a2)
                if e >= 0:
                    if vals[e, 1] < tc:
                        pick = i
                        break
                    if vals[e, 0] >= tc:
                        cpn[d, i] = 0
                        cdn[d, i] = PN_INF
                        continue
                p = _find(pkeys, a0, a1, a2 | (TARGET_BIT if tc == 1 else 0))
                if p >= 0:
                    cpn[d, i] = pvals[p, 0]
                    cdn[d, i] = pvals[p, 1]
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
            if pick >= 0:
                _bound(keys, vals, w0, w1, w2, t, 1, pick)
                rpn, rdn = 0, PN_INF
                mode = RETURN
                continue
            fn[d] = n
            mode = NEXT
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
                rpn, rdn = 0, PN_INF
                mode = RETURN
                continue
            if dn == 0:
                _bound(keys, vals, fw0[d], fw1[d], fw2[d], -1, t - 1, -1)
                rpn, rdn = PN_INF, 0
                mode = RETURN
                continue
            if dn >= PN_INF:
                dn = PN_INF - 1
            if dn2 > PN_INF:
                dn2 = PN_INF
            if pn >= fthpn[d] or dn >= fthdn[d]:
                _pstore(
                    pkeys, pvals, fw0[d], fw1[d], fw2[d] | (TARGET_BIT if t == 1 else 0), pn, dn,
                    counter[0] - fwork[d],
                )
                rpn, rdn = pn, dn
                mode = RETURN
                continue
            e = d + 1
            thpn = fthdn[d] - dn + cpn[d, best]
            grown = dn2 + dn2 // epsilon
            if grown < dn2 + 1:
                grown = dn2 + 1
            thdn = fthpn[d] if fthpn[d] < grown else grown
            fpick[d] = best
            _descend(xf, of, d, best, moves, newly, c0, c1, c2, fw0, fw1, fw2, fwx, fwo, fact, fmover)
            ft[e] = 1 - t
            fthpn[e] = thpn if thpn < PN_INF else PN_INF
            fthdn[e] = thdn
            depth = e
            mode = ENTER
            continue
        # RETURN: hand the numbers to the parent frame
        if depth == 0:
            return 1 if rpn == 0 else 0
        depth -= 1
        d = depth
        i = fpick[d]
        _undo(xf, of, moves[d, i], fmover[d])
        cpn[d, i] = rpn
        cdn[d, i] = rdn
        mode = NEXT


def words(state: int) -> tuple[int, int, int]:
    """The three words of the table key of a state of :mod:`tablebase.games.ultimate.rules`.

    A settled field (won, or one neither side can win any more) changes the
    game only by which of its spots are empty, so its marks all count as x
    marks, and a field neither side can win has both its won bits set (which
    no state has): states that differ only inside settled fields share a key
    (the order in which moves filled them does not matter).
    """
    x = state & M81
    o = (state >> 81) & M81
    high = state >> 162
    won = (high | (high >> 9)) & 511
    for f in range(9):
        xs = (x >> (9 * f)) & 511
        os_ = (o >> (9 * f)) & 511
        if (won >> f) & 1 or not (OPEN[xs] or OPEN[os_]):
            x = (x & ~(511 << (9 * f))) | ((xs | os_) << (9 * f))
            o &= ~(511 << (9 * f))
            if not (won >> f) & 1:
                high |= (1 << f) | (1 << (9 + f))
    return x & M63, (x >> 63) | ((o & M45) << 18), (o >> 45) | (high << 36)


@njit(cache=True)
def _rehash(keys: np.ndarray, vals: np.ndarray, new_keys: np.ndarray, new_vals: np.ndarray) -> None:
    for i in range(keys.shape[0]):
        if keys[i, 2] != EMPTY:
            _store(new_keys, new_vals, keys[i, 0], keys[i, 1], keys[i, 2] ^ USED, vals[i, 0], vals[i, 1], vals[i, 2])


@njit(cache=True)
def _merge(keys: np.ndarray, vals: np.ndarray, other_keys: np.ndarray, other_vals: np.ndarray) -> None:
    for i in range(other_keys.shape[0]):
        _bound(
            keys, vals, other_keys[i, 0], other_keys[i, 1], other_keys[i, 2] ^ USED,
            other_vals[i, 0], other_vals[i, 1], other_vals[i, 2],
        )


#: Slots of a new table (as a power of two); it grows fourfold when half full, up to its limit.
START_BITS = 16


class _Table:
    """A table of bounds ``{state: (lo, hi, best move index)}`` that grows as it fills."""

    def __init__(self, max_bits: int, dtype: type):
        self.bits = min(START_BITS, max_bits)
        self.max_bits = max_bits
        self.keys: np.ndarray = np.zeros((1 << self.bits, 3), dtype=np.int64)
        self.vals: np.ndarray = np.zeros((1 << self.bits, 3), dtype=dtype)
        self.work = 0

    def get(self, state: int) -> tuple[int, int, int] | None:
        found, lo, hi, best = _dget(self.keys, self.vals, *words(state))
        return (int(lo), int(hi), int(best)) if found else None

    def __setitem__(self, state: int, entry: tuple[int, int, int]) -> None:
        _store(self.keys, self.vals, *words(state), *entry)

    def __len__(self) -> int:
        return int(np.count_nonzero(self.keys[:, 2]))

    def note(self, nodes: int) -> None:
        """Count ``nodes`` of search; grow the table when they may have filled half of it."""
        self.work += nodes
        if self.bits < self.max_bits and self.work > (1 << self.bits) // 4:
            self.work = 0
            self.grow(0)

    def grow(self, extra: int) -> None:
        """Grow the table (fourfold at a time, up to its limit) until ``extra`` more entries would
        leave it at most half full."""
        used = len(self)
        bits = self.bits
        while bits < self.max_bits and used + extra > (1 << bits) // 2:
            bits = min(bits + 2, self.max_bits)
        if bits > self.bits:
            keys = np.zeros((1 << bits, 3), dtype=np.int64)
            vals = np.zeros((1 << bits, 3), dtype=self.vals.dtype)
            _rehash(self.keys, self.vals, keys, vals)
            self.bits, self.keys, self.vals = bits, keys, vals


class DistanceTable(_Table):
    """The distance bounds of :meth:`OutcomeTable.distance_search`."""

    def __init__(self, max_bits: int):
        super().__init__(max_bits, np.int64)


class ProofTable(_Table):
    """The proof and disproof numbers of :meth:`OutcomeTable.dfpn` (with the nodes searched below each)."""

    def __init__(self, max_bits: int):
        super().__init__(max_bits, np.int64)


#: The 1 + epsilon trick of :func:`_dfpn`: a child's disproof threshold is the second-best
#: child's times ``1 + 1 / EPSILON``.
EPSILON = 4


class OutcomeTable(_Table):
    """The compiled outcome search and its table of bounds, keyed by state, at most
    ``2 ** max_bits`` entries (and as many for the distances).

    Reads and writes like the ``{state: (lo, hi, best move index)}`` dict of
    the Python search; :meth:`search` runs the negamax of a non-terminal
    state, :meth:`distance_search` the distance search, within a node budget.
    """

    def __init__(self, classic: bool, max_bits: int = 22, history_cap: int = 1 << 62):
        super().__init__(max_bits, np.int8)
        self.classic = classic
        self.history = np.zeros(81, dtype=np.int64)
        self.history_cap = history_cap
        self.counter = np.zeros(2, dtype=np.int64)
        #: The bounds of the distance search, a table of its own.
        self.distances = DistanceTable(max_bits)
        #: The proof and disproof numbers of :meth:`dfpn`'s unsettled positions.
        self.proofs = ProofTable(max_bits)

    def get(self, state: int) -> tuple[int, int, int] | None:
        code = _get(self.keys, self.vals, *words(state))
        if code < 0:
            return None
        return code // 1024 - 1, code // 256 % 4 - 1, code % 256 - 1

    def _start(self, state: int, budget: int) -> tuple[np.ndarray, np.ndarray, int, int, int, int, int, int, int]:
        """The arguments of a compiled search that describe ``state``, with the budget set."""
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
        )

    def distance_search(self, state: int, alpha: int, beta: int, budget: int) -> tuple[int | None, int]:
        """``(fail-soft distance score, nodes)`` of the non-terminal ``state`` (scores of
        :mod:`tablebase.solve.search`; its outcome bounds come from this table); score
        ``None`` when ``budget`` nodes were not enough."""
        value = _dist(
            *self._start(state, budget), self.classic, alpha, beta, self.keys, self.vals,
            self.distances.keys, self.distances.vals, self.counter,
        )
        nodes = int(min(self.counter[0], budget))
        self.distances.note(nodes)
        return (None if value == DIST_ABORT else int(value)), nodes

    def search(self, state: int, alpha: int, beta: int, budget: int) -> tuple[int | None, int]:
        """``(fail-soft value in -1..1, nodes)`` of the non-terminal ``state``; value ``None``
        when ``budget`` nodes were not enough (what was proved stays in the table)."""
        value = _search(
            *self._start(state, budget), self.classic, alpha, beta, self.keys, self.vals, self.history,
            self.history_cap, self.counter,
        )
        nodes = int(min(self.counter[0], budget))
        self.note(nodes)
        return (None if value == ABORT else int(value)), nodes

    def dfpn(self, state: int, target: int, budget: int) -> tuple[bool | None, int]:
        """``(whether the value of the non-terminal ``state`` for its mover is at least ``target``
        (1 or 0), nodes)`` by proof-number search; ``None`` when ``budget`` nodes were not enough.
        What it settles lands in this table as bounds (so the other searches use it); the numbers
        of what it did not settle stay in :attr:`proofs`, for the next call."""
        result = _dfpn(
            *self._start(state, budget), self.classic, target, EPSILON, self.keys, self.vals,
            self.proofs.keys, self.proofs.vals, self.counter,
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


_load()
