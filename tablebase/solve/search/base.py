"""What the searches of :mod:`tablebase.solve.search` share: the exceptions that unwind a search,
its tunable budgets, and the tables and counters of one search (the distance scores are
:mod:`tablebase.scores`)."""

from __future__ import annotations

import multiprocessing
import time
from typing import Any, Callable

from tablebase.games.base import DRAW, LOSS, WIN, Game
from tablebase.games.compiled_search import Bounds, CompiledSearch
from tablebase.scores import M

_VALUE: dict[str, int] = {WIN: 1, LOSS: -1, DRAW: 0}


class _Timeout(Exception):
    pass


class _Abandoned(Exception):
    """A search given up because its answer is known (or wanted) no more (:attr:`_Searcher.abandon`)."""


class _OverBudget(Exception):
    """A draw-length search that ran out of its node budget (:attr:`_Searcher.draw_budget`)."""


#: Nodes of the first call to a compiled outcome search; the budget doubles on each retry
#: (with a time limit: starts at a tenth, then about 0.1 s of work, at most :data:`COMPILED_CHUNK`).
COMPILED_BUDGET = 100_000
COMPILED_CHUNK = 2_000_000
#: Seconds of the start's distance tests after which a second process shares them (``processes=2``).
HELPER_AFTER = 0.05
#: Node budget of the first round of a draw-length search from the long side, and the move orders
#: that take turns in each round (:meth:`_Searcher._drawn_line_by_turns`).
DRAW_BUDGET = 1000
DRAW_ORDERS = (0, 1)


class _SearchState:
    """The game, the clock, the tables and the counters of one search; :mod:`tablebase.solve.search`'s
    searches extend it step by step (outcome, distance, draw length, the driver)."""

    def __init__(self, game: Game, time_limit: float | None, compiled: CompiledSearch | None = None):
        self.game = game
        self.start = time.perf_counter()
        self.deadline = None if time_limit is None else self.start + time_limit
        self.nodes = 0
        self.dist_nodes = 0
        self.draw_nodes = 0
        # state -> (lo, hi, best move index)
        self.wdl: Bounds = {}
        self.dist: Bounds = {}
        #: The game's compiled search (:meth:`Game.outcome_table`), if any.
        self.compiled = compiled
        self.proved: dict[int, tuple[str, int]] = {}
        #: Proved outcomes (1, 0, -1 for the mover), kept apart from the tables, which may forget them.
        self.outcomes: dict[int, int] = {}
        #: Outcomes the helper of :meth:`prove_all` proved: they settle a start's label at a timeout
        #: (:meth:`_settled`), but a search here starts from its own table.
        self.heard: dict[int, int] = {}
        #: Called with the outcome :meth:`prove_one` proves, before its distance (``None``: nothing).
        self.outcome_found: Callable[[int], None] | None = None
        #: The start position and known labels to race in a second process, once its search
        #: outlasts a first node budget; the process and the end of its pipe.
        self.racing: tuple[int, dict[int, tuple[str, int | None]] | None] | None = None
        self.rival: Any = None
        self.rival_conn: Any = None
        self.rival_state = 0
        self.rival_won = 0
        #: The start position, whose distance tests two processes split by children; the other
        #: process and its end of the pipe; a check between budgets that gives up the current search.
        self.split_state: int | None = None
        self.split_kids: list[tuple[int, int | None]] = []
        #: The values of the start's children (by index in :attr:`split_kids`) in the last shared test.
        self.split_values: dict[int, int] = {}
        self.helper: Any = None
        self.helper_conn: Any = None
        #: Whether :meth:`prove_all` shares its positions with a second process, and when the best
        #: line's expansion stops (a :func:`time.perf_counter` value; ``None``: at the deadline).
        self.share_labels = False
        self.line_deadline: float | None = None
        #: The start's moves (in its own orientation) and their children's labels, as they are proved.
        self.moves: dict[int, tuple[str, int]] = {}
        self.abandon: Callable[[], bool] | None = None
        #: Seconds spent proving outcomes, distances of wins and losses, and draw lengths.
        self.seconds = {"outcome": 0.0, "distance": 0.0, "draw": 0.0}
        self.draw_len: dict[int, int] = {}  # exact draw lengths
        self.draw_lb: dict[int, int] = {}  # a drawn line at least this long exists
        self.draw_ub: dict[int, int] = {}  # no drawn line is longer
        #: Node budget of the current draw-length search (``None``: no limit), and its move order:
        #: 0 the children known to be drawn and those with the most replies first, 1 those with the fewest.
        self.draw_budget: int | None = None
        self.draw_order = 0
        self.history: dict[int, int] = {}
        self._children = game.children
        self._successors = game.successors
        #: Hints from the game: an upper bound on the plies left (or None), and a fast move count.
        self.max_plies: Callable[[int], int | None] = game.max_plies
        self.move_count: Callable[[int], int] = game.move_count

    def _compiled(self) -> CompiledSearch:
        """The game's compiled search, in the steps that run only with one."""
        if self.compiled is None:
            raise RuntimeError("this search has no compiled table")
        return self.compiled

    def _tick(self) -> None:
        self.nodes += 1
        if self.deadline is not None and self.nodes & 1023 == 0 and time.perf_counter() > self.deadline:
            raise _Timeout


    def seed(self, known: dict[int, tuple[str, int | None]]) -> None:
        """Enter exact labels (of states in any orientation) into the tables, with their symmetric images."""
        game = self.game
        for state, (outcome, distance) in known.items():
            if distance is None or game.outcome(state) is not None:
                continue
            for sym in range(game.num_symmetries):
                image = game.transform(state, sym) if sym else state
                if outcome == DRAW:
                    self.wdl[image] = (0, 0, -1)
                    self.draw_len[image] = self.draw_lb[image] = self.draw_ub[image] = distance
                else:
                    value = 1 if outcome == WIN else -1
                    self.wdl[image] = (value, value, -1)
                    score = value * (M - distance)
                    self.dist[image] = (score, score, -1)


def _at_most_zero(entry: tuple[int, int, int] | None) -> bool:
    """Whether an outcome table entry says the value is at most 0."""
    return entry is not None and entry[1] <= 0


def _flip(label: tuple[str, int]) -> tuple[str, int]:
    """A child's label seen from its parent: the other side's outcome, one ply further."""
    outcome, distance = label
    return (LOSS if outcome == WIN else WIN if outcome == LOSS else DRAW), distance + 1


def _rank(label: tuple[str, int]) -> tuple[int, int]:
    """Sort key of a move's value for its mover: fastest win, then longest draw, then slowest loss."""
    outcome, distance = label
    if outcome == WIN:
        return (0, distance)
    return (1 if outcome == DRAW else 2, -distance)


def fork_context() -> Any:
    """The ``fork`` context a search starts its helper processes from, or ``None`` where it cannot
    start one: no fork on this platform, or this process is daemonic (a server's search worker),
    which may not have children. The search then runs in this process alone."""
    if multiprocessing.current_process().daemon:
        return None
    try:
        return multiprocessing.get_context("fork")
    except ValueError:
        return None
