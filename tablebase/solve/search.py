"""Exact search from one position, for games too large to enumerate whole.

:func:`prove` proves the outcome and the distance of a position with the
same conventions as the full builder (:mod:`tablebase.solve.retrograde`):
the winner takes the fastest win, the loser the slowest loss, and a draw's
distance is the longest line of drawn positions to the end. It returns the
positions it can give with **every** move proved (the start, with
``children=True``, and those reached from it whose children all have exact
labels), their moves and their children's labels, so a caller can store them
in the same ``states``/``moves`` tables as a build and every stored move list
is complete. It talks to the game only through
:class:`tablebase.games.base.Game`; a game may offer compiled versions of the
outcome and distance searches (:meth:`Game.outcome_table`, Ultimate does with
numba), which the search then runs in node budgets between looks at the clock.

How it works (acyclic games, ``method="search"``):

1. **Outcome** (win/draw/loss): negamax alpha-beta over the values -1, 0, 1
   with a transposition table of bounds. The value set is tiny, so most
   windows are null windows and cut-offs are cheap. Move ordering: an
   immediate win (a child that is a terminal loss for the opponent) ends the
   node at once; then the table's best move; then children by what the
   table knows of them; then *fewest replies first* (the child with the
   fewest legal moves: forcing moves are the quickest to prove; this alone
   cut the nodes 3-4x on Ultimate positions); then a history heuristic.
2. **Distance** of a win or a loss: alpha-beta over scores that encode the
   distance (``M - d`` for a win in ``d`` plies, ``-(M - d)`` for a loss,
   0 for a draw), driven MTD-style from the short side: null-window tests
   "a win within k plies?" (for a won position, k = 1, 2, ...) or "does the
   loser last k plies or more?" (for a lost one) until the bounds meet. A
   non-terminal position is at least one ply from the end (and at most
   ``max_plies`` if the game gives that hint), so a test about k plies is a
   search of depth about k: windows that ask for less are cut at once. The
   outcome table from step 1 prunes further (a child known not to be lost is
   never the winning move) and seeds the bounds; a separate table keeps the
   distance bounds between tests. Measured alternatives were slower: one
   full-window search, and proving each child's outcome before its distance
   (the outcome proof of every alternative move runs to the end of the game
   while the bounded test stops at depth k: 3-10x more work on Ultimate
   positions with 33-35 empty spots).
3. **Draw length** of a drawn position: the longest path through drawn
   positions. Where the rules fix it (``game.draw_length``: every drawn
   line fills the board, as in ``ultimate``) there is nothing to search.
   Otherwise, with a ``max_plies(state)`` hint from the game (an upper
   bound on the plies left) it is found from the long side: "is there a
   drawn line of at least L plies?" for L = the bound, bound - 1, ...; each
   test walks depth first through children that could still be long enough
   (longest bound first), proving a child drawn with one null-window
   outcome question, and the bounds learnt are kept between tests. Where
   drawn lines fill the board (``ultimate``, m,n,k games) the first test
   succeeds along a single line; in ``ultimate-classic`` this replaced an
   exact depth-first scan that took 240 s on a 35-spot position. Without the
   hint every drawn child is scanned depth first.

Proving the outcome first is what makes the rest cheap: it is the step with
the most pruning, and the distance and draw-length steps only ask questions
inside what it proved.

Every table entry is written only when its node's search completes, so what
the tables say is proved (a compiled table may forget entries to make room,
never hold a wrong one; what the driver proves is kept apart). When the time limit runs out the search unwinds
and :func:`prove` returns what is exact so far (possibly the outcome of the
start position without its distance); it never guesses.

Cyclic games (positions repeat) would make the depth-first search unsound,
so for them — and on request with ``method="retrograde"`` — :func:`prove`
enumerates the part of the graph reachable from the position and labels it
with the builder's own retrograde pass; every position in it is exact.

Example::

    from tablebase.games import get
    from tablebase.solve.search import prove

    game = get("ultimate")
    result = prove(game, game.parse_position(text), time_limit=60)
    result.outcome, result.distance        # ('win', 17)
    result.positions[result.root]          # ('win', 17)
    result.edges[:3]                       # [(state, move, child), ...]
"""

from __future__ import annotations

import multiprocessing
import sys
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable, cast


from tablebase.games.base import DRAW, LOSS, WIN, Game
from tablebase.solve import enumerate_states
from tablebase.solve.retrograde import NO_DISTANCE, OUTCOME_NAMES, UNKNOWN, label

__all__ = ["SearchResult", "prove"]

#: Base of the distance scores; larger than any game length.
M = 1 << 20
INF = M + 1
_VALUE: dict[str, int] = {WIN: 1, LOSS: -1, DRAW: 0}




class _Timeout(Exception):
    pass


class _Abandoned(Exception):
    """A search given up because its answer is known (or wanted) no more (:attr:`_Searcher.abandon`)."""


class _OverBudget(Exception):
    """A draw-length search that ran out of its node budget (:attr:`_Searcher.draw_budget`)."""


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
    table: Any = None
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


