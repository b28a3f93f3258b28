"""The one builder of :class:`~tablebase.results.Probe` results, from the values of a position's children.

A probe of the file (:mod:`tablebase.variant`), of the opening table a game ships
(:mod:`tablebase.opening`) and of what a server proved (:mod:`tablebase.serve.analysis`)
is made here: each move's value follows from the value of the position it leads to
(:func:`tablebase.outcome.move_value`), and the moves are listed best first
(:func:`tablebase.outcome.rank`), moves of equal value in the rules' order.
"""

from __future__ import annotations

from typing import Iterable

from tablebase.games.base import Game
from tablebase.outcome import Outcome, move_value, rank
from tablebase.results import MoveValue, Probe

#: A child's value for its side to move: ``(outcome, distance)``, ``None`` when it is not known.
ChildValue = tuple[str, int | None] | None

_RANKED: dict[tuple[str, int | None], tuple[tuple[int, float], Outcome, int | None]] = {}
_UNKNOWN: tuple[tuple[int, float], None, None] = (rank(None, None), None, None)


def _ranked(child: tuple[str, int | None]) -> tuple[tuple[int, float], Outcome, int | None]:
    """``(sort key, outcome, distance)`` of a move from the value of the position it leads to."""
    found = _RANKED.get(child)
    if found is None:
        value, d = move_value(*child)
        found = _RANKED[child] = (rank(value, d), value, d)
    return found


def ranked_moves(game: Game, state: int, children: Iterable[tuple[int, ChildValue]]) -> tuple[MoveValue, ...]:
    """The moves of ``state``, given as ``(move, value of the position it leads to)``, best first, each
    with the position after it; a move whose child's value is ``None`` has outcome ``None`` and comes last."""
    pairs = list(children)
    if not pairs:
        return ()
    legal = game.legal_moves(state)
    order = dict(zip(legal, range(len(legal))))
    ranked = []
    for code, child in pairs:
        # the table first, without a call a move (a probe of mnk-5-4-4 ranks up to 20)
        key, value, d = _UNKNOWN if child is None else (_RANKED.get(child) or _ranked(child))
        ranked.append((key, order.get(code, len(order)), code, value, d))
    ranked.sort()
    positions = game.format_children(state, [item[2] for item in ranked])
    # a list, not a generator: 3 % of the instructions of an mnk-5-4-4 probe
    return tuple(
        [MoveValue(game.format_move(code), child, value, d) for (_, _, code, value, d), child in zip(ranked, positions)]
    )


def build_probe(
    game: Game,
    name: str,
    state: int,
    value: tuple[str, int | None],
    terminal: bool,
    children: Iterable[tuple[int, ChildValue]] = (),
) -> Probe:
    """The probe of ``state`` of the variant ``name``: its ``value`` (outcome and distance for the
    side to move) and the moves of ``children`` (:func:`ranked_moves`; none listed when empty)."""
    return Probe(
        variant=name,
        position=game.format_position(state),
        to_move=game.to_move(state),
        outcome=value[0],
        distance=value[1],
        terminal=terminal,
        moves=ranked_moves(game, state, children),
    )


__all__ = ["ChildValue", "build_probe", "ranked_moves"]
