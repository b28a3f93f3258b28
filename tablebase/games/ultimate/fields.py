"""What the compiled searches of Ultimate tic-tac-toe (:mod:`.search`) know of a position, with numba:
the legal moves and each child's table key, who can still make a line of fields and how soon,
and the wins at once a move hands over or sets up.

A position is the x and o marks of each field (``xf``, ``of``: nine 9-bit patterns each),
the fields won by x and by o (``wx``, ``wo``), the active field (9: any) and the side to
move (0: x). A state is keyed by three 63-bit words: the x marks of fields 0-6; the x marks
of fields 7-8 and the o marks of fields 0-4; the o marks of fields 5-8, the
fields won by x and by o and the active field (the bits of
:mod:`tablebase.games.ultimate.rules` shifted to fit), with the marks of settled
fields folded as :func:`words` says.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

from tablebase.games.common.compiled import kernel
from tablebase.games.ultimate import lines
from tablebase.games.ultimate.lines import UNREACHABLE as UNREACHABLE

LINE = np.array(lines.LINE, dtype=np.bool_)
FREE = np.array([9 - bin(b).count("1") for b in range(512)], dtype=np.int64)
#: ``OPEN[p]``: some line of a field holds none of the marks ``p`` (the other side can still take the field).
OPEN = np.array([any(b & ln == 0 for ln in lines.LINES) for b in range(512)], dtype=np.bool_)
#: ``NEED[512 * mine + other]``: :func:`tablebase.games.ultimate.lines.need_table` as an array
#: (:data:`UNREACHABLE` for a field a side can no longer take; summed, any sum of at least it is a
#: line of fields it can no longer make).
NEED = np.frombuffer(lines.need_table(), dtype=np.int8)


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

#: The low 63, 45 and 81 bits: the parts of the marks each word of a key holds (:func:`words`), and a
#: side's marks (the rules load the searches, so this module does not import the rules).
M81 = (1 << 81) - 1
M63 = (1 << 63) - 1
M45 = (1 << 45) - 1

#: The types the compiled searches pass: a word or value, a flag, a row of numbers (a side's
#: fields, threats, moves). Each kernel is compiled for the types it declares alone, once.
INT, FLAG, ROW = types.int64, types.boolean, types.int64[::1]


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


@kernel((ROW, ROW, INT, INT, INT), python=False)
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
def _need(need: np.ndarray, mine: np.ndarray, other: np.ndarray, mine_won: int, other_won: int) -> int:
    """The fewest marks a side that holds ``mine`` and has won the fields ``mine_won`` still needs
    to make a line of fields (a field won by either side is settled); :data:`UNREACHABLE` or more
    when it cannot make one any more. ``need``: :data:`NEED`."""
    f0 = 0 if mine_won & 1 else UNREACHABLE if other_won & 1 else need[512 * mine[0] + other[0]]
    f1 = 0 if mine_won & 2 else UNREACHABLE if other_won & 2 else need[512 * mine[1] + other[1]]
    f2 = 0 if mine_won & 4 else UNREACHABLE if other_won & 4 else need[512 * mine[2] + other[2]]
    f3 = 0 if mine_won & 8 else UNREACHABLE if other_won & 8 else need[512 * mine[3] + other[3]]
    f4 = 0 if mine_won & 16 else UNREACHABLE if other_won & 16 else need[512 * mine[4] + other[4]]
    f5 = 0 if mine_won & 32 else UNREACHABLE if other_won & 32 else need[512 * mine[5] + other[5]]
    f6 = 0 if mine_won & 64 else UNREACHABLE if other_won & 64 else need[512 * mine[6] + other[6]]
    f7 = 0 if mine_won & 128 else UNREACHABLE if other_won & 128 else need[512 * mine[7] + other[7]]
    f8 = 0 if mine_won & 256 else UNREACHABLE if other_won & 256 else need[512 * mine[8] + other[8]]
    best = min(f0 + f1 + f2, f3 + f4 + f5, f6 + f7 + f8, f0 + f3 + f6, f1 + f4 + f7, f2 + f5 + f8)
    best = min(best, f0 + f4 + f8, f2 + f4 + f6)
    return int(best)


@njit(cache=True, inline="always")
def _needs(xf: np.ndarray, of: np.ndarray, wx: int, wo: int, mover: int) -> tuple[int, int]:
    """:func:`_need` of the side to move and of the other side (inlined where it is called: called,
    it cost the distance search about 5 % of its nodes a second)."""
    need = NEED  # read once: numba puts a copy of the 256 KB table in the code for each read
    nx = _need(need, xf, of, wx, wo)
    no = _need(need, of, xf, wo, wx)
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


@kernel((ROW, ROW, INT, INT, INT, ROW))
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


@kernel((ROW, ROW, INT, INT, FLAG, ROW, INT, ROW, INT, INT, FLAG, INT), python=False)
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


#: How a move ends the game: it does not, the mover wins, a draw (every field closed).
GOES_ON, WINS, DRAWS = 2, 1, 0


@kernel((ROW, ROW, INT, INT, FLAG, ROW))
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


@kernel((ROW, ROW, *[INT] * 8, FLAG, INT))
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