def prove(
    game: Game,
    state: int,
    time_limit: float | None = None,
    *,
    children: bool = False,
    method: str = "auto",
    max_states: int = 5_000_000,
    line: bool = False,
    line_time_limit: float | None = None,
    known: dict[int, tuple[str, int | None]] | None = None,
    compiled: bool = True,
    processes: int = 1,
    table: Any = None,
) -> SearchResult:
    """Prove the exact outcome and distance of ``state``.

    ``time_limit`` is in seconds (``None``: no limit). With ``children=True``
    every child of ``state`` is proved, so the stored start position can list
    all its moves with their values (what a probe shows), and the start's own
    label follows from theirs (it is not searched on its own: its search would
    repeat most of theirs).
    ``method`` is ``"search"`` (acyclic games only), ``"retrograde"`` (label
    the reachable subgraph; at most ``max_states`` states) or ``"auto"``
    (retrograde for cyclic games, search otherwise). With ``line=True``
    (and ``children=True``) the search goes on, while time allows, down the
    best line, proving every child of each position on it, for at most
    ``line_time_limit`` seconds from the call (``None``: up to ``time_limit``),
    so that a caller can keep time for storing what was proved. ``known`` gives
    exact labels of positions (in any orientation) to start from, e.g. what a
    tablebase file already holds. ``compiled=False`` keeps the outcome step
    in Python where the game offers a compiled one (:meth:`Game.outcome_table`).
    With ``processes=2`` and a compiled table that has a rival (``table.rival()``),
    a second process races the start position's outcome proof: with a
    proof-number search (``table.dfpn``) it proves whether the start is not
    lost while this one proves whether it is won, then, if that is still open,
    whether each child of the start is not lost for its mover, from the child
    with the most replies on, else the whole outcome in the rival move order;
    its table's bounds are added to this one's each time it knows more. The
    distance tests of a won or lost start are then shared by children with a
    second process. With ``children=True`` the children (and those of each
    position on the best line) are proved by two processes, one from each end,
    and the last one left as the start is without children.
    ``table`` is the compiled table of an earlier proof of the same game to go on
    with, one whose ``reusable`` is true (:meth:`Game.outcome_table`); the result's
    ``table`` is the one this proof used.
    """
    if method == "auto":
        method = "retrograde" if game.cyclic else "search"
    if method == "retrograde":
        return _prove_retrograde(game, state, time_limit, max_states)
    if method != "search":
        raise ValueError(f"unknown method {method!r} (expected 'auto', 'search' or 'retrograde')")
    if game.cyclic:
        raise ValueError(f"{game.name} is cyclic: depth-first search is unsound there, use method='retrograde'")
    started = time.perf_counter()
    if not compiled or not getattr(table, "reusable", False):
        table = game.outcome_table(state, time_limit) if compiled else None  # may load a compiled module: part of the time
    if time_limit is not None:
        time_limit = max(0.0, time_limit - (time.perf_counter() - started))
    searcher = _Searcher(game, time_limit, table)
    if line_time_limit is not None:
        searcher.line_deadline = started + line_time_limit
    searcher.share_labels = processes > 1 and getattr(table, "threads", 1) == 1  # a table on every core needs no helper
    if known:
        searcher.seed(known)
    if processes > 1 and not children and table is not None and hasattr(table, "rival") and game.outcome(state) is None:
        searcher.racing = (state, known)
        searcher.split_state = state
    return searcher.run(state, children, line)


def _rival(
    game: Game, state: int, table: Any, deadline: float | None, known: dict[int, tuple[str, int | None]] | None, conn: Any
) -> None:
    """In a second process: prove the outcome of ``state`` with ``table``, sending its entries
    each time it knows more (with proof numbers: whether it is not lost, then whether it is won,
    child by child)."""
    searcher = _Searcher(game, None if deadline is None else max(0.0, deadline - time.perf_counter()), table)
    if known:
        searcher.seed(known)
    try:
        if not hasattr(table, "dfpn"):
            searcher.wdl_search(state, -1, 1)
            conn.send(table.export())
            return
        searcher.wdl_search(state, -1, 0)  # not a loss? (the start's process asks for a win first)
        conn.send(table.export())
        entry = table.get(state)
        if entry is not None and entry[1] < 1:
            return
        # a win? child by child, those with the most replies (the last the start's proof-number search
        # tries) first: each child whose mover does not lose refutes one move, a child lost for its
        # mover proves the win
        kids = sorted(((replies, child) for _m, child, result, replies in game.successors(state) if result is None), reverse=True)
        for _replies, child in kids:
            value = searcher.wdl_search(child, -1, 0)
            conn.send(table.export([child]))
            if value < 0:
                return
    except _Timeout:
        return


def _distance_helper(
    game: Game, kids: list[tuple[int, int | None]], table: Any, deadline: float | None, conn: Any
) -> None:
    """In a second process: the start's children ``kids`` (:func:`_split_children`) for each distance
    test the start's process sends (``("test", g, order)``), from the last child of ``order`` to the
    first, skipping those the start's process has done; each child's value (for the start's mover)
    goes back as ``("done", g, index, value)``."""
    searcher = _Searcher(game, None if deadline is None else max(0.0, deadline - time.perf_counter()), table)
    inbox: list[Any] = []
    try:
        while True:
            message = inbox.pop(0) if inbox else conn.recv()
            if message[0] != "test":
                continue
            g, order = message[1], message[2]
            done: set[int] = set()
            current = -1

            def stop() -> bool:
                while conn.poll():
                    message = conn.recv()
                    if message[0] == "done" and message[1] == g:
                        done.add(message[2])
                    elif message[0] == "test":
                        inbox.append(message)
                return bool(inbox) or current in done

            searcher.abandon = stop
            for current in reversed(order):
                if stop():
                    break
                value = searcher._split_value(kids[current], g)
                if value is None:
                    continue
                conn.send(("done", g, current, value))
                if value >= g:
                    break
    except (_Timeout, EOFError, OSError):
        return


