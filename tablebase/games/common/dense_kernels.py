"""What every dense build shares, compiled with numba: colex ranks of bit sets, and the passes over
a game's dense index (reach, label, keep, check, collect), written once.

A ply's slots fall into *units* of parallel work (a family's choice: a
height vector of Connect Four, a major set of an m,n,k board), each unit a
run of slots whose positions are the bit sets of one size in colex order
(:func:`next_colouring`). The passes over one unit (:func:`run_unit`) read
a position only through the compiled functions of its family's module,
compiled into the family's own pass (numba caches it with them).

A family module (:mod:`tablebase.games.connect4.index_passes`,
:mod:`tablebase.games.mnk.index_passes`) defines, compiled with
``inline="always"``, where a position is two ints ``(p, q)`` (Connect Four:
x's discs and every disc; m,n,k: the marks of the side to move and of the
other side) and ``tables`` is the tuple of :attr:`Kernels.arguments`:

- ``unit(ply, u, tables) -> (first slot, slots, set size, context)``
- ``position(context, colouring, tables) -> (p, q)``: the position of the
  unit's slot whose bit set is ``colouring``
- ``end(p, q, ply, tables) -> packed value`` where the game is over, else 0
- ``given(p, q, ply, tables) -> packed value`` the rules give (the game over,
  a win with the next move), else 0: such slots are not stored
- ``canonical(p, q, ply, tables) -> bool``: the slot kept for its class
- ``slot(p, q, ply, tables) -> int``: the slot its class is kept at
- ``child_slots(context, colouring, p, q, ply, tables, out) -> n``: the slots
  (in ply + 1) of its children into ``out``
- ``children(context, p, q, ply, tables, out) -> n``: its children as
  positions, ``(out[0, i], out[1, i])``
- ``state(p, q, ply, tables) -> int``: the rules' canonical state

and its pass over one unit, ``@unit_pass def _pass(...)`` calling
:func:`run_unit` with the module itself (so that numba inlines the
functions above into it), and a parallel loop over a ply's units calling
``_pass``: the ``run`` of its :class:`Kernels`.

:func:`reachable`, :func:`solve`, :func:`check` and :func:`positions` drive
the kernels over every ply the same way for every family: the reachable
slots found from the start, kept as bits between the passes, then every ply
labelled from the last back, at most two plies held as bytes.
"""

from __future__ import annotations

from math import comb
from types import ModuleType
from typing import Any, Callable, Iterator, NamedTuple, Protocol, TypeVar

import numpy as np
from numba import njit

from tablebase.games.common.dense_index import PlyCounts
from tablebase.progress import Progress

#: What :func:`run_unit` is given: the arrays it reads and writes, a ply's tables, the span of slots it visits.
Arrays = tuple[np.ndarray, ...]
Tables = tuple[Any, ...]
Span = tuple[int, int, np.ndarray]


class Index(Protocol):
    """What the passes read of a dense index: its cells (the last ply) and the slots of each ply."""

    cells: int
    sizes: np.ndarray


class Kernels(NamedTuple):
    """The compiled passes of one family over one ply (see :mod:`tablebase.games.connect4.index_passes`).

    ``arguments(index, ply)`` gives the ply's tables, the tuple every kernel
    takes last; its first two items bound the ply's units of parallel work
    (one row of the label counts and of the check's result each).
    ``run(mode, ply, arrays, tables, span)`` runs :func:`run_unit` over every unit
    from ``tables[0]`` to ``tables[1]`` in parallel.
    """

    arguments: Callable[[Any, int], tuple[Any, ...]]
    run: Callable[..., None]


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


_Function = TypeVar("_Function", bound=Callable[..., Any])


def unit_pass(function: _Function) -> _Function:
    """Compile a family's pass over one unit (its call of :func:`run_unit`): cached, and without
    reference counting, which the arrays its functions take from ``tables`` would pay at every slot
    otherwise (the pass allocates nothing: its caller hands it the room it works in)."""
    compiled: _Function = njit(cache=True, _nrt=False)(function)  # type: ignore[call-overload]
    return compiled


#: What :func:`run_unit` does with a unit's slots.
REACH, LABEL, KEEP, CHECK, COUNT, COLLECT = range(6)
#: The most children a position has (a state fits in 64 bits).
MOST_CHILDREN = 64


@njit(cache=True, inline="always")
def probe(family: ModuleType, p: int, q: int, ply: int, stored: np.ndarray, tables: tuple[Any, ...]) -> int:
    """The value of a position as a probe reads it: from the rules, else the stored slot of its class."""
    given: int = family.given(p, q, ply, tables)
    if given:
        return given
    value: Any = np.int64(stored[family.slot(p, q, ply, tables)])
    return int(value)


