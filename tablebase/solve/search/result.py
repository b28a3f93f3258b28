"""The answer of :func:`tablebase.solve.search.prove`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, cast

from tablebase.games.base import Game
from tablebase.games.compiled_search import CompiledSearch

#: What a search leaves to store: positions, edges, and the positions stored with every move.
_Collected = tuple[dict[int, tuple[str, int | None]], list[tuple[int, int, int]], list[int]]


@dataclass(repr=False)
class SearchResult:
    """What :func:`prove` established.

    ``positions`` maps canonical states (the game's ints, the form the
    builder stores) to ``(outcome, distance)``, outcome ``'win'``/``'loss'``/
    ``'draw'`` for the side to move there and distance in plies (``None``
    only for a perpetual draw in a cyclic game). Every entry is exact.
    ``expanded`` lists the positions given with **every** legal move: each
    has all its moves in ``edges`` (``(state, move, child)``, the move in the
    orientation of the canonical ``state``), and every child is in
    ``positions``. The other non-terminal positions (children of expanded
    ones, and the start when its moves were not asked for) have no edges.
    With ``children=True`` the start position is expanded. They are computed
    on first access, or by :meth:`collect` with a deadline (the search keeps
    its tables until then).
    """

    game: Game
    #: The canonical form of the position searched.
    root: int
    #: Outcome of the position for the side to move, ``None`` if not proved.
    outcome: str | None
    #: Its distance in plies, ``None`` if not proved (or a perpetual draw).
    distance: int | None
    #: Outcome and distance of the root are both proved (and, with
    #: ``children=True``, those of every child of the root).
    complete: bool
    #: The time limit ran out before the work was done.
    timed_out: bool
    method: str = "search"
    nodes: int = 0
    seconds: float = 0.0
    #: Work per phase: nodes and table sizes.
    stats: dict[str, int | float] = field(default_factory=dict)
    #: With ``children=True``: move of the start position (in its own orientation) -> the
    #: child's ``(outcome, distance)``, for every child proved (all of them when ``complete``).
    moves: dict[int, tuple[str, int]] = field(default_factory=dict)
    #: The compiled outcome table the search used (:meth:`Game.outcome_table`), if any.
    table: CompiledSearch | None = None
    _collect: Callable[[float | None], _Collected] | None = None
    _collected: _Collected | None = None

    def collect(self, deadline: float | None = None) -> None:
        """Compute :attr:`positions`, :attr:`edges` and :attr:`expanded`, stopping at ``deadline``
        (a :func:`time.perf_counter` value) with the start and its best line first."""
        if self._collected is None:
            self._collected = self._collect(deadline) if self._collect is not None else ({}, [], [])
            self._collect = None

    def _data(self) -> _Collected:
        self.collect()
        return cast(_Collected, self._collected)

    @property
    def positions(self) -> dict[int, tuple[str, int | None]]:
        """Canonical state -> ``(outcome, distance)`` for every exactly proved position."""
        return self._data()[0]

    @property
    def edges(self) -> list[tuple[int, int, int]]:
        """``(state, move, child)``: every move of the expanded positions (canonical states)."""
        return self._data()[1]

    @property
    def expanded(self) -> list[int]:
        """The positions whose every move is in :attr:`edges`, the start first."""
        return self._data()[2]

    def __repr__(self) -> str:
        return (
            f"SearchResult(outcome={self.outcome!r}, distance={self.distance!r}, complete={self.complete}, "
            f"timed_out={self.timed_out}, method={self.method!r}, nodes={self.nodes}, seconds={self.seconds:.3f})"
        )
