"""The build and the check of a Connect Four board over its dense index, compiled with numba.

:func:`solve` finds the reachable slots of :class:`~tablebase.games.connect4.index.Connect4Index`
ply by ply from the start (one byte a slot for the ply in hand, then one bit),
then labels them from the last ply back, each from its children's slots: no
state is enumerated, sorted or deduplicated. Every ply's values are one byte
a slot, the packed value of :mod:`tablebase.store.packed` (outcome code and
distance + 1); what it hands to the storage keeps only the slots worth
storing: one position of each mirror pair (the rules' canonical form), and
not the positions whose value the rules give (:meth:`Connect4Index.derived`).

:func:`check` reads the stored values back and checks every stored label
against its children's, the children's values read the way a probe reads
them (the canonical slot, or the rules).
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np
from numba import njit, prange

from tablebase.games.connect4.bits import DRAWN_END, LOST_END, WIN_NOW
from tablebase.games.common.dense_kernels import POPCOUNTS, Kernels, add_child, colex, colex_table, next_colouring, parent_value, tally


class Connect4Index(Protocol):
    """The tables of :class:`tablebase.games.connect4.index.Connect4Index` the kernels read."""

    columns: int
    rows: int
    cells: int
    codes: np.ndarray
    starts: np.ndarray
    base: np.ndarray
    heights: np.ndarray
    powers: np.ndarray
    colourings: np.ndarray
    sizes: np.ndarray


def _arguments(index: Connect4Index, ply: int) -> tuple[Any, ...]:
    """The tables every kernel takes, for one ply."""
    tables = index.__dict__.get("_colex_table")
    if tables is None:
        tables = index.__dict__["_colex_table"] = colex_table((index.cells + 7) // 8, index.cells // 2 + 2)
    return (
        index.codes,
        int(index.starts[ply]),
        int(index.starts[ply + 1]),
        index.base,
        index.heights,
        index.powers,
        int(index.colourings[ply]),
        index.columns,
        index.rows,
        tables,
        POPCOUNTS,
        (index.cells + 7) // 8,
    )


@njit(cache=True, inline="always")
def _has_four(bits: int, rows: int) -> bool:
    for step in (1, rows + 1, rows, rows + 2):
        pairs = bits & (bits >> step)
        if pairs & (pairs >> (2 * step)):
            return True
    return False


@njit(cache=True, inline="always")
def _wins_now(mine: int, discs: int, columns: int, rows: int) -> bool:
    """Whether the side holding ``mine`` completes a four with its next disc."""
    r = (mine << 1) & (mine << 2) & (mine << 3)
    for s in (rows + 1, rows, rows + 2):
        p = (mine << s) & (mine << (2 * s))
        r |= p & (mine << (3 * s))
        r |= p & (mine >> s)
        p = (mine >> s) & (mine >> (2 * s))
        r |= p & (mine << s)
        r |= p & (mine >> (3 * s))
    bottom = 0
    for c in range(columns):
        bottom |= 1 << (c * (rows + 1))
    board = bottom * ((1 << rows) - 1)
    return ((discs + bottom) & board & r) != 0


@njit(cache=True, inline="always")
def _board(m: int, hs: np.ndarray, columns: int, height: int) -> tuple[int, int]:
    """``(x discs, every disc)`` in the state layout from a colouring and the heights."""
    x = 0
    discs = 0
    p = 0
    for c in range(columns):
        h = hs[c]
        full = (1 << h) - 1
        x |= ((m >> p) & full) << (c * height)
        discs |= full << (c * height)
        p += h
    return x, discs


@njit(cache=True, inline="always")
def _is_canonical(x: int, discs: int, columns: int, height: int) -> bool:
    """Whether the state is not above its mirror image as an integer (the rules' canonical form)."""
    col = (1 << height) - 1
    for c in range(columns - 1, -1, -1):
        mine = ((x >> (c * height)) & col) | (((discs >> (c * height)) & col) + 1)
        d = columns - 1 - c
        theirs = ((x >> (d * height)) & col) | (((discs >> (d * height)) & col) + 1)
        if mine != theirs:
            return mine < theirs
    return True


@njit(cache=True, inline="always")
def _canonical_slot(
    x: int, discs: int, base: np.ndarray, powers: np.ndarray, columns: int, height: int, table: np.ndarray,
    popcounts: np.ndarray, nbytes: int,
) -> int:
    """The slot of the canonical form of a position given as boards."""
    mirror = not _is_canonical(x, discs, columns, height)
    col = (1 << height) - 1
    code = 0
    m = 0
    p = 0
    for i in range(columns):
        c = columns - 1 - i if mirror else i
        cd = (discs >> (c * height)) & col
        h = popcounts[cd]
        m |= ((x >> (c * height)) & cd) << p
        code += h * powers[i]
        p += h
    slot: int = base[code] + colex(m, nbytes, table, popcounts)
    return slot


@njit(cache=True, inline="always")
def _child_mask(m: int, i: int, mover_x: bool) -> int:
    child = (m & ((1 << i) - 1)) | ((m >> i) << (i + 1))
    if mover_x:
        child |= 1 << i
    return child


@njit(cache=True, parallel=True)
def _reach(
    ply: int, reach: np.ndarray, nxt: np.ndarray, codes: np.ndarray, lo: int, hi: int, base: np.ndarray,
    heights: np.ndarray, powers: np.ndarray, per: int, columns: int, rows: int, table: np.ndarray,
    popcounts: np.ndarray, nbytes: int,
) -> None:
    """Mark in ``nxt`` (ply + 1) the children of the reachable, unfinished slots of ``ply``."""
    height = rows + 1
    nx = (ply + 1) // 2
    mover_x = ply % 2 == 0
    for v in prange(lo, hi):
        code = codes[v]
        hs = heights[code]
        first = base[code]
        m = (1 << nx) - 1
        for j in range(per):
            if j:
                m = next_colouring(m)
            if not reach[first + j]:
                continue
            x, discs = _board(m, hs, columns, height)
            last = discs & ~x if mover_x else x
            if ply and _has_four(last, rows):
                continue
            p = 0
            for c in range(columns):
                h = hs[c]
                if h < rows:
                    child = _child_mask(m, p + h, mover_x)
                    nxt[base[code + powers[c]] + colex(child, nbytes, table, popcounts)] = 1
                p += h


@njit(cache=True, parallel=True)
def _label(
    ply: int, reach: np.ndarray, values: np.ndarray, children: np.ndarray, counts: np.ndarray, codes: np.ndarray,
    lo: int, hi: int, base: np.ndarray, heights: np.ndarray, powers: np.ndarray, per: int, columns: int, rows: int,
    table: np.ndarray, popcounts: np.ndarray, nbytes: int,
) -> None:
    """Label the reachable slots of ``ply`` from their children's values (``children``, ply + 1).

    ``counts[v - lo]`` gets, per height vector: positions, classes, terminal
    classes, positions won, lost, drawn, classes won, lost, drawn.
    """
    height = rows + 1
    nx = (ply + 1) // 2
    mover_x = ply % 2 == 0
    full_board = ply == columns * rows
    for v in prange(lo, hi):
        code = codes[v]
        hs = heights[code]
        first = base[code]
        row = counts[v - lo]
        m = (1 << nx) - 1
        for j in range(per):
            if j:
                m = next_colouring(m)
            if not reach[first + j]:
                values[first + j] = 0
                continue
            x, discs = _board(m, hs, columns, height)
            last = discs & ~x if mover_x else x
            terminal = True
            if ply and _has_four(last, rows):
                value: Any = np.int64(LOST_END)
            elif full_board:
                value = np.int64(DRAWN_END)
            else:
                terminal = False
                win = 255
                draw = -1
                loss = -1
                p = 0
                for c in range(columns):
                    h = hs[c]
                    if h < rows:
                        child = _child_mask(m, p + h, mover_x)
                        cv: Any = np.int64(children[base[code + powers[c]] + colex(child, nbytes, table, popcounts)])
                        win, draw, loss = add_child(cv, win, draw, loss)
                    p += h
                value = parent_value(win, draw, loss)
            values[first + j] = value
            tally(row, value, _is_canonical(x, discs, columns, height), terminal)


@njit(cache=True, parallel=True)
def _keep(
    ply: int, values: np.ndarray, codes: np.ndarray, lo: int, hi: int, base: np.ndarray, heights: np.ndarray,
    powers: np.ndarray, per: int, columns: int, rows: int, table: np.ndarray, popcounts: np.ndarray, nbytes: int,
) -> None:
    """Zero the slots not worth storing: mirror images and positions whose value the rules give."""
    height = rows + 1
    nx = (ply + 1) // 2
    for v in prange(lo, hi):
        code = codes[v]
        hs = heights[code]
        first = base[code]
        m = (1 << nx) - 1
        for j in range(per):
            if j:
                m = next_colouring(m)
            value = values[first + j]
            if value == 0:
                continue
            if value == LOST_END or value == DRAWN_END or value == WIN_NOW:
                values[first + j] = 0
                continue
            x, discs = _board(m, hs, columns, height)
            if not _is_canonical(x, discs, columns, height):
                values[first + j] = 0


@njit(cache=True, inline="always")
def _read_value(
    x: int, discs: int, ply: int, stored: np.ndarray, base: np.ndarray, powers: np.ndarray, columns: int, rows: int,
    table: np.ndarray, popcounts: np.ndarray, nbytes: int,
) -> int:
    """The value of a position of ``ply`` as a probe reads it: from the rules, else its canonical slot."""
    mover_x = ply % 2 == 0
    mine = x if mover_x else discs & ~x
    if ply and _has_four(discs & ~mine, rows):
        return LOST_END
    if ply == columns * rows:
        return DRAWN_END
    if _wins_now(mine, discs, columns, rows):
        return WIN_NOW
    value: Any = np.int64(stored[_canonical_slot(x, discs, base, powers, columns, rows + 1, table, popcounts, nbytes)])
    return int(value)


@njit(cache=True, parallel=True)
def _check(
    ply: int, reach: np.ndarray, stored: np.ndarray, children: np.ndarray, bad: np.ndarray, checked: np.ndarray,
    codes: np.ndarray, lo: int, hi: int, base: np.ndarray, heights: np.ndarray, powers: np.ndarray, per: int,
    columns: int, rows: int, table: np.ndarray, popcounts: np.ndarray, nbytes: int,
) -> None:
    """Check every reachable canonical slot of ``ply`` against its children as stored; the first slot of
    each height vector that disagrees goes to ``bad[v - lo]`` (else -1), the positions checked to ``checked``."""
    height = rows + 1
    nx = (ply + 1) // 2
    mover_x = ply % 2 == 0
    for v in prange(lo, hi):
        code = codes[v]
        hs = heights[code]
        first = base[code]
        m = (1 << nx) - 1
        bad[v - lo] = -1
        for j in range(per):
            if j:
                m = next_colouring(m)
            if not reach[first + j]:
                continue
            x, discs = _board(m, hs, columns, height)
            if not _is_canonical(x, discs, columns, height):
                continue
            checked[v - lo] += 1
            value = _read_value(x, discs, ply, stored, base, powers, columns, rows, table, popcounts, nbytes)
            if value == LOST_END or value == DRAWN_END or value == WIN_NOW:
                continue
            win = 255
            draw = -1
            loss = -1
            corrupt = False
            for c in range(columns):
                if hs[c] < rows:
                    bit = 1 << (c * height + hs[c])
                    cx = x | bit if mover_x else x
                    cv = _read_value(cx, discs | bit, ply + 1, children, base, powers, columns, rows, table, popcounts, nbytes)
                    if cv & 3 == 0:
                        corrupt = True
                    else:
                        win, draw, loss = add_child(cv, win, draw, loss)
            expected = parent_value(win, draw, loss)
            if corrupt or value != expected:
                if bad[v - lo] < 0:
                    bad[v - lo] = first + j


@njit(cache=True)
def _collect(
    ply: int, reach: np.ndarray, stored: np.ndarray, states: np.ndarray, values: np.ndarray, codes: np.ndarray,
    lo: int, hi: int, base: np.ndarray, heights: np.ndarray, powers: np.ndarray, per: int, columns: int, rows: int,
    table: np.ndarray, popcounts: np.ndarray, nbytes: int,
) -> int:
    """The reachable canonical positions of ``ply`` (states in the rules' layout) with their values."""
    height = rows + 1
    nx = (ply + 1) // 2
    n = 0
    for v in range(lo, hi):
        code = codes[v]
        hs = heights[code]
        first = base[code]
        m = (1 << nx) - 1
        for j in range(per):
            if j:
                m = next_colouring(m)
            if not reach[first + j]:
                continue
            x, discs = _board(m, hs, columns, height)
            if not _is_canonical(x, discs, columns, height):
                continue
            state = 0
            for c in range(columns):
                state |= ((x | (discs + (1 << (c * height)))) & (((1 << height) - 1) << (c * height)))
            states[n] = state
            values[n] = _read_value(x, discs, ply, stored, base, powers, columns, rows, table, popcounts, nbytes)
            n += 1
    return n


#: The passes of a Connect Four build, for the drivers of :mod:`tablebase.games.common.dense_kernels`.
KERNELS = Kernels(_arguments, _reach, _label, _keep, _check, _collect)