#: Binomial coefficients ``BINOM[n, k]`` up to 64 (a slot's colouring is a set of at most 64 bits).
BINOM = np.array([[comb(n, k) for k in range(65)] for n in range(65)], dtype=np.int64)


@njit(cache=True, inline="always")
def unrank_colouring(rank: int, size: int) -> int:
    """The bit set of ``size`` bits of colex rank ``rank`` (the inverse of :func:`colex`)."""
    mask = 0
    for k in range(size, 0, -1):
        q = k - 1
        while BINOM[q + 1, k] <= rank:
            q += 1
        rank -= BINOM[q, k]
        mask |= 1 << q
    return mask


@njit(cache=True, inline="always")
def in_window(windows: np.ndarray, s: int) -> int:
    """Where slot ``s`` of the next ply is in the buffer of ``windows`` (rows ``(first, end, offset)``,
    sorted and disjoint: slots ``first:end`` held from ``offset`` on)."""
    w = 0
    while s >= windows[w, 1]:
        w += 1
    at: int = s - windows[w, 0] + windows[w, 2]
    return at


#: The span of a pass over a whole ply: every slot, the next ply held whole.
WHOLE = (0, 1 << 62, np.array([[0, 1 << 62, 0]], dtype=np.int64))


@njit(cache=True, inline="always")
def run_unit(
    mode: int, family: ModuleType, ply: int, u: int, arrays: tuple[np.ndarray, ...], tables: tuple[Any, ...],
    span: tuple[int, int, np.ndarray], kids: np.ndarray,
) -> None:
    """One pass over the slots of unit ``u`` of ``ply`` through the functions of the ``family`` module
    (inlined: ``family`` is a module the caller names as a global), with ``kids``, ``(3, MOST_CHILDREN)``
    int64, to work in; ``arrays`` is ``(reach, values, children, out,
    states, packed)``, the unit's result in its row of ``out``, ``out[u - tables[0]]``.

    ``span`` is ``(first, end, windows)``: only the unit's slots in ``first:end`` are
    visited, ``reach`` and the ply's ``values`` hold the slots from ``first`` on, and
    the next ply's slots (``values`` in ``REACH``, ``children`` in ``LABEL``) are
    where :func:`in_window` puts them (:data:`WHOLE`: a whole ply, the next held
    whole). The modes:

    - ``REACH``: mark in ``values`` (ply + 1) the children of its reachable slots whose game goes on;
    - ``LABEL``: label its reachable slots in ``values`` from their children's (``children``, ply + 1),
      counting positions, classes, terminal classes, positions won, lost, drawn, classes won, lost,
      drawn into its row;
    - ``KEEP``: zero the slots of ``values`` not worth storing (other members of a class, slots whose
      value the rules give);
    - ``CHECK``: check its reachable slots kept for their class (``values``, as stored) against their
      children as stored (``children``): the first that disagrees to ``row[0]`` (else -1), the
      positions checked to ``row[1]``;
    - ``COUNT``: its reachable slots to ``row[0]``;
    - ``COLLECT``: the states and values (``values``, as stored) of those kept for their class into
      ``states`` and ``packed`` from ``row[0]`` on.
    """
    reach, values, children, out, states, packed = arrays
    low, high, windows = span
    first, per, size, context = family.unit(ply, u, tables)
    row = out[u - tables[0]]
    kid_positions = kids[1:]
    if mode == CHECK:
        row[0] = -1
    n = row[0]
    start = max(0, low - first)
    stop = min(per, high - first)
    m = (1 << size) - 1 if start == 0 else unrank_colouring(start, size)
    for j in range(start, stop):
        if j > start:
            m = next_colouring(m)
        slot = first + j - low
        if mode == KEEP:
            if values[slot] != 0:
                p, q = family.position(context, m, tables)
                if family.given(p, q, ply, tables) or not family.canonical(p, q, ply, tables):
                    values[slot] = 0
            continue
        if not reach[slot]:
            if mode == LABEL:
                values[slot] = 0
            continue
        if mode == COUNT:
            row[0] += 1
            continue
        p, q = family.position(context, m, tables)
        if mode == REACH:
            if not family.end(p, q, ply, tables):
                for k in range(family.child_slots(context, m, p, q, ply, tables, kids[0])):
                    values[in_window(windows, kids[0, k])] = 1
        elif mode == LABEL:
            value: Any = np.int64(family.end(p, q, ply, tables))
            terminal = value != 0
            if not terminal:
                win, draw, loss = 255, -1, -1
                for k in range(family.child_slots(context, m, p, q, ply, tables, kids[0])):
                    child: Any = np.int64(children[in_window(windows, kids[0, k])])
                    win, draw, loss = add_child(child, win, draw, loss)
                value = parent_value(win, draw, loss)
            values[slot] = value
            tally(row, value, family.canonical(p, q, ply, tables), terminal)
        elif not family.canonical(p, q, ply, tables):
            continue
        elif mode == COLLECT:
            states[n] = family.state(p, q, ply, tables)
            packed[n] = probe(family, p, q, ply, values, tables)
            n += 1
        else:
            row[1] += 1
            if family.given(p, q, ply, tables):
                continue
            win, draw, loss = 255, -1, -1
            corrupt = False
            for k in range(family.children(context, p, q, ply, tables, kid_positions)):
                cv = probe(family, kid_positions[0, k], kid_positions[1, k], ply + 1, children, tables)
                if cv & 3 == 0:
                    corrupt = True
                else:
                    win, draw, loss = add_child(cv, win, draw, loss)
            if (corrupt or values[slot] != parent_value(win, draw, loss)) and row[0] < 0:
                row[0] = slot + low