def _labels_helper(searcher: _Searcher, states: list[int], done: set[int], conn: Any) -> None:
    """In a second process forked from ``searcher``'s: prove ``states`` from the last to the first,
    skipping ``done`` and those the other process proves (``("done", index, label)`` from it), and
    send each label the same way, and each outcome as soon as it is proved before its distance
    (``("outcome", index, value)``)."""
    searcher.split_state = None
    searcher.share_labels = False
    current = -1
    searcher.outcome_found = lambda value: conn.send(("outcome", current, value))

    def stop() -> bool:
        while conn.poll():
            done.add(conn.recv()[1])
        return current in done

    searcher.abandon = stop
    try:
        for current in reversed(range(len(states))):
            if stop():
                continue
            try:
                label_ = searcher.prove_one(states[current])
            except _Abandoned:
                continue
            conn.send(("done", current, label_))
    except (_Timeout, EOFError, OSError):
        return


def _split_children(game: Game, state: int) -> list[tuple[int, int | None]]:
    """The children of ``state`` in the order the distance split takes them: ``(child, its value for
    the parent's mover when the game ends there, else None)``, fewest replies first."""
    kids = sorted((replies, child, result) for _m, child, result, replies in game.successors(state))
    return [(child, None if result is None else _shift(-_VALUE[result] * M)) for _r, child, result in kids]


# -- depth-first search (acyclic games) ------------------------------------------------


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


