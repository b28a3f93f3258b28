"""Exact Connect Four search that proves the empty 7x6 board: Pons' score of a position, on every core.

The search is a negamax over Pons' scores (:mod:`tablebase.games.connect4.score`)
with null windows, on the bitboards of
:mod:`tablebase.games.connect4.rules` (``current``: the discs of the side to
move, ``mask``: every disc). What it adds to a plain negamax of that kind (the
one the tests hold it to, in tests/pons_scorer.py):

- **Forced moves without a node.** A position whose mover must block a
  threat, or has a single move that does not lose at once, is followed down
  its forced moves before any node is made; positions that lose at once are
  scored on the spot.
- **Bounds from the next plies.** A searched position cannot be won or lost
  within two plies (those are caught as forced), and once its children are
  looked at, not won within four: the window is narrowed to what remains.
  On boards with an even number of rows, the bound of the second player's
  "claim even" strategy (Allis) narrows the first player's window; a threat
  of the other player that answering on top of each move wins (Allis' odd
  threat) narrows the window of whichever player has an odd number of
  empty cells to fill.
- **Threat-based move order.** Children are ranked by the threats the move
  leaves that can be played next turn and the turn after, the threats in
  all, the table's best move and the centre; ties go to the move with the
  better history (John Tromp's history heuristic: a move that cuts a node
  after others were searched in vain gains what they lose).
- **Enhanced transposition cut-offs.** Until the last 16 plies, each
  child's entry is read before any child is searched: a child known to be
  good enough ends the node at once.
- **Siblings' scores first.** The first window of a position scored right
  after a sibling (the same discs but the opponent's last, in another column:
  the columns of one position, asked one after another) tests the sibling's
  score, which is often the position's own or next to it.
- **Mirrored keys.** A position and its mirror image share one entry.
- **Memory first.** A node computes its children's keys and asks memory for
  their entries together (a prefetch) before looking at any of them, and its
  arrays go down the recursion without reference counts.
- **One table, several threads.** The threads of :class:`Prover` share the
  table. Given several positions (the columns of one position), each thread
  scores a different one; threads left without one of their own join a
  position being scored and search the same window, all but the first
  jittering their move order near the root, so they work on different parts
  of the tree and leave what they proved for the others. The first answer
  stops the rest.

The table's entries are one 64-bit word each (:mod:`tablebase.games.connect4.entries`).

Christophe Steininger's solver (github ChristopheSteininger/c4) showed these
ideas prove the empty 7x6 board in seconds; this is a new implementation of
them for the tablebase's bitboards and generic board sizes.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any, cast

import numpy as np
from numba import njit

from tablebase.games.connect4.bounds import NONE, evens_bound, follow_up_bound, odd_threat_bound, win_score
from tablebase.games.connect4.compiled_bits import has_four, popcount, winning_spots
from tablebase.games.connect4.entries import (
    EXACT, KEY_BITS, LOWER, UPPER, borrowed, entry_move, entry_score, entry_type, entry_work, kept_entries, lookup,
    prefetch, restore, slot, store,
)
from tablebase.games.connect4.score import ScoreSearch

#: Default number of table entries (8 bytes each: about 1 GiB; memory is taken as entries are written).
DEFAULT_ENTRIES = 134_217_757
#: The most entries a table may have (8 GiB).
MAX_ENTRIES = (1 << 30) - 1
#: The most entries :meth:`Prover.save` keeps (16 bytes each: 16 MiB), those with the most work beneath.
KEPT_ENTRIES = 1 << 20
#: Entries with fewer than 2^KEPT_WORK nodes beneath are not kept (they are quick to find again).
KEPT_WORK = 10

_INF = NONE
#: Positions with fewer discs than ``cells - ETC_LEFT`` read their children's entries first (and
#: positions reached by forced moves read their own); nearer the end a node is cheaper to search
#: again than to look up.
ETC_LEFT = 16
#: Move-order score of a jitter step (the scores of a move are in hundredths).
_JITTER = 30
#: Fields of a child in the search's scratch rows: discs of its mover, every disc, disc count, column, move-order score, key, whether the key is the mirror image's, the threats
#: of the player who moved into it.
_ROW = 8

#: Positions scored last whose scores :meth:`Prover._guess` weighs.
SIBLINGS_KEPT = 16

#: First word of a kept table's file.
_KEPT_FORMAT = 0x6334_7461_626C_6501

#: Per-thread state: stats[0] nodes, [1] node budget, [2] aborted, [3] random state, [4] entries taken,
#: from [_HISTORY] the history of each player's moves (64 cells each, :func:`initial_history`).
_HISTORY = 8
#: A move's history breaks ties of the move-order score up to this value.
_HISTORY_CAP = 63
#: A jitter step in units of the move-order score with its history (the score is scaled to make room for it).
_JITTER_STEP = _JITTER * (_HISTORY_CAP + 1)
# shared: shared[0] stop flag


@njit(cache=True, inline="always")
def _narrow(alpha: int, beta: int, cells: int, moves: int) -> tuple[int, int]:
    """The window ``(alpha, beta)`` of a position with ``moves`` discs whose mover cannot win at
    once: no better than a win in 3 plies, no worse than a loss in 4."""
    return max(alpha, -win_score(cells, moves, 4)), min(beta, win_score(cells, moves, 3))


@njit(cache=True, inline="always")
def _dead_in(b0: Any, b1: Any, board: Any, s: Any, border: Any, short: Any) -> Any:
    """Discs that can be part of no new four in the direction of step ``s``: covered on both sides
    by discs that no four through them can use, pinned against the edge, or on too short a line."""
    two = np.uint64(2)
    played = b0 | b1
    empty = board & ~played
    uncovered = ((empty >> s) & played) | ((empty << s) & played)
    covered_by_1 = ((uncovered >> s) & played) | ((uncovered << s) & played)
    pairs = ((b0 >> s) & b0) | ((b1 >> s) & b1)
    covered_by_pair = ((covered_by_1 >> s) & (pairs >> s)) | ((covered_by_1 << s) & (pairs << (two * s)))
    covered = played & ~uncovered & ~covered_by_1 & ~covered_by_pair
    between = ((b0 >> s) & (b1 << s)) | ((b1 >> s) & (b0 << s))
    pinned = border & played & ((between >> (two * s)) | (between << (two * s)))
    return covered | pinned | short


@njit(cache=True, inline="always")
def _dead(cur: Any, mask: Any, h: int, board: Any, edges: np.ndarray) -> Any:
    """Discs that can be part of no new four in any direction: their colour changes nothing."""
    opp = cur ^ mask
    dead = _dead_in(cur, opp, board, np.uint64(1), edges[0], edges[4])
    if dead:
        dead &= _dead_in(cur, opp, board, np.uint64(h + 1), edges[1], edges[5])
    if dead:
        dead &= _dead_in(cur, opp, board, np.uint64(h), edges[2], edges[6])
    if dead:
        dead &= _dead_in(cur, opp, board, np.uint64(h + 2), edges[3], edges[7])
    return dead


def edge_masks(columns: int, rows: int) -> np.ndarray:
    """For each direction (vertical, horizontal, the two diagonals): the cells outside the inside of
    the board along it, then the cells on no line of four along it (what :func:`_dead` needs)."""
    full = (1 << 64) - 1
    bottom = sum(1 << c * (rows + 1) for c in range(columns))
    board = bottom * ((1 << rows) - 1)
    border, short = [], []
    for s in (1, rows + 1, rows, rows + 2):
        inside = ((board << s) & board) & ((board >> s) & board)
        border.append(~inside & full)
        pairs = (board >> s) & board
        quads = (((pairs >> s) & board) >> s) & board
        spread = quads | (quads << s)
        short.append(board & ~((spread | (spread << 2 * s)) & full))
    return np.array(border + short, np.uint64)


@njit(cache=True)
def _key(cur: Any, mask: Any, w: int, h: int, bottom: Any, board: Any, edges: np.ndarray) -> tuple[Any, bool]:
    """The key of a position and of its mirror image, the smaller of the two, and whether it is the
    mirror's; dead discs count as the mover's, so positions that differ only in them share it."""
    key = cur | _dead(cur, mask, h, board, edges) | (mask + bottom)
    col = (np.uint64(1) << np.uint64(h + 1)) - np.uint64(1)
    mirrored = np.uint64(0)
    for c in range(w):
        block = (key >> np.uint64(c * (h + 1))) & col
        mirrored |= block << np.uint64((w - 1 - c) * (h + 1))
    if mirrored < key:
        return mirrored, True
    return key, False


@njit(cache=True)
def _cell(mask: Any, c: int, h: int) -> int:
    """The bit of the cell a move into column ``c`` takes."""
    return c * (h + 1) + popcount(mask & (((np.uint64(1) << np.uint64(h)) - np.uint64(1)) << np.uint64(c * (h + 1))))


def initial_history(columns: int, rows: int) -> list[int]:
    """The history a thread starts with, the same for both players: the lines of four through
    each cell (the centre's cells first, as in John Tromp's Fhourstones)."""
    history = [0] * 64
    for c in range(columns):
        for r in range(rows):
            history[c * (rows + 1) + r] = sum(
                all(0 <= c + (j - k) * dc < columns and 0 <= r + (j - k) * dr < rows for j in range(4))
                for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1))
                for k in range(4)
            )
    return history


@njit(cache=True, nogil=True)
def _static(
    cur: Any, mask: Any, moves: int, alpha: int, beta: int, w: int, h: int, bottom: Any, board: Any, claims: Any,
    edges: np.ndarray, table: np.ndarray, key0: Any, mirrored0: bool,
) -> tuple[int, bool, Any, Any, int, Any, bool, Any]:
    """Follow a position (whose mover cannot win at once) down its forced moves: ``(score, True, ...)``
    when that settles it within ``(alpha, beta)`` (the score for the position given), else
    ``(bound, False, cur, mask, moves, key, mirrored, threats)`` of the first position with a
    choice, ``bound`` an upper bound on the position given (``_INF``: none), its key where it was
    looked up (else 0) and the empty cells that would make a four of the discs of the player who
    moved into the position given; ``key0`` and ``mirrored0``, when ``key0`` is not 0, are what
    :func:`_key` gives for the position given."""
    cells = w * h
    sign = 1
    zero = np.uint64(0)
    first = zero
    initial = True
    while True:
        empty = board & ~mask
        if beta > 0 and not has_four(cur | empty, h):
            beta = 0
            if alpha >= beta:
                return sign * beta, True, cur, mask, moves, zero, False, zero
        opp = cur ^ mask
        opp_threats = winning_spots(opp, h) & empty
        if initial:
            first = opp_threats
            initial = False
        possible = (mask + bottom) & board
        opp_wins = opp_threats & possible
        nonlosing = possible & ~(opp_threats >> np.uint64(1))
        if nonlosing == 0 or (opp_wins and ((opp_wins & (opp_wins - np.uint64(1))) or not (opp_wins & nonlosing))):
            return sign * -win_score(cells, moves, 2), True, cur, mask, moves, zero, False, zero
        if moves >= cells - 2:
            return 0, True, cur, mask, moves, zero, False, zero
        alpha, beta = _narrow(alpha, beta, cells, moves)
        if alpha >= beta:
            return sign * beta, True, cur, mask, moves, zero, False, zero
        forced = opp_wins
        if not forced and not (nonlosing & (nonlosing - np.uint64(1))):
            forced = nonlosing
        if forced:
            cur, mask = opp, mask | forced
            key0 = zero
            moves += 1
            alpha, beta = -beta, -alpha
            sign = -sign
            continue
        if (cells - moves) % 2 == 0:
            if h % 2 == 0:
                bound = evens_bound(cur, mask, h, bottom, board, claims)
            else:
                bound = follow_up_bound(cur, mask, h, bottom, board, claims)
        else:
            bound = odd_threat_bound(cur, mask, opp_threats, h, bottom, board, cells, moves)
        if bound < beta:
            beta = bound
            if alpha >= beta:
                return sign * beta, True, cur, mask, moves, zero, False, zero
        if moves < cells - ETC_LEFT:
            if key0 != 0:
                key, mirrored = key0, mirrored0
            else:
                key, mirrored = _key(cur, mask, w, h, bottom, board, edges)
            e = lookup(table, key)
            if e != 0:
                kind = entry_type(e)
                s = entry_score(e)
                if kind == EXACT:
                    return sign * s, True, cur, mask, moves, zero, False, zero
                if kind == LOWER:
                    if s > alpha:
                        alpha = s
                    if alpha >= beta:
                        return sign * s, True, cur, mask, moves, zero, False, zero
                else:
                    if s < beta:
                        beta = s
                    if alpha >= beta:
                        return sign * s, True, cur, mask, moves, zero, False, zero
                    # an upper bound of this position, and of the one given unless the sign turned
                    return (beta if sign > 0 else _INF), False, cur, mask, moves, key, mirrored, first
            return _INF, False, cur, mask, moves, key, mirrored, first
        return _INF, False, cur, mask, moves, zero, False, first


@njit(cache=True, nogil=True)
def _negamax(
    cur: Any, mask: Any, moves: int, alpha: int, beta: int, jitter: int, w: int, h: int, bottom: Any, board: Any,
    claims: Any, edges: np.ndarray, table: np.ndarray, stats: np.ndarray, shared: np.ndarray, kids: np.ndarray,
    key: Any, mirrored: bool, root: bool,
) -> int:
    """Fail-soft score of a position with a choice of moves (no immediate win, no forced move);
    ``key`` and ``mirrored`` as :func:`_key` gives them where :func:`_static` found them, else 0;
    ``root`` where :func:`_window` calls it (the arrays are then taken without reference counts,
    for the nodes below)."""
    if root:
        edges, table, stats, shared, kids = borrowed(edges), borrowed(table), borrowed(stats), borrowed(shared), borrowed(kids)
    stats[0] += 1
    if stats[0] > stats[1] or shared[0]:
        stats[2] = 1
        return 0
    cells = w * h
    alpha0 = alpha
    beta0 = beta
    if key == 0:
        key, mirrored = _key(cur, mask, w, h, bottom, board, edges)
        prefetch(table, slot(table, key))
    empty = board & ~mask
    if not has_four(cur | empty, h) and beta > 0:
        beta = 0
    alpha, beta = _narrow(alpha, beta, cells, moves)
    if alpha >= beta:
        return beta
    opp = cur ^ mask
    opp_threats = winning_spots(opp, h) & empty
    possible = (mask + bottom) & board
    nonlosing = possible & ~(opp_threats >> np.uint64(1))
    value = -_INF
    column = (np.uint64(1) << np.uint64(h)) - np.uint64(1)
    row = kids[moves]
    n = 0
    # the children's keys first (where they will read their entries), the entries asked of memory at once
    read_entries = moves < cells - ETC_LEFT - 1
    for c in range(w):
        row[c, 5] = 0
        move = nonlosing & (column << np.uint64(c * (h + 1)))
        if read_entries and move:
            ckey, cmirrored = _key(opp, mask | move, w, h, bottom, board, edges)
            prefetch(table, slot(table, ckey))
            row[c, 5] = np.int64(ckey)
            row[c, 6] = cmirrored
    for c in range(w):
        move = nonlosing & (column << np.uint64(c * (h + 1)))
        if not move:
            continue
        s, settled, ccur, cmask, cmoves, ckey, cmirrored, cthreats = _static(
            opp, mask | move, moves + 1, -beta, -alpha, w, h, bottom, board, claims, edges, table,
            np.uint64(row[c, 5]), bool(row[c, 6]),
        )
        if s != _INF:
            if -s > value:
                value = -s
            if -s > alpha:
                alpha = -s
        if alpha >= beta:
            return alpha
        if not settled:
            row[n, 0] = np.int64(ccur)
            row[n, 1] = np.int64(cmask)
            row[n, 2] = cmoves
            row[n, 3] = c
            row[n, 5] = np.int64(ckey)
            row[n, 6] = cmirrored
            row[n, 7] = np.int64(cthreats)
            n += 1
    hi = win_score(cells, moves, 5)
    if beta > hi:
        beta = hi
        if alpha >= beta:
            return beta
    if n == 0:
        return value
    e = lookup(table, key)
    table_move = -1
    kind = 0
    if e != 0:
        kind = entry_type(e)
        s = entry_score(e)
        if kind == EXACT:
            return s
        if kind == LOWER:
            if s > alpha:
                alpha = s
            table_move = entry_move(e)
            if mirrored:
                table_move = w - 1 - table_move
        else:
            if s < beta:
                beta = s
        if alpha >= beta:
            return s
    nodes_before = stats[0]
    history = _HISTORY + 64 * (moves % 2)
    # move order: threats playable next turn and the turn after, all threats, table move, centre;
    # ties broken by the move's history
    for i in range(n):
        c = row[i, 3]
        after = mask | (nonlosing & (column << np.uint64(c * (h + 1))))
        threats = np.uint64(row[i, 7]) & ~(opp_threats << np.uint64(1))
        valid = ((after + bottom) & board)
        next_valid = (valid << np.uint64(1)) & board
        score = 120 * popcount(threats & next_valid) + 50 * popcount(threats & ((next_valid << np.uint64(1)) & board))
        score += 30 * popcount(threats) + (100 * min(c, w - 1 - c)) // w
        if c == table_move:
            score += 50
        score = score * (_HISTORY_CAP + 1) + min(stats[history + _cell(mask, c, h)], _HISTORY_CAP)
        if jitter > 0:
            span = 1 + jitter % 10
            x = np.uint64(stats[3])
            x ^= x << np.uint64(13)
            x ^= x >> np.uint64(7)
            x ^= x << np.uint64(17)
            stats[3] = np.int64(x & np.uint64(0x7FFFFFFFFFFFFFFF))
            score += _JITTER_STEP * int(x % np.uint64(span))
        row[i, 4] = score
    for i in range(1, n):
        j = i
        while j > 0 and row[j - 1, 4] < row[j, 4]:
            for f in range(_ROW):
                t = row[j - 1, f]
                row[j - 1, f] = row[j, f]
                row[j, f] = t
            j -= 1
    best = -_INF
    best_col = int(row[0, 3])
    best_i = 0
    for i in range(n):
        if alpha >= beta:
            break
        child_jitter = jitter // 10
        if (i == 0 or row[i - 1, 4] > row[i, 4] + _JITTER_STEP) and (i == n - 1 or row[i + 1, 4] < row[i, 4] - _JITTER_STEP):
            child_jitter = jitter
        ccur = np.uint64(row[i, 0])
        cmask = np.uint64(row[i, 1])
        cmoves = int(row[i, 2])
        ckey = np.uint64(row[i, 5])
        cmirrored = bool(row[i, 6])
        # one call (numba's type inference runs again for each) and not the literal False (a
        # literal argument compiles a second _negamax)
        even = (cmoves - moves) % 2 == 0
        lo, hi = (alpha, beta) if even else (-beta, -alpha)
        r = _negamax(
            ccur, cmask, cmoves, lo, hi, child_jitter, w, h, bottom, board, claims, edges, table, stats, shared, kids, ckey,
            cmirrored, bool(np.bool_(False)),
        )
        if not even:
            r = -r
        if stats[2]:
            return 0
        if r > best:
            best = r
            best_col = int(row[i, 3])
            best_i = i
            if r > value:
                value = r
            if r > alpha:
                alpha = r
    if value >= beta0 and best_i > 0:
        # a cut by a move searched late: it gains what the moves before it lose
        for i in range(best_i):
            cell = history + _cell(mask, int(row[i, 3]), h)
            if stats[cell] > 0:
                stats[cell] -= 1
        stats[history + _cell(mask, best_col, h)] += best_i
    if value <= alpha0:
        kind_out = EXACT if kind == LOWER and value == entry_score(e) else UPPER
    elif value >= beta0:
        kind_out = EXACT if kind == UPPER and value == entry_score(e) else LOWER
    else:
        kind_out = EXACT
    if store(table, key, kind_out, value, (w - 1 - best_col) if mirrored else best_col, int(stats[0] - nodes_before)):
        stats[4] += 1
    return value


def _window(
    cur: Any, mask: Any, moves: int, alpha: int, beta: int, jitter: int, w: int, h: int, bottom: Any, board: Any,
    claims: Any, edges: np.ndarray, table: np.ndarray, stats: np.ndarray, shared: np.ndarray, kids: np.ndarray,
) -> int:
    """Fail-soft score within ``(alpha, beta)`` of a position whose mover cannot win at once (its
    forced moves by :func:`_static`, then :func:`_negamax`); sets ``shared[0]`` when done so the
    other threads stop."""
    s, settled, ccur, cmask, cmoves, ckey, cmirrored, _ = _static(
        cur, mask, moves, alpha, beta, w, h, bottom, board, claims, edges, table, np.uint64(0), False
    )
    r = int(s)
    if not settled:
        even = (cmoves - moves) % 2 == 0
        lo, hi = (alpha, beta) if even else (-beta, -alpha)
        r = _negamax(
            np.uint64(ccur), np.uint64(cmask), cmoves, lo, hi, jitter, w, h, bottom, board, claims, edges, table, stats,
            shared, kids, np.uint64(ckey), cmirrored, True,
        )
        r = r if even else -r
    if not stats[2]:
        shared[0] = 1
    return r


@njit(cache=True)
def _wins_now(cur: Any, mask: Any, h: int, bottom: Any, board: Any) -> bool:
    return bool(((mask + bottom) & board & winning_spots(cur, h) & ~mask) != 0)


class _Job:
    """A position being scored by :meth:`Prover.scores`: the range its null windows left its
    score in, the window's stop flag (set by the thread that settles it) and the threads on it."""

    def __init__(self, cur: int, mask: int, moves: int, lo: int, hi: int):
        self.cur, self.mask, self.moves = cur, mask, moves
        self.lo, self.hi = lo, hi
        self.guess: int | None = None  # the next window's score; None: not started
        self.stop = np.zeros(1, np.int64)
        self.threads = 0


