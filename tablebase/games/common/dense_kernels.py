"""What every dense build shares, compiled with numba: colex ranks of bit sets, and the passes over
a game's dense index (reach, label, keep, check, collect) driven ply by ply.

A game family's module supplies the compiled kernels of one ply
(:class:`Kernels`); :func:`reachable`, :func:`solve`, :func:`check` and
:func:`positions` run them over every ply the same way for every family:
the reachable slots found from the start, kept as bits between the passes,
then every ply labelled from the last back, at most two plies held as bytes.
"""

from __future__ import annotations

from math import comb
from typing import Any, Callable, Iterator, NamedTuple, Protocol

import numpy as np
from numba import njit

from tablebase.games.common.dense import PlyCounts

Progress = Callable[[str, int, int], None]


class Index(Protocol):
    """What the passes read of a dense index: its cells (the last ply) and the slots of each ply."""

    cells: int
    sizes: np.ndarray


class Kernels(NamedTuple):
    """The compiled passes of one family, each over one ply (see :mod:`tablebase.games.connect4.dense`).

    ``arguments(index, ply)`` gives the tables every kernel takes after its
    own arrays; its second and third items bound the ply's units of
    parallel work (one row of the label counts and one entry of the check's
    result each).
    """

    arguments: Callable[[Any, int], tuple[Any, ...]]
    reach: Callable[..., None]
    label: Callable[..., None]
    keep: Callable[..., None]
    check: Callable[..., None]
    collect: Callable[..., int]


def colex_table(nbytes: int, counts: int) -> np.ndarray:
    """``T[j, t, b]``: the colex terms of the set bits of byte ``b`` at byte ``j`` with ``t`` set bits below."""
    table = np.zeros((nbytes, counts, 256), dtype=np.int64)
    for j in range(nbytes):
        for t in range(counts):
            for b in range(256):
                k, total = t, 0
                for bit in range(8):
                    if b >> bit & 1:
                        k += 1
                        total += comb(8 * j + bit, k)
                table[j, t, b] = total
    return table


POPCOUNTS = np.array([bin(b).count("1") for b in range(256)], dtype=np.int64)


@njit(cache=True, inline="always")
def colex(mask: int, nbytes: int, table: np.ndarray, popcounts: np.ndarray) -> int:
    """The rank of a bit set among the sets of its size, in colex order (its order as an integer)."""
    rank = 0
    below = 0
    for j in range(nbytes):
        b = (mask >> (8 * j)) & 255
        if b:
            rank += table[j, below, b]
            below += popcounts[b]
    return rank