class _Searcher:
    def __init__(self, game: Game, time_limit: float | None, compiled: Any = None):
        self.game = game
        self.start = time.perf_counter()
        self.deadline = None if time_limit is None else self.start + time_limit
        self.nodes = 0
        self.dist_nodes = 0
        self.draw_nodes = 0
        # state -> (lo, hi, best move index)
        self.wdl: dict[int, tuple[int, int, int]] = {}
        self.dist: dict[int, tuple[int, int, int]] = {}
        self.compiled = compiled
        if compiled is not None:
            # tables that may forget entries: what the driver proves is kept in `proved` too
            self.wdl = compiled
            self.wdl_search = self._wdl_compiled  # type: ignore[method-assign]
            if hasattr(compiled, "distance_search"):
                self.dist = compiled.distances
                self.dist_search = self._dist_compiled  # type: ignore[method-assign]
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

    # -- bookkeeping -------------------------------------------------------------

    def _tick(self) -> None:
        self.nodes += 1
        if self.deadline is not None and self.nodes & 1023 == 0 and time.perf_counter() > self.deadline:
            raise _Timeout

    # -- step 1: outcome ----------------------------------------------------------------

    def wdl_search(self, state: int, alpha: int, beta: int) -> int:
        """Negamax value in {-1, 0, 1} (fail-soft) of a non-terminal ``state``."""
        self.nodes += 1
        if self.nodes & 1023 == 0 and self.deadline is not None and time.perf_counter() > self.deadline:
            raise _Timeout
        table = self.wdl
        entry = table.get(state)
        if entry is not None:
            lo, hi, best_index = entry
            if lo >= beta:
                return lo
            if hi <= alpha:
                return hi
            if lo == hi:
                return lo
        else:
            lo, hi, best_index = -1, 1, -1
        if lo > alpha:
            alpha = lo
        if hi < beta:
            beta = hi
        history = self.history
        kids = self._successors(state)
        # Immediate results first; then order by what the table knows of each
        # child (its value bounds, for the child's mover: low is good for us),
        # then by the history of moves that caused cut-offs.
        order: list[tuple[int, int, int | None]] = []
        for i, (move, child, result, replies) in enumerate(kids):
            if result is not None:
                value = -_VALUE[result]
                if value == 1:
                    table[state] = (1, 1, i)
                    return 1
                order.append((-(10**9) if value == 0 else 10**9, i, value))
                continue
            e = table.get(child)
            if e is not None:
                if e[1] == -1:  # the child is lost for its mover
                    table[state] = (1, 1, i)
                    return 1
                key = (e[0] + e[1]) * 10**6
            else:
                key = 0
            if i == best_index:
                key = -(10**8)
            # fewest replies first: forcing moves are the quickest to prove
            order.append((key + replies * 1000 - history.get(move, 0), i, None))
        if len(order) > 1:
            order.sort()
        alpha0 = alpha
        best = -2
        best_i = -1
        for _, i, known in order:
            value = -self.wdl_search(kids[i][1], -beta, -alpha) if known is None else known
            if value > best:
                best, best_i = value, i
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        move = kids[i][0]
                        history[move] = history.get(move, 0) + 1
                        break
        if best < lo:
            best = lo
        elif best > hi:
            best = hi
        if best <= alpha0:
            hi = best
        elif best >= beta:
            lo = best
        else:
            lo = hi = best
        table[state] = (lo, hi, best_i)
        return best

    def _wdl_compiled(self, state: int, alpha: int, beta: int) -> int:
        """:meth:`wdl_search` by the game's compiled search: its proof-number search where it has
        one (``table.dfpn``), its alpha-beta otherwise."""
        if not hasattr(self.wdl, "dfpn"):
            return self._sliced(self.wdl.search, state, alpha, beta)  # type: ignore[attr-defined]
        lo, hi = -1, 1
        while True:
            entry = self.wdl.get(state)
            if entry is not None:
                lo, hi = max(lo, entry[0]), min(hi, entry[1])
            if lo >= beta or hi <= alpha or lo == hi:
                break
            # the value is at least `target`? (a win first, then not a loss)
            target = min(hi, beta)
            if self._sliced(self._dfpn, state, target, target) > 0:
                lo = target
            else:
                hi = target - 1
            if entry is None or (lo, hi) != (entry[0], entry[1]):
                self.wdl[state] = (lo, hi, -1 if entry is None else entry[2])
        return lo if lo >= beta or lo == hi else hi

    def _dfpn(self, state: int, target: int, _: int, budget: int) -> tuple[int | None, int]:
        """One budget of the compiled proof-number search of "the value of ``state`` is at least
        ``target``": 1 if so, 0 if not."""
        proved, nodes = self.wdl.dfpn(state, target, budget)  # type: ignore[attr-defined]
        return (None if proved is None else int(proved)), nodes

    def _dist_compiled(self, state: int, alpha: int, beta: int) -> int:
        """:meth:`dist_search` by the game's compiled search."""
        before = self.nodes
        try:
            return self._sliced(self.wdl.distance_search, state, alpha, beta)  # type: ignore[attr-defined]
        finally:
            self.dist_nodes += self.nodes - before

    def _sliced(self, search: Callable[[int, int, int, int], tuple[int | None, int]], state: int, alpha: int, beta: int) -> int:
        """Run a compiled search in node budgets, looking at the clock (and the rival process) between
        them (about 0.1 s of work each); :attr:`abandon`, if set, may give it up between them."""
        budget = COMPILED_BUDGET if self.deadline is None else COMPILED_BUDGET // 10
        while True:
            began = time.perf_counter()
            value, nodes = search(state, alpha, beta, budget)
            self.nodes += nodes
            if value is not None:
                return value
            if self.racing is not None:
                self.race(*self.racing)
            elif self.rival_conn is not None and self.rival_conn.poll():
                self._adopt_rival()
            now = time.perf_counter()
            if self.abandon is not None and self.abandon():
                raise _Abandoned
            if self.deadline is None:
                budget *= 2
                continue
            if now > self.deadline:
                raise _Timeout
            budget = max(1000, min(2 * budget, COMPILED_CHUNK, int(nodes / max(now - began, 1e-6) / 10)))

    def race(self, state: int, known: dict[int, tuple[str, int | None]] | None) -> None:
        """Start a second process proving the outcome of ``state`` with the table's rival move order."""
        self.racing = None
        try:
            context = multiprocessing.get_context("fork")
        except ValueError:
            return  # no fork on this platform: one process
        receive, send = context.Pipe(duplex=False)
        rival = self.wdl.rival()  # type: ignore[attr-defined]
        self.rival_state = state
        self.rival = context.Process(target=_rival, args=(self.game, state, rival, self.deadline, known, send), daemon=True)
        self.rival.start()
        send.close()
        self.rival_conn = receive

    def _adopt_rival(self) -> None:
        """The rival knows more of the start's outcome (or gave up): add its table's bounds to this
        one's, and stop it once the outcome is known."""
        try:
            exported = self.rival_conn.recv()
        except (EOFError, OSError):
            self._stop_rival()  # it ran out of time
            return
        self.wdl.adopt(exported)  # type: ignore[attr-defined]
        self.rival_won = 1
        entry = self.wdl.get(self.rival_state)
        if entry is not None and entry[0] == entry[1]:
            self._stop_rival()

    def _stop_rival(self) -> None:
        self.racing = None
        if self.rival is None:
            return
        self.rival.terminate()
        self.rival.join()
        self.rival_conn.close()
        self.rival = self.rival_conn = None

    # -- step 2: distance ---------------------------------------------------------------

    def dist_search(self, state: int, alpha: int, beta: int) -> int:
        """Negamax distance score (fail-soft) of a non-terminal ``state``.

        Scores are node-relative: ``M - d`` for a win in ``d`` plies,
        ``-(M - d)`` for a loss in ``d``, 0 for a draw. A non-terminal state
        is at least one ply from the end, and at most ``max_plies`` if the
        game gives that hint: windows outside those bounds are cut at once,
        which makes a narrow window (a win within ``k`` plies) a search of
        depth ``k``.
        """
        if alpha >= M - 1:
            return M - 1
        if beta <= 1 - M:
            return 1 - M
        self._tick()
        self.dist_nodes += 1
        # bounds: what the distance table, the outcome table and the length hint say
        lo, hi = 1 - M, M - 1
        plies = self.max_plies(state)
        w = self.wdl.get(state)
        if w is not None:
            if w[0] == 1:
                lo = M - plies if plies is not None else 1
            elif w[0] == 0:
                lo = 0
            if w[1] == -1:
                hi = -(M - plies) if plies is not None else -1
            elif w[1] == 0:
                hi = 0
        best_index = -1
        entry = self.dist.get(state)
        if entry is not None:
            if entry[0] > lo:
                lo = entry[0]
            if entry[1] < hi:
                hi = entry[1]
            best_index = entry[2]
        if lo == hi:
            if entry is None or entry[0] != entry[1]:
                self.dist[state] = (lo, hi, best_index)  # pinned down by the bounds alone: exact
            return lo
        if lo >= beta:
            return lo
        if hi <= alpha:
            return hi
        if lo > alpha:
            alpha = lo
        if hi < beta:
            beta = hi
        kids = self._successors(state)
        wdl = self.wdl
        dist = self.dist
        order: list[tuple[int, int, int, int, int | None]] = []
        skipped = False
        for i, (_move, child, result, replies) in enumerate(kids):
            if result is not None:
                order.append((-3 * M, 0, 0, i, _shift(-_VALUE[result] * M)))
                continue
            # what we know of the child's score (for its mover): low is good for us
            clo, chi = 1 - M, M - 1
            e = wdl.get(child)
            if e is not None:
                if e[0] >= 0:
                    if alpha >= 0:
                        skipped = True
                        continue  # worth at most 0 to us, and the window wants more
                    clo = 0 if e[0] == 0 else 1
                if e[1] <= 0:
                    chi = 0 if e[1] == 0 else -1
            d = dist.get(child)
            if d is not None:
                clo, chi = max(clo, d[0]), min(chi, d[1])
            if i == best_index:
                chi = -3 * M + 1
            order.append((chi, clo, replies, i, None))
        order.sort()
        alpha0 = alpha
        best = -INF
        best_i = -1
        for _, _, _, i, value in order:
            if value is None:
                value = _shift(-self.dist_search(kids[i][1], -_unshift(beta), -_unshift(alpha)))
            if value > best:
                best, best_i = value, i
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        break
        if skipped and best < 0:
            best = 0  # the skipped children are worth at most 0
        best = min(max(best, lo), hi)
        if best <= alpha0:
            hi = best
        elif best >= beta:
            lo = best
        else:
            lo = hi = best
        dist[state] = (lo, hi, best_i)
        return best

    def exact_distance(self, state: int) -> int:
        """Distance of a non-terminal won or lost state (its outcome already proved)."""
        # MTD from the short side: null-window tests "win within k?" /
        # "lost only after k or more?" with k growing; each test is a search
        # of depth about k, and the table keeps the bounds between tests.
        won = self.wdl_search(state, -1, 1) > 0
        lo, hi = (1, M - 1) if won else (1 - M, -1)
        # the start's tests are shared with a helper process once they outlast HELPER_AFTER seconds
        # (a fork costs more than the tests of an easy position)
        may_split = state == self.split_state
        split = False
        helper_at = time.perf_counter() + HELPER_AFTER
        try:
            while lo < hi:
                if won:
                    g = hi  # is the score >= hi, i.e. a win within M - hi plies?
                else:
                    g = lo + 1  # is the score >= lo + 1, i.e. does the loser last longer?
                if may_split and time.perf_counter() > helper_at:
                    may_split = False
                    split = self._start_helper(state)
                if split:
                    r = self._split_test(state, g)
                elif may_split:
                    self.abandon = lambda: time.perf_counter() > helper_at
                    try:
                        r = self.dist_search(state, g - 1, g)
                    except _Abandoned:
                        continue  # the helper starts at the top of the loop
                    finally:
                        self.abandon = None
                else:
                    r = self.dist_search(state, g - 1, g)
                if r >= g:
                    lo = r
                else:
                    hi = r
        finally:
            if split:
                self._stop_helper()
        return M - abs(lo)

    def _start_helper(self, state: int) -> bool:
        """Fork the process that takes half of the children of ``state`` in its distance tests."""
        try:
            context = multiprocessing.get_context("fork")
        except ValueError:
            return False
        mine, theirs = context.Pipe()
        self.split_kids = _split_children(self.game, state)
        self.split_values = {}
        self.helper = context.Process(
            target=_distance_helper, args=(self.game, self.split_kids, self.wdl, self.deadline, theirs), daemon=True
        )
        self.helper.start()
        theirs.close()
        self.helper_conn = mine
        return True

    def _stop_helper(self) -> None:
        self.abandon = None
        self.helper.terminate()
        self.helper.join()
        if self.helper_conn is not None:
            self.helper_conn.close()
        self.helper = self.helper_conn = None

    def _split_value(self, kid: tuple[int, int | None], g: int) -> int | None:
        """The value of a child (``(state, value if it ends the game)``) for the parent's mover, as far
        as the test "is the parent's score at least ``g``?" needs it; ``None`` if the search was given up."""
        child, value = kid
        if value is not None:
            return value
        if g > 0:
            e = self.wdl.get(child)
            if e is not None and e[0] >= 0:
                return 0  # worth at most 0 to the parent: the test fails on this child
        a = -_unshift(g)
        try:
            return _shift(-self.dist_search(child, a, a + 1))
        except _Abandoned:
            return None

    def _split_test(self, state: int, g: int) -> int:
        """The null-window test ``dist_search(state, g - 1, g)`` of the start position, its children
        shared with the helper process in one order: this one from the first, the helper from the last."""
        values: dict[int, int] = {}
        # the children the outcome table knows to be lost for their mover first (the moves that
        # win), then those that scored highest in the test before, then fewest replies first
        last = self.split_values
        wdl = self.wdl

        def rank(i: int) -> tuple[bool, int]:
            entry = wdl.get(self.split_kids[i][0])
            return entry is None or entry[1] >= 0, -last.get(i, -INF)

        order = sorted(range(len(self.split_kids)), key=rank)
        self._to_helper(("test", g, order))

        def stop() -> bool:
            conn = self.helper_conn
            try:
                while conn is not None and conn.poll():
                    message = conn.recv()
                    if message[0] == "done" and message[1] == g:
                        values[message[2]] = message[3]
            except (EOFError, OSError):
                conn.close()
                self.helper_conn = None  # the helper is gone (out of time): this process goes on alone
            return current in values or any(v >= g for v in values.values())

        self.abandon = stop
        try:
            for current in order:
                if stop():
                    if any(v >= g for v in values.values()):
                        break
                    continue
                value = self._split_value(self.split_kids[current], g)
                if value is None:
                    continue
                values[current] = value
                self._to_helper(("done", g, current, value))
                if value >= g:
                    break
        finally:
            self.abandon = None
        self.split_values = values
        return max(values.values())

    def _to_helper(self, message: tuple[Any, ...]) -> None:
        if self.helper_conn is None:
            return
        try:
            self.helper_conn.send(message)
        except OSError:
            self.helper_conn = None

    # -- step 3: draw length --------------------------------------------------------------

    def draw_length(self, state: int) -> int:
        """The longest line of drawn positions from the drawn ``state`` to the end."""
        known = self.draw_len.get(state)
        if known is not None:
            return known
        if self.game.outcome(state) is not None:
            return 0
        fixed = self.game.draw_length(state)
        if fixed is not None:
            self.draw_len[state] = fixed
            return fixed
        bound = self.max_plies(state)
        if bound is None:
            return self._draw_length_dfs(state)
        # from the long side: is there a drawn line of length >= L, for L = bound, bound - 1, ...
        length = min(bound, self.draw_ub.get(state, M))
        while not self._drawn_line_by_turns(state, length):
            length -= 1
        self.draw_len[state] = length
        return length

    def _drawn_line_by_turns(self, state: int, length: int) -> bool:
        """:meth:`_drawn_line` in both move orders by turns, each within a node budget that
        grows fourfold every round: one order can walk into a huge subtree without the line
        that the other finds in a few dozen nodes."""
        budget = DRAW_BUDGET
        try:
            while True:
                for order in DRAW_ORDERS:
                    self.draw_order, self.draw_budget = order, budget
                    try:
                        return self._drawn_line(state, length)
                    except _OverBudget:
                        pass
                budget *= 4
        finally:
            self.draw_order, self.draw_budget = 0, None

    def _drawn_line(self, state: int, length: int) -> bool:
        """Whether the drawn, non-terminal ``state`` starts a line of drawn positions at least ``length`` long."""
        if length <= self.draw_lb.get(state, 1):
            return True  # a drawn position always has a drawn move
        bound = self.draw_ub.get(state)
        if bound is None:
            bound = cast(int, self.max_plies(state))  # only called when the game gives bounds
        if bound < length:
            return False
        self._tick()
        self.draw_nodes += 1
        if self.draw_budget is not None:
            self.draw_budget -= 1
            if self.draw_budget < 0:
                raise _OverBudget
        game = self.game
        max_plies = cast(Callable[[int], int], self.max_plies)
        count = self.move_count
        wdl = self.wdl
        # longest bound first; among equal bounds, in order 0 the children the outcome table already
        # knows to be drawn (worth at most 0 to their mover, and at least 0 as the parent is drawn)
        # first, then those with the most replies; in order 1 those with the fewest replies first
        if self.draw_order == 0:
            kids = sorted(((max_plies(c), _at_most_zero(wdl.get(c)), count(c), c) for _m, c in self._children(state)), reverse=True)
        else:
            kids = sorted(((max_plies(c), True, -count(c), c) for _m, c in self._children(state)), reverse=True)
        found = False
        for plies, _, _, child in kids:
            if plies < length - 1:
                break  # sorted: no later child can be long enough
            if game.outcome(child) is not None:
                continue  # a terminal child makes a line of 1, and length > 1 here
            child_bound = self.draw_ub.get(child)
            if child_bound is not None and child_bound < length - 1:
                continue
            # the parent is drawn, so the child is worth >= 0 to its mover: drawn unless a win
            if self.wdl_search(child, 0, 1) > 0:
                continue
            if self._drawn_line(child, length - 1):
                found = True
                break
        if not found:
            self.draw_ub[state] = length - 1
            if length - 1 == self.draw_lb.get(state, 1):
                self.draw_len[state] = length - 1
            return False
        self.draw_lb[state] = length
        if length == bound:
            self.draw_len[state] = length
        return True

    def _draw_length_dfs(self, state: int) -> int:
        """:meth:`draw_length` without a length hint: every drawn child, depth first."""
        known = self.draw_len.get(state)
        if known is not None:
            return known
        self._tick()
        self.draw_nodes += 1
        game = self.game
        best = -1
        for _move, child in self._children(state):
            result = game.outcome(child)
            if result is not None:
                if result == DRAW:
                    best = max(best, 0)
                continue
            # the parent is drawn, so the child is worth >= 0 to its mover: drawn unless a win
            if self.wdl_search(child, 0, 1) <= 0:
                best = max(best, self._draw_length_dfs(child))
        if best < 0:
            raise AssertionError(f"drawn state {state} has no drawn child")
        self.draw_len[state] = best + 1
        return best + 1

    # -- driver ---------------------------------------------------------------------

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

    def prove_one(self, state: int) -> tuple[str, int]:
        known = self.exact(state)
        if known is not None:
            return known
        if hasattr(self.wdl, "label"):
            return self._label_compiled(state)
        value = self.prove_outcome(state)
        if self.outcome_found is not None:
            self.outcome_found(value)
        began = time.perf_counter()
        try:
            if value == 0:
                label_ = DRAW, self.draw_length(state)
            else:
                label_ = (WIN if value > 0 else LOSS), self.exact_distance(state)
        finally:
            self.seconds["draw" if value == 0 else "distance"] += time.perf_counter() - began
        self.proved[state] = label_
        return label_

    def prove_outcome(self, state: int) -> int:
        """The outcome of ``state`` for its mover: 1 a win, 0 a draw, -1 a loss."""
        known = self.exact(state)
        if known is not None:
            return _VALUE[known[0]]
        value = self.outcomes.get(state)
        if value is not None:
            return value
        began = time.perf_counter()
        try:
            value = self.wdl_search(state, -1, 1)
        finally:
            self.seconds["outcome"] += time.perf_counter() - began
        self._stop_rival()  # only the start position's outcome is raced
        self.outcomes[state] = value
        return value

    def _label_compiled(self, state: int) -> tuple[str, int]:
        """Outcome and distance from a compiled exact search (``table.label(state, budget)``,
        its node count in ``table.nodes``), run in node budgets between looks at the clock."""
        began = time.perf_counter()
        before: int = self.wdl.nodes  # type: ignore[attr-defined]
        try:
            while True:
                found: tuple[str, int] | None = self.wdl.label(state, COMPILED_CHUNK)  # type: ignore[attr-defined]
                if found is not None:
                    label_ = found
                    break
                if self.deadline is not None and time.perf_counter() > self.deadline:
                    raise _Timeout
        finally:
            self.seconds["outcome"] += time.perf_counter() - began
            self.nodes += self.wdl.nodes - before  # type: ignore[attr-defined]
        self.proved[state] = label_
        return label_

    def expand(self, state: int, record: bool = False) -> list[tuple[int, int, tuple[str, int]]]:
        """Prove every child of ``state``: ``(move, child, label)`` for each; with ``record``, the
        labels go to :attr:`moves` as they are known (so a timeout keeps them)."""
        moves = self._children(state)
        labels: dict[int, tuple[str, int]] = {}
        try:
            self.prove_all([child for _move, child in moves], labels)
        finally:
            if record:
                self.moves = {moves[i][0]: label_ for i, label_ in sorted(labels.items())}
        return [(move, child, labels[i]) for i, (move, child) in enumerate(moves)]

    def prove_all(self, states: list[int], labels: dict[int, tuple[str, int]]) -> None:
        """:meth:`prove_one` of each of ``states``, into ``labels`` (by index) as each is known. With
        :attr:`share_labels`, once they outlast :data:`HELPER_AFTER` seconds a second process shares
        them: this one takes them from the first, the helper from the last, each skipping those the
        other has proved and giving up one the other proves first. The last one left is proved like
        a start position: its outcome raced and its distance tests shared by children with a second
        process."""
        for i, state in enumerate(states):
            known = self.exact(state)
            if known is not None:
                labels[i] = known
        share = self.share_labels
        helper_at = time.perf_counter() + HELPER_AFTER
        helper: Any = None
        conn: Any = None
        current = -1

        def last() -> bool:
            return len(labels) == len(states) - 1 and current not in labels

        def stop() -> bool:
            nonlocal conn
            if helper is None:
                return not last() and time.perf_counter() > helper_at
            try:
                while conn is not None and conn.poll():
                    tag, i, found = conn.recv()
                    if tag == "outcome":
                        self.heard[states[i]] = found
                    else:
                        labels[i] = found
                        self.proved[states[i]] = found
            except (EOFError, OSError):
                conn = None  # the helper is gone (done, or out of time): this process goes on alone
            return current in labels or last()

        try:
            for current in range(len(states)):
                while current not in labels:
                    if share and last():
                        share = False
                        self._stop_labels_helper(helper, conn)
                        helper = conn = None
                        self._as_start(states[current])
                    elif share and helper is None and time.perf_counter() > helper_at:
                        helper, conn = self._start_labels_helper(states, set(labels))
                        share = helper is not None
                    self.abandon = stop if share else None
                    try:
                        label_ = self.prove_one(states[current])
                    except _Abandoned:
                        continue  # proved by the helper, the helper starts now, or this is the last one
                    finally:
                        self.abandon = None
                    labels[current] = label_
                    if conn is not None:
                        try:
                            conn.send(("done", current, label_))
                        except OSError:
                            conn = None
        finally:
            self._stop_labels_helper(helper, conn)

    def _as_start(self, state: int) -> None:
        """Prove ``state`` next as a start position is proved with two processes (where the compiled
        table has a rival): its outcome raced (unless known) and its distance tests shared by children."""
        if not hasattr(self.compiled, "rival"):
            return
        self.split_state = state
        entry = self.wdl.get(state)
        if entry is None or entry[0] != entry[1]:
            self.racing = (state, None)

    @staticmethod
    def _stop_labels_helper(helper: Any, conn: Any) -> None:
        """Stop the process of :meth:`_start_labels_helper` and close its pipe (either may be ``None``)."""
        if helper is not None:
            helper.terminate()
            helper.join()
        if conn is not None:
            conn.close()

    def _start_labels_helper(self, states: list[int], done: set[int]) -> tuple[Any, Any]:
        """Fork the process that proves ``states`` from the last (:func:`_labels_helper`);
        ``(None, None)`` where fork is not available."""
        try:
            context = multiprocessing.get_context("fork")
        except ValueError:
            return None, None
        mine, theirs = context.Pipe()
        helper = context.Process(target=_labels_helper, args=(self, states, done, theirs), daemon=True)
        helper.start()
        theirs.close()
        return helper, mine

    def run(self, state: int, with_children: bool, line: bool) -> SearchResult:
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 10_000))
        outcome: str | None = None
        distance: int | None = None
        complete = False
        timed_out = False
        self.line = [state]
        self.moves = {}
        try:
            if with_children and self.game.outcome(state) is None:
                # the start's label follows from its children's: no search of its own
                kids = self.expand(state, record=True)
                outcome, distance = min((_flip(label_) for _move, _child, label_ in kids), key=_rank)
                self.proved[state] = outcome, distance
            else:
                outcome, distance = self.prove_one(state)
                kids = []
            if with_children:
                complete = True
                # the best line, each position on it with every child proved, while time allows
                if self.line_deadline is not None and (self.deadline is None or self.line_deadline < self.deadline):
                    self.deadline = self.line_deadline
                while line and kids:
                    best = min(kids, key=lambda k: _rank(_flip(k[2])))
                    self.line.append(best[1])
                    kids = self.expand(best[1])
            complete = True
        except _Timeout:
            timed_out = not complete
            if outcome is None and with_children:
                settled = self._settled(state)
                if settled is not None:
                    outcome, distance = self.proved[state] = settled
        finally:
            sys.setrecursionlimit(limit)
            self._stop_rival()
        return SearchResult(
            game=self.game,
            root=self.game.canonical(state)[0],
            outcome=outcome,
            distance=distance,
            complete=complete,
            timed_out=timed_out,
            method="search",
            nodes=self.nodes,
            seconds=time.perf_counter() - self.start,
            moves=self.moves,
            stats={
                "outcome_nodes": self.nodes - self.dist_nodes - self.draw_nodes,
                "distance_nodes": self.dist_nodes,
                "draw_nodes": self.draw_nodes,
                "outcome_table": len(self.wdl),
                "distance_table": len(self.dist),
                "draw_table": len(self.draw_len),
                **{f"{phase}_s": round(t, 3) for phase, t in self.seconds.items()},
                "rival_won": self.rival_won,
            },
            table=self.compiled,
            _collect=lambda deadline: self._collect(deadline),
        )

    def _settled(self, state: int) -> tuple[str, int] | None:
        """The label of ``state`` where the moves proved so far (:attr:`moves`) and the outcomes
        known of the others settle it: a win none of the others can make faster (none is lost for
        its mover), a draw none of the others can make longer (each is won for its mover)."""
        best = min((_flip(label_) for label_ in self.moves.values()), key=_rank, default=None)
        if best is None or best[0] == LOSS:
            return None
        for move, child in self._children(state):
            if move in self.moves:
                continue
            value = self.outcomes.get(child, self.heard.get(child))
            if value is None or value < 0 or (value == 0 and best[0] == DRAW):
                return None
        return best

    def exact(self, state: int) -> tuple[str, int] | None:
        """The proved label of ``state`` if the tables pin it down, else ``None``."""
        result = self.game.outcome(state)
        if result is not None:
            return result, 0
        known = self.proved.get(state)
        if known is not None:
            return known
        d = self.draw_len.get(state)
        if d is not None:
            return DRAW, d
        e = self.dist.get(state)
        if e is not None and e[0] == e[1] and e[0] != 0:
            return (WIN if e[0] > 0 else LOSS), M - abs(e[0])
        return None

    def _collect(self, deadline: float | None) -> _Collected:
        """The positions to store: every proved position all of whose children are proved
        (*expanded*, stored with all its moves), reached from the start through such
        positions, and their children; canonical states.

        The best line found by :meth:`run` comes first, then the rest breadth
        first, so a caller that stops early still has the start and its line.
        """
        game = self.game
        exact = self.exact
        positions: dict[int, tuple[str, int | None]] = {}
        edges: dict[tuple[int, int], int] = {}
        expanded: list[int] = []
        seen: set[int] = set()
        done: set[int] = set()
        queue = deque(self.line)
        root_label = exact(self.line[0])
        if root_label is not None:
            positions[game.canonical(self.line[0])[0]] = root_label
        if game.outcome(self.line[0]) is None:
            # the start's proved moves: with their parent below when all are proved, else on their own,
            # for a later solve to go on from
            for _move, child in self._children(self.line[0]):
                child_label = exact(child)
                if child_label is not None:
                    positions.setdefault(game.canonical(child)[0], child_label)
        count = 0
        while queue:
            s = queue.popleft()
            if s in seen:
                continue
            seen.add(s)
            if game.outcome(s) is not None:
                continue
            label_ = exact(s)
            if label_ is None:
                continue
            kids = self._children(s)
            labels = [exact(child) for _move, child in kids]
            if None in labels:
                continue
            cs, sym = game.canonical(s)
            if cs in done:
                continue
            done.add(cs)
            positions[cs] = label_
            expanded.append(cs)
            for (move, child), child_label in zip(kids, labels):
                cc = game.canonical(child)[0]
                positions.setdefault(cc, cast(tuple[str, int], child_label))
                edges[(cs, game.transform_move(move, sym))] = cc
                queue.append(child)
            count += 1
            if deadline is not None and count & 63 == 0 and time.perf_counter() > deadline:
                break
        return positions, [(s, m, c) for (s, m), c in edges.items()], expanded


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