def cores() -> int:
    """The number of cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on every platform
        return os.cpu_count() or 1


class Prover(ScoreSearch):
    """Pons' score, outcome and distance of Connect Four positions on ``columns`` x ``rows``,
    searched by ``threads`` threads sharing a table of ``entries`` entries kept between calls.

    The table takes 8 bytes an entry, taken from the system as entries are first written
    (the default, :data:`DEFAULT_ENTRIES`, is at most 1 GiB). Its entries are bounds on the
    score of a position (shared with its mirror image and with the positions that differ only
    in dead discs, which have the same score), true whichever search stored them, so one
    prover may serve any number of positions (``reusable``), and :meth:`save` can keep the
    most valuable of them for a later prover to :meth:`load`.
    """

    #: What the table holds is exact for every position: a batch may share one prover.
    reusable = True
    #: :meth:`save` and :meth:`load` keep its most valuable entries in a file.
    keeps = True

    def __init__(self, columns: int, rows: int, entries: int = DEFAULT_ENTRIES, threads: int | None = None):
        if columns * (rows + 1) > 64:
            raise ValueError(f"board {columns}x{rows} does not fit 64-bit bitboards")
        entries = min(max(entries, 1 << 12) | 1, MAX_ENTRIES)  # odd, and with the key's low bits enough to tell keys apart
        if (entries << KEY_BITS) <= 1 << (columns * (rows + 1)):
            raise ValueError(f"a table of {entries} entries is too small for {columns}x{rows}")
        if threads is None:
            threads = cores()
        if threads < 1:
            raise ValueError(f"threads must be at least 1, got {threads}")
        self.columns, self.rows, self.threads = columns, rows, threads
        self.table = np.zeros(entries + 1, np.uint64)
        bottom = sum(1 << c * (rows + 1) for c in range(columns))
        self.bottom = np.uint64(bottom)
        self.board = np.uint64(bottom * ((1 << rows) - 1))
        self.claims = np.uint64(bottom * sum(1 << r for r in range(rows - 1, -1, -2)))
        self.edges = edge_masks(columns, rows)
        self.nodes = 0
        self._settled: list[tuple[int, int, int]] = []  # the mover's discs, every disc and score of the last positions scored
        history = initial_history(columns, rows)
        self._stats = [
            np.array([0, 0, 0, 0x9E3779B97F4A7C15 >> 1 ^ i, 0, 0, 0, 0] + history + history, np.int64) for i in range(threads)
        ]
        self._kids = [np.zeros((columns * rows + 2, columns, _ROW), np.int64) for _ in range(threads)]

    def score(self, state: int, budget: int | None = None) -> int | None:
        """Pons' score of a non-terminal state, ``None`` when ``budget`` nodes did not suffice
        (the table keeps what was proved, so asking again goes on from there)."""
        return self.scores([state], budget)[0]

    def scores(self, states: list[int], budget: int | None = None, deadline: float | None = None) -> list[int | None]:
        """Pons' score of each non-terminal state of ``states``, ``None`` for those ``budget``
        nodes (all threads together) did not reach, or not reached by ``deadline``
        (:func:`time.perf_counter` seconds); asking again goes on from the table.

        Each thread scores a position of its own, those with fewer discs and more central
        first (a position, its mirror image and those that differ from it only in dead discs
        are one); once every position is taken, a thread joins the one with the fewest
        threads on it (the same window, its move order jittered)."""
        w, h = self.columns, self.rows
        cells = w * h
        found: list[int | None] = [None] * len(states)
        jobs: dict[int, _Job] = {}
        keys: list[int | None] = []
        for i, state in enumerate(states):
            cur, mask, moves = self.mover(state)
            if _wins_now(np.uint64(cur), np.uint64(mask), h, self.bottom, self.board):
                found[i] = (cells + 1 - moves) // 2
                keys.append(None)
                continue
            job_key = int(_key(np.uint64(cur), np.uint64(mask), w, h, self.bottom, self.board, self.edges)[0])
            keys.append(job_key)
            if job_key not in jobs:
                jobs[job_key] = _Job(cur, mask, moves, -((cells - moves) // 2), (cells + 1 - moves) // 2)
        queue = sorted(jobs.values(), key=lambda job: (job.moves, self._off_centre(job.mask)))
        self._run(queue, budget if budget is not None else 1 << 62, deadline)
        for i, key in enumerate(keys):
            if key is not None and jobs[key].lo >= jobs[key].hi:
                found[i] = jobs[key].lo
        return found

    def _off_centre(self, mask: int) -> int:
        """How far the discs of ``mask`` are from the centre column, in all (half columns)."""
        column = (1 << self.rows) - 1
        return sum(
            ((mask >> c * (self.rows + 1)) & column).bit_count() * abs(2 * c - self.columns + 1) for c in range(self.columns)
        )

    def _guess(self, job: _Job) -> int:
        """The first window of ``job``: where a position scored lately is a sibling, the score of
        the sibling whose last disc is nearest (siblings' scores are often close), one more when
        ``job`` is farther from the centre (a move off the centre is seldom better for the player
        who made it); else the middle of its range."""
        guess = 0 if job.lo <= 0 <= job.hi else int((job.lo + job.hi) / 2)
        height = self.rows + 1
        nearest = self.columns
        for cur, mask, score in self._settled:
            if cur == job.cur and mask.bit_count() == job.moves and (mask ^ job.mask).bit_count() == 2:
                mine, theirs = (job.mask & ~mask).bit_length() - 1, (mask & ~job.mask).bit_length() - 1
                apart = abs(mine // height - theirs // height)
                if apart <= nearest:
                    nearest = apart
                    guess = score + (self._off_centre(job.mask) > self._off_centre(mask))
        return guess

    def _run(self, queue: list[_Job], budget: int, deadline: float | None) -> None:
        """Narrow the range of each job of ``queue`` with null windows until it is one score,
        ``budget`` nodes (shared equally by the threads) are spent or ``deadline`` comes."""
        lock = threading.Lock()
        per_thread = max(budget // self.threads, 1)
        expired = [False]

        def expire() -> None:
            """Stop every thread: none starts a window, those searching run out of nodes."""
            expired[0] = True
            for stats in self._stats:
                stats[1] = -1

        spent = [0] * self.threads
        args = (self.columns, self.rows, self.bottom, self.board, self.claims, self.edges, self.table)

        def take(job: _Job | None) -> tuple[_Job | None, int]:
            """Leave ``job`` for the next one (under ``lock``): the first not started, else the
            first with the fewest threads; with its jitter."""
            if job is not None:
                job.threads -= 1
            open_jobs = [j for j in queue if j.lo < j.hi]
            if not open_jobs:
                return None, 0
            fresh = [j for j in open_jobs if j.guess is None]
            job = fresh[0] if fresh else min(open_jobs, key=lambda j: j.threads)
            if job.guess is None:
                job.guess = self._guess(job)
            job.threads += 1
            return job, 111 * (job.threads - 1)

        def run(i: int) -> None:
            stats = self._stats[i]
            left = per_thread
            with lock:
                job, jitter = take(None)
            while job is not None and left > 0 and not expired[0]:
                with lock:
                    if job.lo >= job.hi:
                        job, jitter = take(job)
                        continue
                    window = min(max(cast(int, job.guess), job.lo + 1), job.hi)
                    stop = job.stop
                stats[0], stats[1], stats[2] = 0, left, 0
                if expired[0]:
                    break
                r = _window(np.uint64(job.cur), np.uint64(job.mask), job.moves, window - 1, window, jitter, *args, stats, stop, self._kids[i])
                left -= int(stats[0])
                spent[i] += int(stats[0])
                if stats[2]:
                    continue  # out of nodes, or another thread settled the window
                with lock:
                    if stop is not job.stop:
                        continue
                    job.stop = np.zeros(1, np.int64)
                    if r < window:
                        job.hi = int(r)
                    else:
                        job.lo = int(r)
                    job.guess = int(r)
                    if job.lo >= job.hi:
                        self._settled = [*self._settled[1 - SIBLINGS_KEPT :], (job.cur, job.mask, job.lo)]
            if job is not None:
                with lock:
                    job.threads -= 1

        timer = None if deadline is None else threading.Timer(max(deadline - time.perf_counter(), 0.0), expire)
        if timer is not None:
            timer.start()
        try:
            workers = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(1, self.threads)]
            for t in workers:
                t.start()
            run(0)
            for t in workers:
                t.join()
        finally:
            if timer is not None:
                timer.cancel()
        self.nodes += sum(spent)

    def __len__(self) -> int:
        """Entries taken in the table (the count of threads racing for one slot may be off by a few)."""
        return sum(int(s[4]) for s in self._stats)

    def save(self, path: str | os.PathLike[str], limit: int = KEPT_ENTRIES) -> int:
        """Write the entries of the table with the most work beneath (exact scores and proved
        bounds), at most ``limit`` of them, to ``path`` (``.npy``, replaced whole); returns how many."""
        inverse = pow(1 << KEY_BITS, -1, self.table.shape[0] - 1)
        rows = kept_entries(self.table, KEPT_WORK, inverse)
        if rows.shape[0] > limit:
            work = (rows[:, 1] >> np.uint64(12)) & np.uint64(15)
            rows = rows[np.argsort(-work.astype(np.int64), kind="stable")[:limit]]
        header = np.array([[_KEPT_FORMAT, self.columns * 16 + self.rows]], np.uint64)
        target = Path(path)
        part = target.with_name(target.name + ".part")
        with open(part, "wb") as f:
            np.save(f, np.concatenate([header, rows]))
        os.replace(part, target)
        return int(rows.shape[0])

    def load(self, path: str | os.PathLike[str]) -> int:
        """Add the entries :meth:`save` wrote to ``path`` to the table; returns how many."""
        try:
            rows = np.load(Path(path), allow_pickle=False)
        except (OSError, ValueError) as err:
            raise ValueError(f"cannot read the search table {str(path)!r}: {err}") from None
        board = self.columns * 16 + self.rows
        if rows.dtype != np.uint64 or rows.ndim != 2 or rows.shape[1] != 2 or len(rows) == 0 or list(rows[0]) != [_KEPT_FORMAT, board]:
            raise ValueError(f"{str(path)!r} is not a search table of {self.columns}x{self.rows} Connect Four")
        restore(self.table, np.ascontiguousarray(rows[1:]))
        return len(rows) - 1
