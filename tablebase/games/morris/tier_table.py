"""The folded movement-phase tiers of a Morris game as a build tier by tier reads them (a :class:`DenseTiers`).

Tier ``T(m, n)`` (:mod:`tablebase.games.morris.tier_index`: the mover's ``m``
stones against ``n``, one slot a class, both colourings of a class in one)
is stored under ``100 m + n`` and called ``m-n``. The units are those of the
tier engine (:mod:`tablebase.games.morris.tier_engine`): ``T(2, n)`` alone
(lost), then ``T(m, n)`` with ``T(n, m)``, reading ``T(n - 1, m)`` and
``T(m - 1, n)`` when the side losing a stone keeps three. A position is
found in its tier by :class:`~tablebase.games.morris.tier_rank.TierRanker`
(numpy alone, for probes); solving, counting and checking run the compiled
passes, on an index built once a process.
"""

from __future__ import annotations

from functools import cache, cached_property
from math import comb
from typing import TYPE_CHECKING, Callable, Mapping, Protocol, Sequence

import numpy as np

from tablebase.games.morris.board import MorrisBoard
from tablebase.games.morris.tier_rank import TierRanker
from tablebase.games.tiering import TierCounts, TierUnit

if TYPE_CHECKING:
    from tablebase.games.morris.placement import PlacementSearch
    from tablebase.games.morris.tier_engine import TierEngine
    from tablebase.games.morris.tier_index import TierIndex


class FoldedGame(Protocol):
    """What the folded tiers read of a Morris game (:class:`~tablebase.games.morris.rules.MorrisGame`)."""

    name: str
    cells: int
    board: MorrisBoard
    flying: bool

    def hands(self, state: int) -> tuple[int, int]: ...

    def boards(self, state: int) -> tuple[int, int]: ...

    def to_move(self, state: int) -> str: ...


@cache
def _index(board: MorrisBoard) -> TierIndex:
    from tablebase.games.morris.tier_index import TierIndex

    return TierIndex(board)


@cache
def _ranker(board: MorrisBoard) -> TierRanker:
    return TierRanker(board)


def _threads(wanted: int) -> int:
    """``wanted`` threads, at most numba's."""
    import numba

    most: int = numba.config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]
    return max(1, min(wanted, most))


def tier_number(m: int, n: int) -> int:
    """The number ``T(m, n)`` is stored under."""
    return 100 * m + n


def tier_of(number: int) -> tuple[int, int]:
    """``(m, n)`` of the tier stored under ``number``."""
    m, n = divmod(number, 100)
    return m, n


def folded_name(cells: int, number: int) -> str | None:
    """``"m-n"`` of the folded tier a board of ``cells`` points stores under ``number``, else ``None``."""
    m, n = tier_of(number)
    if not (2 <= m and 3 <= n and m + n < cells):
        return None
    return f"{m}-{n}"