def _shift(score: int) -> int:
    """A child's score seen one ply earlier: one ply further from the end."""
    if score > 0:
        return score - 1
    if score < 0:
        return score + 1
    return 0


def _unshift(bound: int) -> int:
    """The child-side bound that corresponds to a parent-side window bound (inverse of :func:`_shift`)."""
    if bound > 0:
        return bound + 1
    if bound < 0:
        return bound - 1
    return 0


# -- retrograde over the reachable subgraph ---------------------------------------------


def _prove_retrograde(game: Game, state: int, time_limit: float | None, max_states: int) -> SearchResult:
    start = time.perf_counter()
    deadline = None if time_limit is None else start + time_limit
    too_big = timed_out = False

    def stop(i: int, found: int) -> bool:
        nonlocal too_big, timed_out
        too_big = found > max_states
        timed_out = not too_big and deadline is not None and i & 255 == 0 and time.perf_counter() > deadline
        return too_big or timed_out

    graph = enumerate_states(game, start=state, stop=stop)
    states, terminal = graph.states, graph.terminal
    root = states[0]
    if timed_out or too_big:
        return SearchResult(
            game=game, root=root, outcome=None, distance=None, complete=False, timed_out=timed_out,
            method="retrograde", nodes=len(states), seconds=time.perf_counter() - start,
            stats={"states": len(states), "too_many_states": int(too_big)},
        )  # fmt: skip
    src, moves, dst = graph.src.tolist(), graph.move.tolist(), graph.dst.tolist()
    n = len(states)
    outcome, distance = label(n, graph.src, graph.dst, terminal)
    positions: dict[int, tuple[str, int | None]] = {
        s: (OUTCOME_NAMES[int(outcome[i])], None if int(distance[i]) == NO_DISTANCE else int(distance[i]))
        for i, s in enumerate(states)
    }
    unique = {(states[a], m): states[b] for a, m, b in zip(src, moves, dst)}
    edges = [(a, m, b) for (a, m), b in unique.items()]
    root_outcome, root_distance = positions[root]
    return SearchResult(
        game=game,
        root=root,
        outcome=root_outcome,
        distance=root_distance,
        complete=True,
        timed_out=False,
        _collected=(positions, edges, [s for s, t in zip(states, terminal) if t == UNKNOWN]),
        method="retrograde",
        nodes=n,
        seconds=time.perf_counter() - start,
        stats={"states": n, "moves": len(src)},
    )
