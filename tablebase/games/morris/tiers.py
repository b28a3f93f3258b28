"""The movement-phase tiers of a Morris game: every position with both hands empty, by stones on the board.

A tier is :class:`Tier` ``(x, o)``: ``x`` stones of x and ``o`` of o on the
board, none in hand. A slide (or a flight) keeps a position in its tier; a
mill's removal takes it to ``(x, o - 1)`` (x removed an o) or ``(x - 1, o)``,
so the tiers with fewer stones are solved first. A tier in which both sides
hold at least three stones has both sides to move. A side is left with two
stones only by the removal that ends the game, so it is then the side to
move, and has lost: tier ``(2, o)`` holds x to move only, ``(x, 2)`` o to
move only, every position of them a loss at distance 0.

The values of a movement-phase position do not depend on how many stones the
game started with (no rule reads the hands once they are empty), so
``morris-9`` and ``morris-9-S`` for ``S`` at least both counts give every
position of a tier the same value.

:class:`MorrisTiers` lists the tiers of at most ``max_stones`` a side and
enumerates each as the sorted array of its canonical states (one a class of
the board's symmetries), which is what :func:`tablebase.solve.tiers.solve_tiers`
reads (the reference the tier engine is tested against); a tier is numbered ``100 x + o``
(:meth:`~MorrisTiers.number`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple, Protocol

import numpy as np

from tablebase.games.common.kernels import BitboardKernels, popcount

if TYPE_CHECKING:
    from tablebase.games.common.kernels import VectorKernels


class TieredGame(Protocol):
    """What the tiers read of a Morris game (:class:`~tablebase.games.morris.rules.MorrisGame`)."""

    name: str
    cells: int

    @property
    def vector(self) -> VectorKernels | None: ...

#: Candidate states handled at once while a tier is enumerated (the temporaries stay small).
_CHUNK = 1 << 20


class Tier(NamedTuple):
    """A movement-phase tier: the stones of x and of o on the board (none in hand)."""

    x: int
    o: int

    def __str__(self) -> str:
        return f"{self.x}-{self.o}"


def tier_name(cells: int, number: int) -> str | None:
    """``"x-o"`` of the tier a board of ``cells`` points stores under ``number`` (``100 x + o``), else ``None``."""
    x, o = divmod(number, 100)
    if not (2 <= x and 2 <= o and max(x, o) >= 3 and x + o < cells):
        return None
    return str(Tier(x, o))


def subsets(n: int, k: int) -> np.ndarray:
    """Every ``k``-subset of ``n`` points as an ``np.uint64`` bitmask, in increasing order."""
    # by_size[j]: the j-subsets of the points added so far, sorted; a new point's subsets sort after the rest
    by_size = [np.zeros(1, dtype=np.uint64)] + [np.empty(0, dtype=np.uint64)] * k
    for point in range(n):
        bit = np.uint64(1 << point)
        for j in range(min(k, point + 1), 0, -1):
            by_size[j] = np.concatenate([by_size[j], by_size[j - 1] | bit])
    return by_size[k]


class MorrisTiers:
    """The movement-phase tiers of ``game`` with at most ``max_stones`` stones a side."""

    def __init__(self, game: TieredGame, max_stones: int):
        if not 3 <= max_stones <= 15 or 2 * max_stones >= game.cells:
            raise ValueError(f"{max_stones} stones a side: a tier holds 3 to {(game.cells - 1) // 2} on {game.name}")
        self.game = game
        self.max_stones = max_stones
        kernels = game.vector
        if not isinstance(kernels, BitboardKernels):
            raise TypeError(f"{game.name} has no board kernels")
        self.kernels = kernels
        self.cells = game.cells
        self._side = np.uint64(1 << (2 * game.cells))
        self._order = self._ordered()
        self._index = {tier: i for i, tier in enumerate(self._order)}
        # the tier index of (x stones, o stones, o to move); -1 where no tier holds such a state
        self._table = np.full((game.cells + 1, game.cells + 1, 2), -1, dtype=np.int64)
        for i, tier in enumerate(self._order):
            for side in self.sides(tier):
                self._table[tier.x, tier.o, side] = i

    def _ordered(self) -> list[Tier]:
        k = self.max_stones
        tiers = [Tier(x, o) for x in range(2, k + 1) for o in range(2, k + 1) if max(x, o) >= 3]
        return sorted(tiers, key=lambda t: (t.x + t.o, t.x))

    def tiers(self) -> list[Tier]:
        """Every tier, each after the tiers its removals lead to (fewer stones first)."""
        return list(self._order)

    def child_tiers(self, tier: Tier) -> list[Tier]:
        """The tiers a removal from ``tier`` leads to (none from a tier that is lost already)."""
        if min(tier) < 3:
            return []
        return [t for t in (Tier(tier.x - 1, tier.o), Tier(tier.x, tier.o - 1)) if t in self._index]

    @staticmethod
    def number(tier: Tier) -> int:
        """``100 x + o``: the number of tier ``(x, o)`` (above every ply of placement)."""
        return 100 * tier.x + tier.o

    def name(self, number: int) -> str | None:
        """``"x-o"`` of the tier numbered ``number``, ``None`` for a number no tier of the board has."""
        return tier_name(self.cells, number)

    @staticmethod
    def sides(tier: Tier) -> tuple[int, ...]:
        """Who moves in ``tier``'s positions: 0 for x, 1 for o."""
        if tier.x < 3:
            return (0,)
        if tier.o < 3:
            return (1,)
        return (0, 1)

    def positions(self, tier: Tier) -> int:
        """How many positions ``tier`` holds, symmetric ones counted apart."""
        from math import comb

        n = self.cells
        return comb(n, tier.x) * comb(n - tier.x, tier.o) * len(self.sides(tier))

    def states(self, tier: Tier) -> np.ndarray:
        """The canonical state of every class of ``tier``, sorted (``np.uint64``)."""
        if tier not in self._index:
            raise ValueError(f"tier {tier} is not one of {self.game.name}'s tiers of at most {self.max_stones} stones")
        boards = self._canonical_boards(tier)
        out = [boards | self._side if side else boards for side in self.sides(tier)]
        return np.concatenate(out)

    def _canonical_boards(self, tier: Tier) -> np.ndarray:
        """The canonical stones of ``tier`` (x to move), sorted.

        A state is canonical when its o stones (the higher bits) are the
        smallest of their images and, under the symmetries that keep them,
        its x stones are too; only placements whose o stones some symmetry
        other than the identity keeps need the x stones checked.
        """
        n = self.cells
        kernels = self.kernels
        shift = np.uint64(n)
        os = subsets(n, tier.o) << shift
        os = os[kernels.canonical(os) == os]
        fixed = np.zeros(len(os), dtype=bool)
        for sym in range(1, kernels.num_symmetries):
            fixed |= kernels.image(os, sym) == os
        xs = subsets(n, tier.x)
        rows = max(1, _CHUNK // len(xs))
        found = []
        for start in range(0, len(os), rows):
            block = os[start : start + rows]
            free = (xs[None, :] & (block[:, None] >> shift)) == 0
            candidates = (xs[None, :] | block[:, None])[free]
            check = np.repeat(fixed[start : start + rows], free.sum(axis=1))
            keep = ~check
            keep[check] = kernels.canonical(candidates[check]) == candidates[check]
            found.append(candidates[keep])
        boards = np.concatenate(found)
        boards.sort()
        return boards

    def tier_of(self, states: np.ndarray) -> np.ndarray:
        """The index in :meth:`tiers` of each state's tier, -1 for a state in none (stones in hand, too many stones)."""
        states = np.asarray(states, dtype=np.uint64)
        n = np.uint64(self.cells)
        mask = np.uint64((1 << self.cells) - 1)
        x = popcount(states & mask).astype(np.intp)
        o = popcount((states >> n) & mask).astype(np.intp)
        side = ((states >> (np.uint64(2) * n)) & np.uint64(1)).astype(np.intp)
        index: np.ndarray = self._table[x, o, side]
        in_hand = (states >> (np.uint64(2) * n + np.uint64(1))) != 0
        index[in_hand] = -1
        return index