class MorrisTierTable:
    """The folded tiers of ``game`` of at most ``max_stones`` a side."""

    def __init__(self, game: FoldedGame, max_stones: int):
        if not 3 <= max_stones or 2 * max_stones >= game.cells:
            raise ValueError(f"{max_stones} stones a side: a tier holds 3 to {(game.cells - 1) // 2} on {game.name}")
        self.game = game
        self.board = game.board
        self.cells = game.cells
        self.max_stones = max_stones

    def units(self) -> list[TierUnit]:
        """``T(2, n)`` one a unit, then the units of the tier engine, fewer stones first."""
        from tablebase.games.morris.tier_engine import units

        out = [TierUnit((tier_number(2, n),), ()) for n in range(3, self.max_stones + 1)]
        for m, n in units(self.max_stones):
            tiers = [(m, n)] if m == n else [(m, n), (n, m)]
            reads = sorted({tier_number(q - 1, p) for p, q in tiers if q - 1 >= 3})
            out.append(TierUnit(tuple(tier_number(*t) for t in tiers), tuple(reads)))
        return out

    def size(self, number: int) -> int:
        m, n = tier_of(number)
        return len(_ranker(self.board).representatives(n)) * comb(self.cells - n, m)

    def name(self, number: int) -> str | None:
        return folded_name(self.cells, number)

    def locate(self, states: Sequence[int]) -> list[tuple[int, int] | None]:
        game = self.game
        found: list[tuple[int, int] | None] = [None] * len(states)
        groups: dict[tuple[int, int], tuple[list[int], list[int], list[int]]] = {}
        for i, state in enumerate(states):
            if game.hands(state) != (0, 0):
                continue
            xs, os = game.boards(state)
            mover, other = (os, xs) if game.to_move(state) == "o" else (xs, os)
            m, n = mover.bit_count(), other.bit_count()
            if m < 2 or n < 3 or max(m, n) > self.max_stones:
                continue
            at, movers, others = groups.setdefault((m, n), ([], [], []))
            at.append(i)
            movers.append(mover)
            others.append(other)
        ranker = _ranker(self.board)
        for (m, n), (at, movers, others) in groups.items():
            slots = ranker.rank(np.array(movers, dtype=np.int64), np.array(others, dtype=np.int64), m, n)
            for i, slot in zip(at, slots.tolist()):
                found[i] = (tier_number(m, n), slot)
        return found

    def states(self, number: int, slots: np.ndarray) -> np.ndarray:
        m, n = tier_of(number)
        movers, others = _index(self.board).unrank(np.asarray(slots, dtype=np.int64), m, n)
        result: np.ndarray = movers.astype(np.uint64) | (others.astype(np.uint64) << np.uint64(self.cells))
        return result

    @cached_property
    def _engine(self) -> TierEngine:
        from tablebase.games.morris.tier_engine import TierEngine

        return TierEngine(self.board, self.game.flying, _index(self.board))

    def solve(
        self, unit: TierUnit, below: Mapping[int, np.ndarray], threads: Callable[[], int]
    ) -> dict[int, np.ndarray]:
        engine = self._engine
        engine.threads = threads
        m, n = tier_of(unit.tiers[0])
        if m == 2:
            return {unit.tiers[0]: engine.lost_tier(n).values}
        solved = engine.solve_unit(m, n, {tier_of(t): below[t] for t in unit.reads})
        return {tier_number(t.m, t.n): t.values for t in solved}

    def counts(self, number: int, values: np.ndarray) -> TierCounts:
        from tablebase.games.morris.tier_check import tally

        m, n = tier_of(number)
        counts = [int(c) for c in tally(m, n, self.cells, _index(self.board).arrays, values)]
        return TierCounts(*counts)

    def check_reads(self, number: int) -> tuple[int, ...]:
        m, n = tier_of(number)
        if m < 3:
            return ()
        return (tier_number(n, m),) + ((tier_number(n - 1, m),) if n - 1 >= 3 else ())

    def check(self, number: int, values: Mapping[int, np.ndarray], threads: int) -> np.ndarray:
        import numba

        from tablebase.games.morris.tier_check import check_tier

        m, n = tier_of(number)
        own = values[number]
        empty = np.empty(0, dtype=np.uint16)
        across = values[tier_number(n, m)] if m >= 3 else empty
        lost = n - 1 < 3
        lower = empty if lost or m < 3 else values[tier_number(n - 1, m)]
        engine = self._engine
        numba.set_num_threads(_threads(threads))
        bad = check_tier(
            m, n, self.cells, self.game.flying, engine.neighbours, engine.mills, engine.mills_of,
            _index(self.board).arrays, own, across, lower, lost,
        )
        result: np.ndarray = np.flatnonzero(bad)
        return result

    def search(self, read: Callable[[int], np.ndarray]) -> PlacementSearch:
        """The placement phase searched over the stored tiers (:mod:`tablebase.games.morris.placement`)."""
        from tablebase.games.morris.placement import PlacementSearch

        return PlacementSearch(self.game, read, _index(self.board).arrays, tier_number, self.size)
