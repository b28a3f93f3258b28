"""What a game gives to be stored densely: a numbering of its positions, ply by ply (its *dense index*).

The ``dense`` storage (:mod:`tablebase.store.dense`) keeps one value a slot
of that numbering and lets the index solve and check the game over it.
Connect Four's is :mod:`tablebase.games.connect4.index`, that of m,n,k boards
:mod:`tablebase.games.mnk.index`.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb
from typing import TYPE_CHECKING, Callable, Iterator, Protocol

if TYPE_CHECKING:
    import numpy as np

    from tablebase.progress import Progress


#: Packed values (``outcome | (distance + 1) << 2``, :func:`tablebase.store.block_codec.pack_values`) that
#: rules commonly give without a search: a game lost, won or drawn at its end, a win with the next move.
LOST_END = 2 | 1 << 2
WON_END = 1 | 1 << 2
DRAWN_END = 3 | 1 << 2
WIN_NOW = 1 | 2 << 2


@dataclass(frozen=True)
class PlyCounts:
    """What one ply of a dense build holds (positions: symmetric images counted; classes: one each)."""

    positions: int
    classes: int
    #: Classes where the game is over.
    terminal: int
    #: Positions won, lost and drawn for the side to move.
    outcomes: tuple[int, int, int]
    #: Classes won, lost and drawn for the side to move.
    class_outcomes: tuple[int, int, int]


class DenseIndex(Protocol):
    """A game's dense numbering of its positions, ply by ply, with the build and check over it."""

    def ply_sizes(self) -> list[int]:
        """The number of slots of each ply, from ply 0."""
        ...

    def slot(self, state: int) -> tuple[int, int]:
        """``(ply, slot)`` of the state's symmetry class (the slot of its canonical form)."""
        ...

    def find(self, state: int) -> tuple[int | None, int, int]:
        """``(derived value, ply, slot)``: :meth:`derived` and :meth:`slot` at once; slot -1 for a
        state the parser accepts that no game reaches, when the index can tell."""
        ...

    def children(self, state: int) -> list[tuple[int, int, int | None, int, int]]:
        """``(move, child, derived value, ply, slot)`` of every move of a position not over."""
        ...

    def state(self, ply: int, slot: int) -> int:
        """The state of a slot."""
        ...

    def derived(self, state: int) -> int | None:
        """The packed value the rules give for a position (not stored), ``None`` if they do not."""
        ...

    def child_windows(self, ply: int, first: int, end: int) -> list[tuple[int, int]]:
        """Ranges ``(first, end)`` of slots of ``ply + 1``, sorted and disjoint, that hold every child
        of the slots ``first:end`` of ``ply`` (what a task over those slots reads of the next ply)."""
        ...

    def solve(self, progress: Progress | None = None) -> Iterator[tuple[int, np.ndarray, PlyCounts]]:
        """Per ply, in any order: ``(ply, values, counts)``, the values one ``np.uint8`` a slot,
        0 where nothing is stored."""
        ...

    def check(
        self, read: Callable[[int], np.ndarray], progress: Progress | None = None
    ) -> Iterator[tuple[int, int, np.ndarray]]:
        """Per ply: ``(ply, positions checked, slots whose stored label disagrees with their children)``,
        ``read(p)`` giving the stored bytes of ply ``p``."""
        ...

    def positions(
        self, read: Callable[[int], np.ndarray], plies: tuple[int, int] | None = None
    ) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
        """Per ply (in ``plies`` if given), in order: ``(ply, canonical states, packed values)`` of every position."""
        ...


def colex_terms(offset: int, below: int, byte: int) -> int:
    """The colex terms of the set bits of ``byte`` at bit ``offset`` of a set, ``below`` set bits before it."""
    total = 0
    for bit in range(8):
        if byte >> bit & 1:
            below += 1
            total += comb(offset + bit, below)
    return total


#: Set bits of each byte.
POPCOUNT = [bin(b).count("1") for b in range(256)]


def colex_unrank(rank: int, size: int, binom: list[list[int]]) -> int:
    """The bit set of ``size`` bits of colex rank ``rank`` (``binom[n][k]``: binomial coefficients)."""
    mask = 0
    for k in range(size, 0, -1):
        q = k - 1
        while binom[q + 1][k] <= rank:
            q += 1
        rank -= binom[q][k]
        mask |= 1 << q
    return mask


def colex_rank(bits: int, terms: list[list[list[int]]]) -> int:
    """The colex rank of a bit set from the tables ``terms[j][t][b]`` of :func:`colex_terms` (byte ``b``
    at byte ``j`` with ``t`` set bits below)."""
    rank = below = 0
    for table in terms:
        b = bits & 255
        if b:
            rank += table[below][b]
            below += POPCOUNT[b]
        bits >>= 8
        if not bits:
            break
    return rank
