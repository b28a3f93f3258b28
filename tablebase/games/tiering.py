"""What a game cut into tiers gives a build tier by tier: its tiers in order, and each tier's states.

A tier is a set of positions that moves leave only for tiers listed before
it (Morris: the stones of each side on the board, which a removal lowers);
inside a tier moves may go round cycles. A build solves the tiers in the
order of :meth:`Tiering.tiers`, each reading the values of the tiers below
it (:mod:`tablebase.solve.tiers`), and stores each tier's positions under
its :meth:`Tiering.number`, in the column where other builds keep the ply.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Hashable, Protocol, Sequence, TypeVar

if TYPE_CHECKING:
    import numpy as np

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
