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

import sys
from typing import Any, Protocol

import numpy as np
from numba import njit, prange

from tablebase.games.connect4.compiled_bits import has_four, winning_spots
from tablebase.games.common.dense_index import DRAWN_END, LOST_END, WIN_NOW
from tablebase.games.common.dense_kernels import (
    MOST_CHILDREN, POPCOUNTS, Arrays, Index, Kernels, Span, Tables, colex, colex_table, run_unit, unit_pass,
)


class Connect4Tables(Index, Protocol):
    """The tables of :class:`tablebase.games.connect4.index.Connect4Index` the kernels read."""

    columns: int
    rows: int
    codes: np.ndarray
    starts: np.ndarray
    base: np.ndarray
    heights: np.ndarray
    powers: np.ndarray
    colourings: np.ndarray


@unit_pass
def _pass(mode: int, ply: int, v: int, arrays: Arrays, tables: Tables, span: Span, kids: np.ndarray) -> None:
    """:func:`~tablebase.games.common.dense_kernels.run_unit` over height vector ``v``, this module's functions compiled in."""
    run_unit(mode, _FAMILY, ply, v, arrays, tables, span, kids)


def _arguments(index: Connect4Tables, ply: int) -> tuple[Any, ...]:
    """The tables every kernel takes, for one ply; a unit of work is one height vector."""
    tables = index.__dict__.get("_colex_table")
    if tables is None:
        tables = index.__dict__["_colex_table"] = colex_table((index.cells + 7) // 8, index.cells // 2 + 2)
    return (
        int(index.starts[ply]),
        int(index.starts[ply + 1]),
        index.codes,
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


@njit(cache=True, parallel=True)
def _run(mode: int, ply: int, arrays: Arrays, tables: Tables, span: Span) -> None:
    """:func:`_pass` over every height vector of ``ply``, in parallel."""
    for v in prange(tables[0], tables[1]):
        _pass(mode, ply, v, arrays, tables, span, np.empty((3, MOST_CHILDREN), dtype=np.int64))


@njit(cache=True, inline="always")
def _wins_now(mine: int, discs: int, columns: int, rows: int) -> bool:
    """Whether the side holding ``mine`` completes a four with its next disc."""
    r = winning_spots(mine, rows)
    bottom = 0
    for c in range(columns):
        bottom |= 1 << (c * (rows + 1))
    board = bottom * ((1 << rows) - 1)
    return bool((discs + bottom) & board & r)


@njit(cache=True, inline="always")
def _board(m: int, hs: np.ndarray, columns: int, height: int) -> tuple[int, int]:
    """``(x discs, every disc)`` on the state's bits from a colouring and the heights."""
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


@njit(cache=True, inline="always")
def unit(ply: int, v: int, tables: tuple[Any, ...]) -> tuple[int, int, int, int]:
    """Height vector ``v``: its first slot, its colourings (x's discs among its discs), their size, its code."""
    code = tables[2][v]
    return tables[3][code], tables[6], (ply + 1) // 2, code


@njit(cache=True, inline="always")
def position(code: int, m: int, tables: tuple[Any, ...]) -> tuple[int, int]:
    """``(x discs, every disc)`` of a colouring."""
    columns, rows = tables[7], tables[8]
    return _board(m, tables[4][code], columns, rows + 1)


@njit(cache=True, inline="always")
def end(x: int, discs: int, ply: int, tables: tuple[Any, ...]) -> int:
    """Lost in 0 where the side that just moved has four, drawn in 0 on a full board, else 0."""
    columns, rows = tables[7], tables[8]
    if ply and has_four(discs & ~x if ply % 2 == 0 else x, rows):
        return LOST_END
    if ply == columns * rows:
        return DRAWN_END
    return 0


@njit(cache=True, inline="always")
def given(x: int, discs: int, ply: int, tables: tuple[Any, ...]) -> int:
    """:func:`end`, or won in 1 where the side to move completes four with its next disc, else 0."""
    over = end(x, discs, ply, tables)
    if over:
        return over
    if _wins_now(x if ply % 2 == 0 else discs & ~x, discs, tables[7], tables[8]):
        return WIN_NOW
    return 0


@njit(cache=True, inline="always")
def canonical(x: int, discs: int, ply: int, tables: tuple[Any, ...]) -> bool:
    return _is_canonical(x, discs, tables[7], tables[8] + 1)


@njit(cache=True, inline="always")
def slot(x: int, discs: int, ply: int, tables: tuple[Any, ...]) -> int:
    _lo, _hi, _codes, base, _heights, powers, _per, columns, rows, table, popcounts, nbytes = tables
    return _canonical_slot(x, discs, base, powers, columns, rows + 1, table, popcounts, nbytes)


@njit(cache=True, inline="always")
def child_slots(
    code: int, m: int, x: int, discs: int, ply: int, tables: tuple[Any, ...], out: np.ndarray
) -> int:
    """The slots of the children, one a column not full."""
    _lo, _hi, _codes, base, heights, powers, _per, columns, rows, table, popcounts, nbytes = tables
    hs = heights[code]
    mover_x = ply % 2 == 0
    n = 0
    p = 0
    for c in range(columns):
        h = hs[c]
        if h < rows:
            child = _child_mask(m, p + h, mover_x)
            out[n] = base[code + powers[c]] + colex(child, nbytes, table, popcounts)
            n += 1
        p += h
    return n


@njit(cache=True, inline="always")
def children(code: int, x: int, discs: int, ply: int, tables: tuple[Any, ...], out: np.ndarray) -> int:
    """The children as boards, one a column not full."""
    columns, rows = tables[7], tables[8]
    hs = tables[4][code]
    n = 0
    for c in range(columns):
        if hs[c] < rows:
            bit = 1 << (c * (rows + 1) + hs[c])
            out[0, n] = x | bit if ply % 2 == 0 else x
            out[1, n] = discs | bit
            n += 1
    return n


@njit(cache=True, inline="always")
def state(x: int, discs: int, ply: int, tables: tuple[Any, ...]) -> int:
    """The state as the rules hold it: each column's discs below a sentinel bit."""
    columns, height = tables[7], tables[8] + 1
    state = 0
    for c in range(columns):
        state |= (x | (discs + (1 << (c * height)))) & (((1 << height) - 1) << (c * height))
    return state


#: This module, the family whose functions the passes of :func:`run_unit` call (compiled into them).
_FAMILY = sys.modules[__name__]


#: The passes of a Connect Four build, for the drivers of :mod:`tablebase.games.common.dense_kernels`.
KERNELS = Kernels(_arguments, _run)
