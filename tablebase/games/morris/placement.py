"""The placement phase of a Morris game proved by search over its stored movement-phase tiers, as
Gasser proved Nine Men's Morris a draw: the positions with stones in hand are searched depth-first
(the phase has no cycles), each position where both hands are empty read from its tier.

:class:`PlacementSearch` is the game's :class:`~tablebase.games.tiering.TierSearch`: it proves
a position's outcome first (the tiers' outcome codes alone, four a byte), then, where it is not a
draw, its distance (the stored values); :mod:`tablebase.games.morris.placement_kernels` is the
compiled search. It asks for a tier's values the first time a leaf lies in it.
"""

from __future__ import annotations

import time
from typing import Any, Callable

import numpy as np

from tablebase.errors import BuildError
from tablebase.games.base import DRAW, LOSS, WIN
from tablebase.games.morris import placement_kernels as pk
from tablebase.games.morris.kernels import line_arrays
from tablebase.games.tiering import TierProof, TierValue

#: Nodes searched between two looks at the clock.
BUDGET = 200_000
#: Slots of each table of bounds, as a power of two (two tables: outcomes, distances).
TABLE_BITS = 23
#: Bytes of stored values (two a slot) the search of distances may hold; a distance that needs
#: more is left unproved (the outcome needs a quarter of a byte a slot, always held).
DISTANCE_BYTES = 4 << 30


class _TooLarge(Exception):
    """The distance search would hold more than :data:`DISTANCE_BYTES` of tiers."""


class PlacementSearch:
    """Proofs of positions of ``game`` with stones in hand, over the tiers ``read`` gives (by their
    stored number ``number(m, n)``, ``size(number)`` slots; a :class:`KeyError` for one not stored),
    ranked by the tier index's compiled arrays ``index``."""

    def __init__(
        self, game: Any, read: Callable[[int], np.ndarray], index: tuple[Any, ...], number: Callable[[int, int], int],
        size: Callable[[int], int], table_bits: int = TABLE_BITS,
    ):
        import numba.typed

        self.game = game
        self.read = read
        self.number = number
        self.size = size
        self.cells = game.cells
        self.ix = index
        neighbours, mills, mills_of = line_arrays(game)
        weight = np.array([8 * int(b).bit_count() for b in neighbours], dtype=np.int64)
        self.lines = (neighbours, mills, mills_of, weight)
        self.values = numba.typed.List([np.empty(0, dtype=np.uint16) for _ in range(256)])
        self.codes = numba.typed.List([np.empty(0, dtype=np.uint8) for _ in range(256)])
        self.tables = {False: pk.new_table(table_bits), True: pk.new_table(table_bits)}
        self.need = np.zeros(1, dtype=np.int64)
        self.budget = np.zeros(1, dtype=np.int64)
        #: Nodes searched so far.
        self.nodes = 0
        #: The tiers read so far, by stored number.
        self.loaded: set[int] = set()
        #: Bytes of stored values the distance search holds, and the most it may.
        self.held = 0
        self.distance_bytes = DISTANCE_BYTES

    def covers(self, state: int) -> bool:
        """Whether ``state`` has a stone in hand (a position this search proves)."""
        return bool(self.game.hands(state) != (0, 0))

    def _fold(self, state: int) -> tuple[int, int, int, int]:
        """``(own, other, own hand, other hand)`` for the side to move."""
        game = self.game
        xs, os = game.boards(state)
        xh, oh = game.hands(state)
        if game.to_move(state) == "o":
            return os, xs, oh, xh
        return xs, os, xh, oh

    def _load(self, index: int, exact: bool) -> None:
        """Read the tier of the search's index ``16 m + n``."""
        m, n = divmod(index, 16)
        number = self.number(m, n)
        if exact and self.held + 2 * self.size(number) > self.distance_bytes:
            raise _TooLarge
        try:
            values = self.read(number)
        except KeyError:
            raise BuildError(
                f"{self.game.name}: tier {m}-{n} is not stored, and the search needs it;"
                f" run: tablebase build {self.game.name} --stones {max(m, n)}"
            ) from None
        self.loaded.add(number)
        if exact:
            self.values[index] = values
            self.held += values.nbytes
        else:
            self.codes[index] = pk.pack_codes(values)

    def score(self, state: int, alpha: int, beta: int, exact: bool, deadline: float | None) -> int | None:
        """The fail-soft score of ``state`` in ``(alpha, beta)`` (:mod:`tablebase.scores`; with
        ``exact`` false, wins and losses at the leaves count as distance 0); ``None`` at ``deadline``."""
        own, other, own_hand, other_hand = self._fold(state)
        table = self.tables[exact]
        while True:
            if deadline is not None and time.perf_counter() > deadline:
                return None
            self.budget[0] = BUDGET
            result = int(pk.search(
                own, other, own_hand, other_hand, alpha, beta, self.cells, self.lines, self.ix,
                self.values, self.codes, exact, table, self.need, self.budget,
            ))
            self.nodes += BUDGET - int(self.budget[0])
            if result == pk.NEED:
                self._load(int(self.need[0]), exact)
            elif result != pk.STOPPED:
                return result

    def value(self, state: int, deadline: float | None = None) -> TierValue | None:
        """``(outcome, distance)`` of ``state`` for its side to move (distance ``None`` for a draw, or
        for a win or loss whose distance ``deadline`` did not leave time to prove); ``None`` when
        not even the outcome was proved by then."""
        sign = self.score(state, -1, 1, False, deadline)
        if sign is None:
            return None
        if sign == 0:
            return DRAW, None
        outcome = WIN if sign > 0 else LOSS
        window = (0, pk.M + 1) if sign > 0 else (-pk.M - 1, 0)
        try:
            exact = self.score(state, window[0], window[1], True, deadline)
        except _TooLarge:
            exact = None
        if exact is None:
            return outcome, None
        return outcome, pk.M - abs(exact)

    def prove(self, state: int, deadline: float | None = None) -> TierProof:
        """``state``'s value and each move's (the value of the position it leads to, for its mover), as
        far as they were proved by ``deadline``: the children one by one, most replies first."""
        game = self.game
        children = game.children(state)
        order = sorted(range(len(children)), key=lambda i: -len(game.legal_moves(children[i][1])))
        found: list[TierValue | None] = [None] * len(children)
        for i in order:
            child = children[i][1]
            outcome = game.outcome(child)
            found[i] = (outcome, 0) if outcome is not None else self.value(child, deadline)
        return TierProof(state, _best(found), [(m, c, v) for (m, c), v in zip(children, found)])


def _best(values: list[TierValue | None]) -> TierValue | None:
    """The value of a position whose moves lead to positions of ``values`` (each for its own mover;
    ``None`` unproved), as far as they prove it: a distance only where every move's is known."""
    proved = [v for v in values if v is not None]
    whole = len(proved) == len(values)
    wins = [d for outcome, d in proved if outcome == LOSS]
    if wins:
        known = whole and all(d is not None for d in wins)
        return WIN, min(d for d in wins if d is not None) + 1 if known else None
    if not whole:
        return None
    if any(outcome == DRAW for outcome, _ in proved):
        return DRAW, None
    distances = [d for _, d in proved]
    return LOSS, max(d for d in distances if d is not None) + 1 if all(d is not None for d in distances) else None