@njit(cache=True, inline="always")
def next_colouring(m: int) -> int:
    """The next bit set of the same size in colex order."""
    low = m & -m
    r = m + low
    return (((r ^ m) >> 2) // low) | r


@njit(cache=True, inline="always")
def add_child(value: int, win: int, draw: int, loss: int) -> tuple[int, int, int]:
    """The least distance + 1 of a child lost for its side to move (255: none), and the greatest of a
    drawn and of a won child (-1: none), with the packed value of one more child."""
    outcome = value & 3
    d = value >> 2
    if outcome == 2:
        win = min(win, d)
    elif outcome == 3:
        draw = max(draw, d)
    else:
        loss = max(loss, d)
    return win, draw, loss


@njit(cache=True, inline="always")
def parent_value(win: int, draw: int, loss: int) -> int:
    """The packed value of a position from what :func:`add_child` gathered of its children."""
    if win != 255:
        return 1 | ((win + 1) << 2)
    if draw >= 0:
        return 3 | ((draw + 1) << 2)
    return 2 | ((loss + 1) << 2)


@njit(cache=True, inline="always")
def tally(row: np.ndarray, value: int, canonical: bool, terminal: bool) -> None:
    """Count a labelled slot in its row of the label counts: positions, classes, terminal classes,
    positions won, lost and drawn, classes won, lost and drawn."""
    outcome = value & 3
    row[0] += 1
    row[2 + outcome] += 1
    if canonical:
        row[1] += 1
        row[5 + outcome] += 1
        if terminal:
            row[2] += 1


def reachable(index: Index, kernels: Kernels, progress: Progress | None = None, last: int | None = None) -> Iterator[np.ndarray]:
    """Per ply (up to ``last``), one byte a slot: 1 where a position can arise in play."""
    current = np.zeros(int(index.sizes[0]), dtype=np.uint8)
    current[0] = 1
    total = int(index.sizes.sum())
    done = 0
    top = index.cells if last is None else last
    for p in range(top + 1):
        nxt: np.ndarray | None = None
        if p < index.cells:
            nxt = np.zeros(int(index.sizes[p + 1]), dtype=np.uint8)
            kernels.reach(p, current, nxt, *kernels.arguments(index, p))
        done += current.size
        if progress is not None:
            progress("reach", done, total)
        yield current
        if nxt is None:
            return
        current = nxt


def solve(index: Index, kernels: Kernels, progress: Progress | None = None) -> Iterator[tuple[int, np.ndarray, PlyCounts]]:
    """Every ply's values to store (one ``np.uint8`` a slot, 0 where nothing is stored), last ply first,
    with its counts."""
    reach_bits = [np.packbits(r, bitorder="little") for r in reachable(index, kernels, progress)]
    total = int(index.sizes.sum())
    done = 0
    children = np.zeros(0, dtype=np.uint8)
    held: tuple[int, PlyCounts] | None = None
    for p in range(index.cells, -1, -1):
        reach = np.unpackbits(reach_bits.pop(), count=int(index.sizes[p]), bitorder="little")
        values = np.empty(reach.size, dtype=np.uint8)
        arguments = kernels.arguments(index, p)
        counts = np.zeros((arguments[2] - arguments[1], 9), dtype=np.int64)
        kernels.label(p, reach, values, children, counts, *arguments)
        del reach
        if held is not None:
            kernels.keep(held[0], children, *kernels.arguments(index, held[0]))
            yield held[0], children, held[1]
        s = [int(c) for c in counts.sum(axis=0)]
        held = p, PlyCounts(s[0], s[1], s[2], (s[3], s[4], s[5]), (s[6], s[7], s[8]))
        done += values.size
        if progress is not None:
            progress("label", done, total)
        children = values
    assert held is not None
    kernels.keep(0, children, *kernels.arguments(index, 0))
    yield 0, children, held[1]


def check(
    index: Index, kernels: Kernels, read: Callable[[int], np.ndarray], progress: Progress | None = None
) -> Iterator[tuple[int, int, np.ndarray]]:
    """Per ply, last first: ``(ply, positions checked, slots whose stored label disagrees with their
    children's)``; ``read(p)`` gives ply ``p``'s stored values, one byte a slot."""
    reach_bits = [np.packbits(r, bitorder="little") for r in reachable(index, kernels, progress)]
    children = np.zeros(0, dtype=np.uint8)
    total = int(index.sizes.sum())
    done = 0
    for p in range(index.cells, -1, -1):
        reach = np.unpackbits(reach_bits.pop(), count=int(index.sizes[p]), bitorder="little")
        stored = read(p)
        arguments = kernels.arguments(index, p)
        units = arguments[2] - arguments[1]
        bad = np.empty(units, dtype=np.int64)
        checked = np.zeros(units, dtype=np.int64)
        kernels.check(p, reach, stored, children, bad, checked, *arguments)
        done += reach.size
        if progress is not None:
            progress("check", done, total)
        yield p, int(checked.sum()), bad[bad >= 0]
        children = stored


def positions(
    index: Index, kernels: Kernels, read: Callable[[int], np.ndarray], plies: tuple[int, int] | None = None
) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
    """Per ply that has positions (in ``plies``, inclusive, if given): the positions stored or given by
    the rules, as ``(ply, states, packed values)``, one position of each symmetry class, in slot order."""
    low, high = plies if plies is not None else (0, index.cells)
    for p, reach in enumerate(reachable(index, kernels, last=min(high, index.cells))):
        n = int(reach.sum())
        if p < low or not n:
            continue
        states = np.empty(n, dtype=np.uint64)
        values = np.empty(n, dtype=np.uint16)
        found = kernels.collect(p, reach, read(p), states, values, *kernels.arguments(index, p))
        yield p, states[:found], values[:found]
