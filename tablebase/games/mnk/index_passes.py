"""The build and the check of an m,n,k board over its dense index, compiled with numba.

The passes of :mod:`tablebase.games.common.dense_kernels` over
:class:`~tablebase.games.mnk.index.MNKIndex`: a slot of ply ``p`` is the
marks of the side to move (its *major* set) and those of the side that just
moved (its *minor* set, ranked among the cells the major set leaves). The
parallel work of a ply is one major set at a time, its minor sets in colex
order. A position's children keep its minor set as their major set (the
side to move changes), so the children of one position lie in one stretch
of the next ply.

Reaching and labelling go over every slot (no symmetry), each child by its
own slot; what is stored keeps one slot of each symmetry class, the one
whose (major, minor) pair is the least under the board's symmetries, and
not the slots whose value the rules give (:meth:`MNKIndex.derived`).
"""

from __future__ import annotations

import sys
from typing import Any, Protocol

import numpy as np
from numba import njit, prange

from tablebase.games.common.dense_index import DRAWN_END, LOST_END, WIN_NOW, WON_END
from tablebase.games.common.dense_kernels import (
    MOST_CHILDREN, POPCOUNTS, Arrays, Index, Kernels, Span, Tables, colex, run_unit, unit_pass, unrank_colouring,
)


class MNKTables(Index, Protocol):
    """The tables of :class:`tablebase.games.mnk.index.MNKIndex` the kernels read."""

    binom: np.ndarray
    images: np.ndarray
    colex_table: np.ndarray
    pext: np.ndarray
    line_masks: np.ndarray
    k: int
    misere: bool


@unit_pass
def _pass(mode: int, ply: int, i: int, arrays: Arrays, tables: Tables, span: Span, kids: np.ndarray) -> None:
    """:func:`~tablebase.games.common.dense_kernels.run_unit` over major set ``i``, this module's functions compiled in."""
    run_unit(mode, _FAMILY, ply, i, arrays, tables, span, kids)


def _arguments(index: MNKTables, ply: int) -> tuple[Any, ...]:
    """The tables every kernel takes, for one ply; the parallel work is one major set each."""
    cells = index.cells
    a, b = ply // 2, ply - ply // 2
    return (
        0,
        int(index.binom[cells, a]),
        index.binom,
        cells,
        a,
        b,
        index.images,
        index.colex_table,
        index.pext,
        POPCOUNTS,
        (cells + 7) // 8,
        index.line_masks,
        index.k,
        index.misere,
    )


@njit(cache=True, parallel=True)
def _run(mode: int, ply: int, arrays: Arrays, tables: Tables, span: Span) -> None:
    """:func:`_pass` over every major set of ``ply``, in parallel."""
    for i in prange(tables[0], tables[1]):
        _pass(mode, ply, i, arrays, tables, span, np.empty((3, MOST_CHILDREN), dtype=np.int64))


@njit(cache=True, inline="always")
def _image(bits: int, s: int, images: np.ndarray, nbytes: int) -> int:
    out = 0
    for j in range(nbytes):
        out |= images[s, j, (bits >> (8 * j)) & 255]
    return out


@njit(cache=True, inline="always")
def _popcount(bits: int, popcounts: np.ndarray, nbytes: int) -> int:
    total = 0
    for j in range(nbytes):
        total += popcounts[(bits >> (8 * j)) & 255]
    return total


@njit(cache=True, inline="always")
def _rank_in(bits: int, free: int, nbytes: int, table: np.ndarray, pext: np.ndarray, popcounts: np.ndarray) -> int:
    """The colex rank of ``bits`` (a subset of ``free``) with the cells numbered within ``free``."""
    m = 0
    shift = 0
    for j in range(nbytes):
        fb = (free >> (8 * j)) & 255
        m |= pext[fb, (bits >> (8 * j)) & 255] << shift
        shift += popcounts[fb]
    return colex(m, nbytes, table, popcounts)


@njit(cache=True, inline="always")
def _deposit(m: int, free: int) -> int:
    """The cells of ``free`` (a bit set) for the bits of ``m``, the lowest cell for bit 0."""
    out = 0
    j = 0
    while free:
        c = free & -free
        free ^= c
        if (m >> j) & 1:
            out |= c
        j += 1
    return out


@njit(cache=True, inline="always")
def _has_line(bits: int, lines: np.ndarray) -> bool:
    for line in lines:
        if bits & line == line:
            return True
    return False


@njit(cache=True, inline="always")
def _derived(
    major: int, minor: int, ply: int, cells: int, lines: np.ndarray, k: int, misere: bool, popcounts: np.ndarray,
    nbytes: int,
) -> int:
    """The packed value the rules give a slot (the end of the game, a win with the next move), else 0."""
    if ply and _has_line(minor, lines):
        return WON_END if misere else LOST_END
    if ply == cells:
        return DRAWN_END
    if not misere:
        for line in lines:
            if line & minor == 0 and _popcount(line & major, popcounts, nbytes) == k - 1:
                return WIN_NOW
    return 0


