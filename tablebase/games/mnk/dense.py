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

from typing import Any, Protocol

import numpy as np
from numba import njit, prange

from tablebase.games.common.dense import DRAWN_END, LOST_END, WIN_NOW, WON_END
from tablebase.games.common.dense_kernels import POPCOUNTS, Kernels, add_child, colex, next_colouring, parent_value, tally

class MNKIndex(Protocol):
    """The tables of :class:`tablebase.games.mnk.index.MNKIndex` the kernels read."""

    cells: int
    sizes: np.ndarray
    binom: np.ndarray
    images: np.ndarray
    colex_table: np.ndarray
    pext: np.ndarray
    line_masks: np.ndarray
    k: int
    misere: bool


def _arguments(index: MNKIndex, ply: int) -> tuple[Any, ...]:
    """The tables every kernel takes, for one ply; the parallel work is one major set each."""
    cells = index.cells
    a, b = ply // 2, ply - ply // 2
    return (
        index.binom,
        0,
        int(index.binom[cells, a]),
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
def _unrank(rank: int, k: int, binom: np.ndarray) -> int:
    """The bit set of ``k`` cells of colex rank ``rank``."""
    mask = 0
    for kk in range(k, 0, -1):
        q = kk - 1
        while binom[q + 1, kk] <= rank:
            q += 1
        rank -= binom[q, kk]
        mask |= 1 << q
    return mask


@njit(cache=True, inline="always")
def _deposit(m: int, cells: np.ndarray, count: int) -> int:
    """The cells ``cells[j]`` for the bits ``j`` of ``m``."""
    out = 0
    for j in range(count):
        if (m >> j) & 1:
            out |= 1 << cells[j]
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
def _read_value(
    major: int, minor: int, ply: int, stored: np.ndarray, per: int, cells: int, images: np.ndarray, table: np.ndarray,
    pext: np.ndarray, popcounts: np.ndarray, nbytes: int, lines: np.ndarray, k: int, misere: bool,
) -> int:
    """The value of a slot as a probe reads it: from the rules, else the stored slot of its class."""
    derived = _derived(major, minor, ply, cells, lines, k, misere, popcounts, nbytes)
    if derived:
        return derived
    key = (major << cells) | minor
    for s in range(1, images.shape[0]):
        image = (_image(major, s, images, nbytes) << cells) | _image(minor, s, images, nbytes)
        if image < key:
            key = image
    full = (1 << cells) - 1
    best_major = key >> cells
    slot = colex(best_major, nbytes, table, popcounts) * per + _rank_in(key & full, full & ~best_major, nbytes, table, pext, popcounts)
    value: Any = np.int64(stored[slot])
    return int(value)


@njit(cache=True, inline="always")
def _free_cells(major: int, cells: int, out: np.ndarray) -> None:
    n = 0
    for c in range(cells):
        if not (major >> c) & 1:
            out[n] = c
            n += 1


@njit(cache=True, parallel=True)
def _reach(
    ply: int, reach: np.ndarray, nxt: np.ndarray, binom: np.ndarray, lo: int, hi: int, cells: int, a: int, b: int,
    images: np.ndarray, table: np.ndarray, pext: np.ndarray, popcounts: np.ndarray, nbytes: int, lines: np.ndarray,
    k: int, misere: bool,
) -> None:
    """Mark in ``nxt`` (ply + 1) the children of the reachable slots of ``ply`` whose game goes on."""
    full = (1 << cells) - 1
    per = binom[cells - a, b]
    child_per = binom[cells - b, a + 1]
    for i in prange(lo, hi):
        major = _unrank(i, a, binom)
        free = np.empty(cells - a, dtype=np.int64)
        _free_cells(major, cells, free)
        m = (1 << b) - 1
        for j in range(per):
            if j:
                m = next_colouring(m)
            if not reach[i * per + j]:
                continue
            minor = _deposit(m, free, cells - a)
            if (ply and _has_line(minor, lines)) or ply == cells:
                continue
            base = colex(minor, nbytes, table, popcounts) * child_per
            child_free = full & ~minor
            empty = full & ~(major | minor)
            while empty:
                c = empty & -empty
                empty ^= c
                nxt[base + _rank_in(major | c, child_free, nbytes, table, pext, popcounts)] = 1


@njit(cache=True, parallel=True)
def _label(
    ply: int, reach: np.ndarray, values: np.ndarray, children: np.ndarray, counts: np.ndarray, binom: np.ndarray,
    lo: int, hi: int, cells: int, a: int, b: int, images: np.ndarray, table: np.ndarray, pext: np.ndarray,
    popcounts: np.ndarray, nbytes: int, lines: np.ndarray, k: int, misere: bool,
) -> None:
    """Label the reachable slots of ``ply`` from their children's values (``children``, ply + 1).

    ``counts[i - lo]`` gets, per major set: positions, classes, terminal
    classes, positions won, lost, drawn, classes won, lost, drawn.
    """
    full = (1 << cells) - 1
    per = binom[cells - a, b]
    child_per = binom[cells - b, a + 1] if ply < cells else 0
    for i in prange(lo, hi):
        major = _unrank(i, a, binom)
        free = np.empty(cells - a, dtype=np.int64)
        _free_cells(major, cells, free)
        row = counts[i - lo]
        m = (1 << b) - 1
        for j in range(per):
            if j:
                m = next_colouring(m)
            slot = i * per + j
            if not reach[slot]:
                values[slot] = 0
                continue
            minor = _deposit(m, free, cells - a)
            terminal = True
            if ply and _has_line(minor, lines):
                value: Any = np.int64(WON_END if misere else LOST_END)
            elif ply == cells:
                value = np.int64(DRAWN_END)
            else:
                terminal = False
                win = 255
                draw = -1
                loss = -1
                base = colex(minor, nbytes, table, popcounts) * child_per
                child_free = full & ~minor
                empty = full & ~(major | minor)
                while empty:
                    c = empty & -empty
                    empty ^= c
                    cv: Any = np.int64(children[base + _rank_in(major | c, child_free, nbytes, table, pext, popcounts)])
                    win, draw, loss = add_child(cv, win, draw, loss)
                value = parent_value(win, draw, loss)
            values[slot] = value
            tally(row, value, _is_canonical(major, minor, cells, images, nbytes), terminal)


@njit(cache=True, parallel=True)
def _keep(
    ply: int, values: np.ndarray, binom: np.ndarray, lo: int, hi: int, cells: int, a: int, b: int,
    images: np.ndarray, table: np.ndarray, pext: np.ndarray, popcounts: np.ndarray, nbytes: int, lines: np.ndarray,
    k: int, misere: bool,
) -> None:
    """Zero the slots not worth storing: other members of a symmetry class, and slots whose value the rules give."""
    per = binom[cells - a, b]
    for i in prange(lo, hi):
        major = _unrank(i, a, binom)
        free = np.empty(cells - a, dtype=np.int64)
        _free_cells(major, cells, free)
        m = (1 << b) - 1
        for j in range(per):
            if j:
                m = next_colouring(m)
            slot = i * per + j
            if values[slot] == 0:
                continue
            minor = _deposit(m, free, cells - a)
            if _derived(major, minor, ply, cells, lines, k, misere, popcounts, nbytes) or not _is_canonical(
                major, minor, cells, images, nbytes
            ):
                values[slot] = 0


@njit(cache=True, parallel=True)
def _check(
    ply: int, reach: np.ndarray, stored: np.ndarray, children: np.ndarray, bad: np.ndarray, checked: np.ndarray,
    binom: np.ndarray, lo: int, hi: int, cells: int, a: int, b: int, images: np.ndarray, table: np.ndarray,
    pext: np.ndarray, popcounts: np.ndarray, nbytes: int, lines: np.ndarray, k: int, misere: bool,
) -> None:
    """Check every reachable slot of ``ply`` kept for its class against its children as stored; the first
    slot of each major set that disagrees goes to ``bad[i - lo]`` (else -1), the positions checked to ``checked``."""
    full = (1 << cells) - 1
    per = binom[cells - a, b]
    child_per = binom[cells - b, a + 1] if ply < cells else 0
    for i in prange(lo, hi):
        major = _unrank(i, a, binom)
        free = np.empty(cells - a, dtype=np.int64)
        _free_cells(major, cells, free)
        bad[i - lo] = -1
        m = (1 << b) - 1
        for j in range(per):
            if j:
                m = next_colouring(m)
            slot = i * per + j
            if not reach[slot]:
                continue
            minor = _deposit(m, free, cells - a)
            if not _is_canonical(major, minor, cells, images, nbytes):
                continue
            checked[i - lo] += 1
            value = _read_value(major, minor, ply, stored, per, cells, images, table, pext, popcounts, nbytes, lines, k, misere)
            if _derived(major, minor, ply, cells, lines, k, misere, popcounts, nbytes):
                continue
            win = 255
            draw = -1
            loss = -1
            corrupt = False
            empty = full & ~(major | minor)
            while empty:
                c = empty & -empty
                empty ^= c
                cv = _read_value(
                    minor, major | c, ply + 1, children, child_per, cells, images, table, pext, popcounts, nbytes,
                    lines, k, misere,
                )
                if cv & 3 == 0:
                    corrupt = True
                else:
                    win, draw, loss = add_child(cv, win, draw, loss)
            expected = parent_value(win, draw, loss)
            if corrupt or value != expected:
                if bad[i - lo] < 0:
                    bad[i - lo] = slot


@njit(cache=True)
def _collect(
    ply: int, reach: np.ndarray, stored: np.ndarray, states: np.ndarray, values: np.ndarray, binom: np.ndarray,
    lo: int, hi: int, cells: int, a: int, b: int, images: np.ndarray, table: np.ndarray, pext: np.ndarray,
    popcounts: np.ndarray, nbytes: int, lines: np.ndarray, k: int, misere: bool,
) -> int:
    """The reachable positions of ``ply``, one of each class in the rules' canonical form (the least
    state integer), with their values."""
    per = binom[cells - a, b]
    n = 0
    for i in range(lo, hi):
        major = _unrank(i, a, binom)
        free = np.empty(cells - a, dtype=np.int64)
        _free_cells(major, cells, free)
        m = (1 << b) - 1
        for j in range(per):
            if j:
                m = next_colouring(m)
            if not reach[i * per + j]:
                continue
            minor = _deposit(m, free, cells - a)
            if not _is_canonical(major, minor, cells, images, nbytes):
                continue
            x, o = (major, minor) if ply % 2 == 0 else (minor, major)
            state = x | (o << cells)
            for s in range(1, images.shape[0]):
                image = _image(x, s, images, nbytes) | (_image(o, s, images, nbytes) << cells)
                if image < state:
                    state = image
            states[n] = state
            values[n] = _read_value(major, minor, ply, stored, per, cells, images, table, pext, popcounts, nbytes, lines, k, misere)
            n += 1
    return n


#: The passes of an m,n,k build, for the drivers of :mod:`tablebase.games.common.dense_kernels`.
KERNELS = Kernels(_arguments, _reach, _label, _keep, _check, _collect)

