"""The outcome vocabulary: names, integer codes, and the rule that labels a position from its children.

Outcomes are always from the point of view of the side to move. The names
(``"win"``, ``"loss"``, ``"draw"``) are what the database, the JSON and the
rules (:meth:`tablebase.games.base.Game.outcome`) use; the codes
(:class:`Code`) are what arrays hold in the solvers, the verifier and the
writers. ``distance`` is plies to the end under perfect play, ``None`` (in
arrays :data:`NO_DISTANCE`) for a draw that can go on for ever.

The labelling rule (:func:`label_from_children`), which every solver and
the verifier apply, in scalar or array form:

* a position with a child that is lost for the side to move there is won,
  distance 1 + the smallest such child distance (the fastest win);
* a position all of whose children are won (for the opponent) is lost,
  distance 1 + the largest child distance (the slowest loss);
* otherwise it is drawn: distance 1 + the longest drawn child distance, or
  ``None`` when a drawn child has none (perpetual play).
"""

from __future__ import annotations

from enum import IntEnum
from typing import Iterable, Literal

Outcome = Literal["win", "draw", "loss"]

WIN: Outcome = "win"
LOSS: Outcome = "loss"
DRAW: Outcome = "draw"


class Code(IntEnum):
    """Outcome codes of arrays: ``UNKNOWN`` while play goes on or a label is not yet known."""

    UNKNOWN = 0
    WIN = 1
    LOSS = 2
    DRAW = 3


#: The distance of a perpetual draw in arrays (``None`` outside them).
NO_DISTANCE = -1

#: Name of each known code.
NAMES: dict[int, Outcome] = {Code.WIN: WIN, Code.LOSS: LOSS, Code.DRAW: DRAW}
#: Code of each name.
CODES: dict[str, int] = {name: int(code) for code, name in NAMES.items()}

_FLIP: dict[str, Outcome] = {WIN: LOSS, LOSS: WIN, DRAW: DRAW}
_RANK: dict[str, int] = {WIN: 0, DRAW: 1, LOSS: 2}


def flip(outcome: str) -> Outcome:
    """The outcome for the other side: a win for one side is a loss for the other."""
    return _FLIP[outcome]


def move_value(child_outcome: str, child_distance: int | None) -> tuple[Outcome, int | None]:
    """What a move achieves for the player making it, from the stored value of the position it leads to."""
    return _FLIP[child_outcome], None if child_distance is None else child_distance + 1


def rank(outcome: str | None, distance: int | None) -> tuple[int, float]:
    """Sort key of move values, best first: fastest win, then draws (longest first), then slowest
    loss, then moves whose value is not known (``outcome`` ``None``)."""
    if outcome is None:
        return (3, 0.0)
    d = float("inf") if distance is None else distance
    if outcome == WIN:
        return (0, d)
    return (_RANK[outcome], -d)


def label_from_children(children: Iterable[tuple[str, int | None]]) -> tuple[Outcome, int | None]:
    """The label of a non-terminal position from the stored ``(outcome, distance)`` of each child."""
    values = list(children)
    lost = [d for o, d in values if o == LOSS]
    if lost:
        return WIN, min(d for d in lost if d is not None) + 1
    if all(o == WIN for o, _ in values):
        return LOSS, max(d for _, d in values if d is not None) + 1
    drawn = [d for o, d in values if o == DRAW]
    if any(d is None for d in drawn):
        return DRAW, None
    return DRAW, max(d for d in drawn if d is not None) + 1


__all__ = [
    "CODES",
    "DRAW",
    "LOSS",
    "NAMES",
    "NO_DISTANCE",
    "WIN",
    "Code",
    "Outcome",
    "flip",
    "label_from_children",
    "move_value",
    "rank",
]
