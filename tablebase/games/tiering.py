"""What a game cut into tiers gives a build tier by tier.

A tier is a set of positions that moves leave only for tiers listed before
it (Morris: the stones of each side on the board, which a removal lowers);
inside a tier moves may go round cycles.

:class:`DenseTiers` is what ``tablebase build --stones`` and the ``tiers``
storage read: units of tiers solved together by the game's own engine, each
tier's values one a slot of the game's dense numbering of its classes,
stored under the tier's number in the column where other builds keep the
ply (:mod:`tablebase.solve.tier_build`, :mod:`tablebase.store.tiers`).

:class:`Tiering` lists tiers with the sorted canonical states of each, which
the generic tier solver (:mod:`tablebase.solve.tiers`) labels from the game's
array kernels, every move in memory: the reference the engines are checked
against.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Hashable, Mapping, Optional, Protocol, Sequence, Tuple, TypeVar

if TYPE_CHECKING:
    import numpy as np

    from tablebase.outcome import Outcome

T = TypeVar("T", bound=Hashable)


class Tiering(Protocol[T]):
    """A game's states cut into tiers."""

    def tiers(self) -> Sequence[T]:
        """Every tier, each after all the tiers its moves lead to."""
        ...

    def child_tiers(self, tier: T) -> Sequence[T]:
        """The other tiers ``tier``'s moves may lead to."""
        ...

    def states(self, tier: T) -> np.ndarray:
        """The canonical states of ``tier``, sorted (``np.uint64``)."""
        ...

    def tier_of(self, states: np.ndarray) -> np.ndarray:
        """The index in :meth:`tiers` of each canonical state's tier (-1 for none)."""
        ...

    def number(self, tier: T) -> int:
        """The number ``tier`` is stored under: the same for the same tier whatever tiers are listed,
        and apart from every ply a position of the game can be stored at."""
        ...

    def name(self, number: int) -> str | None:
        """What the tier stored under ``number`` is called (``None``: no tier is stored there)."""
        ...


#: The value of a slot of a dense tier that holds no class (:class:`DenseTiers`).
UNUSED = 0xFFFF


@dataclass(frozen=True)
class TierUnit:
    """Tiers solved together (moves lead from each to the others) and the tiers below them that they read."""

    tiers: tuple[int, ...]
    reads: tuple[int, ...]


@dataclass(frozen=True)
class TierCounts:
    """What one stored tier holds: positions (symmetric images and both sides to move counted), classes
    (one a slot used), classes won, lost and drawn for the side to move, classes where the game is over,
    and positions won, lost and drawn."""

    positions: int
    classes: int
    wins: int
    losses: int
    draws: int
    terminal: int
    win_positions: int
    loss_positions: int
    draw_positions: int


#: A proved value: outcome for the side to move and distance in plies (``None``: a draw, or not proved).
TierValue = Tuple["Outcome", Optional[int]]


@dataclass(frozen=True)
class TierProof:
    """What a :class:`TierSearch` proved of ``state``: its value (``None``: not proved) and each
    move's ``(move, child, value of the child for its mover or None)``, in the rules' order."""

    state: int
    value: TierValue | None
    moves: list[tuple[int, int, TierValue | None]]

    @property
    def complete(self) -> bool:
        """Whether the position and every move are :func:`settled`."""
        return settled(self.value) and all(settled(v) for _, _, v in self.moves)

    def positions(self, canonical: Callable[[int], int]) -> dict[int, TierValue]:
        """The position and its moves' positions whose values are :func:`settled`, by ``canonical`` state."""
        found = {canonical(child): v for _, child, v in self.moves if v is not None and settled(v)}
        if self.value is not None and settled(self.value):
            found[canonical(self.state)] = self.value
        return found


def settled(value: TierValue | None) -> bool:
    """Whether ``value`` is proved whole: an outcome, and a distance unless a draw."""
    return value is not None and (value[1] is not None or value[0] == "draw")


class TierSearch(Protocol):
    """A search of the positions outside the stored tiers that lead into them without cycles
    (Morris: the placement phase), reading the tiers' values at its leaves."""

    #: Nodes searched so far.
    nodes: int

    def covers(self, state: int) -> bool:
        """Whether ``state`` is one this search proves (it lies in no tier)."""
        ...

    def value(self, state: int, deadline: float | None = None) -> TierValue | None:
        """The value of ``state`` for its side to move (distance ``None`` for a draw or where
        ``deadline`` left it unproved); ``None`` when not even its outcome was proved."""
        ...

    def prove(self, state: int, deadline: float | None = None) -> TierProof:
        """The value of ``state`` and of each of its moves, as far as proved by ``deadline``
        (:func:`time.perf_counter` seconds)."""
        ...


class DenseTiers(Protocol):
    """A game's tiers, each numbered densely (one slot a class) and solved unit by unit by the game itself.

    A tier is known by its number (apart from every ply a position of the game
    can be stored at). Its values are one ``np.uint16`` a slot: the outcome code
    (:class:`tablebase.outcome.Code`) in the low two bits and the distance in
    plies above them (0 for a draw, which has none), :data:`UNUSED` for a slot
    that holds no class.
    """

    def units(self) -> Sequence[TierUnit]:
        """Every unit, each after the units of the tiers it reads."""
        ...

    def size(self, number: int) -> int:
        """The slots of tier ``number``."""
        ...

    def name(self, number: int) -> str | None:
        """What the tier stored under ``number`` is called (``None``: no tier is stored there)."""
        ...

    def locate(self, states: Sequence[int]) -> list[tuple[int, int] | None]:
        """``(tier number, slot)`` of each state's class, in any orientation (``None``: in no tier)."""
        ...

    def states(self, number: int, slots: np.ndarray) -> np.ndarray:
        """A state of the class of each slot of tier ``number`` (``np.uint64``)."""
        ...

    def solve(
        self, unit: TierUnit, below: Mapping[int, np.ndarray], threads: Callable[[], int]
    ) -> dict[int, np.ndarray]:
        """The values of the tiers of ``unit``, reading ``below`` (the values of the tiers it reads), on
        the threads ``threads()`` gives, asked again as the solve goes on (other tasks start and end)."""
        ...

    def counts(self, number: int, values: np.ndarray) -> TierCounts:
        """The counts of tier ``number`` holding ``values``."""
        ...

    def check_reads(self, number: int) -> tuple[int, ...]:
        """The tiers the moves of tier ``number`` lead to (itself perhaps among them)."""
        ...

    def check(self, number: int, values: Mapping[int, np.ndarray], threads: int) -> np.ndarray:
        """The slots of tier ``number`` whose value does not follow from the rules and its children's
        values (``values``: of the tier and of :meth:`check_reads`), a used slot holding
        :data:`UNUSED` or an unused one holding a value among them; on ``threads`` threads."""
        ...

    def search(self, read: Callable[[int], np.ndarray]) -> TierSearch | None:
        """A search of the positions the tiers do not hold, ``read`` giving a stored tier's values by
        its number (a :class:`KeyError` for one not stored); ``None``: the game has none."""
        ...