@njit(cache=True, inline="always")
def _is_canonical(major: int, minor: int, cells: int, images: np.ndarray, nbytes: int) -> bool:
    """Whether no symmetry maps (major, minor) to a smaller pair."""
    key = (major << cells) | minor
    for s in range(1, images.shape[0]):
        if ((_image(major, s, images, nbytes) << cells) | _image(minor, s, images, nbytes)) < key:
            return False
    return True


@njit(cache=True, inline="always")
def unit(ply: int, i: int, tables: tuple[Any, ...]) -> tuple[int, int, int, tuple[int, int]]:
    """Major set ``i``: its first slot, its minor sets (ranked among the cells it leaves), their size."""
    binom, cells, a, b = tables[2], tables[3], tables[4], tables[5]
    major = unrank_colouring(i, a)
    per = binom[cells - a, b]
    return i * per, per, b, (major, ((1 << cells) - 1) & ~major)


@njit(cache=True, inline="always")
def position(context: tuple[int, int], m: int, tables: tuple[Any, ...]) -> tuple[int, int]:
    """``(major, minor)`` of a minor set given as its bits among the free cells."""
    major, free = context
    return major, _deposit(m, free)


@njit(cache=True, inline="always")
def end(major: int, minor: int, ply: int, tables: tuple[Any, ...]) -> int:
    """Lost in 0 (won in 0 misère) where the side that just moved has a line, drawn in 0 on a full board, else 0."""
    cells, lines, misere = tables[3], tables[11], tables[13]
    if ply and _has_line(minor, lines):
        return WON_END if misere else LOST_END
    if ply == cells:
        return DRAWN_END
    return 0


@njit(cache=True, inline="always")
def given(major: int, minor: int, ply: int, tables: tuple[Any, ...]) -> int:
    _lo, _hi, _binom, cells, _a, _b, _images, _table, _pext, popcounts, nbytes, lines, k, misere = tables
    return _derived(major, minor, ply, cells, lines, k, misere, popcounts, nbytes)


@njit(cache=True, inline="always")
def canonical(major: int, minor: int, ply: int, tables: tuple[Any, ...]) -> bool:
    return _is_canonical(major, minor, tables[3], tables[6], tables[10])


@njit(cache=True, inline="always")
def slot(major: int, minor: int, ply: int, tables: tuple[Any, ...]) -> int:
    """The slot of the class: its least (major, minor) pair under the symmetries."""
    _lo, _hi, binom, cells, _a, _b, images, table, pext, popcounts, nbytes, _lines, _k, _misere = tables
    key = (major << cells) | minor
    for s in range(1, images.shape[0]):
        image = (_image(major, s, images, nbytes) << cells) | _image(minor, s, images, nbytes)
        if image < key:
            key = image
    full = (1 << cells) - 1
    best_major = key >> cells
    per = binom[cells - ply // 2, ply - ply // 2]
    minor_rank = _rank_in(key & full, full & ~best_major, nbytes, table, pext, popcounts)
    slot: int = colex(best_major, nbytes, table, popcounts) * per + minor_rank
    return slot


@njit(cache=True, inline="always")
def child_slots(
    context: tuple[int, int], m: int, major: int, minor: int, ply: int, tables: tuple[Any, ...], out: np.ndarray
) -> int:
    """The slots of the children, one an empty cell: they keep ``minor`` as their major set."""
    _lo, _hi, binom, cells, a, b, _images, table, pext, popcounts, nbytes, _lines, _k, _misere = tables
    full = (1 << cells) - 1
    base = colex(minor, nbytes, table, popcounts) * binom[cells - b, a + 1]
    child_free = full & ~minor
    empty = full & ~(major | minor)
    n = 0
    while empty:
        c = empty & -empty
        empty ^= c
        out[n] = base + _rank_in(major | c, child_free, nbytes, table, pext, popcounts)
        n += 1
    return n


@njit(cache=True, inline="always")
def children(context: tuple[int, int], major: int, minor: int, ply: int, tables: tuple[Any, ...], out: np.ndarray) -> int:
    """The children as ``(major, minor)`` pairs, one an empty cell."""
    empty = ((1 << tables[3]) - 1) & ~(major | minor)
    n = 0
    while empty:
        c = empty & -empty
        empty ^= c
        out[0, n] = minor
        out[1, n] = major | c
        n += 1
    return n


@njit(cache=True, inline="always")
def state(major: int, minor: int, ply: int, tables: tuple[Any, ...]) -> int:
    """The rules' canonical form (the least state integer, x's marks low)."""
    cells, images, nbytes = tables[3], tables[6], tables[10]
    x, o = (major, minor) if ply % 2 == 0 else (minor, major)
    state: int = x | (o << cells)
    for s in range(1, images.shape[0]):
        image = _image(x, s, images, nbytes) | (_image(o, s, images, nbytes) << cells)
        if image < state:
            state = image
    return state


#: This module, the family whose functions the passes of :func:`run_unit` call (compiled into them).
_FAMILY = sys.modules[__name__]


#: The passes of an m,n,k build, for the drivers of :mod:`tablebase.games.common.dense_kernels`.
KERNELS = Kernels(_arguments, _run)