#: The arrays a pass does not use, of the types every pass is compiled for.
NO_BYTES = np.zeros(0, dtype=np.uint8)
NO_STATES = np.zeros(0, dtype=np.uint64)
NO_VALUES = np.zeros(0, dtype=np.uint16)


def _run(
    kernels: Kernels, mode: int, ply: int, reach: np.ndarray, values: np.ndarray, children: np.ndarray,
    tables: tuple[Any, ...], columns: int = 1,
) -> np.ndarray:
    """:attr:`Kernels.run` of every unit of ``ply`` in ``mode``: their rows of ``columns`` results."""
    out = np.zeros((tables[1] - tables[0], columns), dtype=np.int64)
    kernels.run(mode, ply, (reach, values, children, out, NO_STATES, NO_VALUES), tables, WHOLE)
    return out


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
            _run(kernels, REACH, p, current, nxt, NO_BYTES, kernels.arguments(index, p))
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
        counts = _run(kernels, LABEL, p, reach, values, children, kernels.arguments(index, p), 9)
        del reach
        if held is not None:
            _run(kernels, KEEP, held[0], NO_BYTES, children, NO_BYTES, kernels.arguments(index, held[0]))
            yield held[0], children, held[1]
        s = [int(c) for c in counts.sum(axis=0)]
        held = p, PlyCounts(s[0], s[1], s[2], (s[3], s[4], s[5]), (s[6], s[7], s[8]))
        done += values.size
        if progress is not None:
            progress("label", done, total)
        children = values
    assert held is not None
    _run(kernels, KEEP, 0, NO_BYTES, children, NO_BYTES, kernels.arguments(index, 0))
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
        result = _run(kernels, CHECK, p, reach, stored, children, kernels.arguments(index, p), 2)
        done += reach.size
        if progress is not None:
            progress("check", done, total)
        bad = result[:, 0]
        yield p, int(result[:, 1].sum()), bad[bad >= 0]
        children = stored


def positions(
    index: Index, kernels: Kernels, read: Callable[[int], np.ndarray], plies: tuple[int, int] | None = None
) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
    """Per ply that has positions (in ``plies``, inclusive, if given): the positions stored or given by
    the rules, as ``(ply, states, packed values)``, one position of each symmetry class, in slot order."""
    low, high = plies if plies is not None else (0, index.cells)
    for p, reach in enumerate(reachable(index, kernels, last=min(high, index.cells))):
        if p < low or not reach.any():
            continue
        arguments = kernels.arguments(index, p)
        # each unit writes from the count of reachable slots before it; a stored value is never 0
        counts = _run(kernels, COUNT, p, reach, NO_BYTES, NO_BYTES, arguments, 1)[:, 0]
        offsets = np.zeros((counts.size, 1), dtype=np.int64)
        np.cumsum(counts[:-1], out=offsets[1:, 0])
        states = np.zeros(int(counts.sum()), dtype=np.uint64)
        values = np.zeros(states.size, dtype=np.uint16)
        kernels.run(COLLECT, p, (reach, read(p), NO_BYTES, offsets, states, values), arguments, WHOLE)
        kept = values != 0
        yield p, states[kept], values[kept]
