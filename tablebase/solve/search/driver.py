"""The proof driver of :mod:`tablebase.solve.search`: :func:`prove`, the proof of a position and of
all its moves (shared with a helper process), the best line, and what is stored."""

from __future__ import annotations

import random
import sys
import time
from collections import deque
from typing import Any, cast

from tablebase.games.base import DRAW, LOSS, WIN, Game
from tablebase.games.compiled_search import CompiledSearch
from tablebase.solve import enumerate_states
from tablebase.solve.retrograde import NO_DISTANCE, OUTCOME_NAMES, UNKNOWN_CODE, label
from tablebase.solve.search import base
from tablebase.scores import M
from tablebase.solve.search.base import _VALUE, fork_context, _Abandoned, _flip, _rank, _Timeout
from tablebase.solve.search.draws import _DrawSearch
from tablebase.solve.search.result import _Collected, SearchResult


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
    table: CompiledSearch | None = None,
    memory: int | None = None,
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
    With ``processes=2`` and a compiled table that has a rival (``table.races``),
    a second process races the start position's outcome proof: with a
    proof-number search (``table.proof_numbers``) it proves whether the start is not
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
    ``table`` is the one this proof used (:class:`~tablebase.solve.search.SearchSession`
    keeps it between proofs). A table made here takes at most ``memory`` bytes where the
    game sizes its table.
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
    if not compiled or table is None or not table.reusable:
        table = game.outcome_table(state, time_limit, memory) if compiled else None  # may load a compiled module: part of the time
    if time_limit is not None:
        time_limit = max(0.0, time_limit - (time.perf_counter() - started))
    searcher = _Searcher(game, time_limit, table)
    if line_time_limit is not None:
        searcher.line_deadline = started + line_time_limit
    searcher.share_labels = processes > 1 and (table is None or table.threads == 1)  # a table on every core needs no helper
    if known:
        searcher.seed(known)
    if processes > 1 and not children and table is not None and table.races and game.outcome(state) is None:
        searcher.racing = (state, known)
        searcher.split_state = state
    return searcher.run(state, children, line)


#: Seconds of search that :func:`warm_up` gives a game's compiled search.
WARM_SECONDS = 10.0
#: Plies before the end of a random game where :func:`warm_up` searches.
WARM_PLIES = 8


def warm_up(game: Game, table: CompiledSearch) -> None:
    """Search ``game`` once with its compiled ``table`` (:meth:`Game.outcome_table`) for at most
    :data:`WARM_SECONDS`, on a position :data:`WARM_PLIES` before the end of a seeded random game,
    so its compiled code is loaded from numba's cache (or compiled) before a caller waits for it."""
    rng = random.Random(0)
    line = [game.initial_state()]
    while game.outcome(line[-1]) is None:
        line.append(rng.choice(game.children(line[-1]))[1])
    prove(game, line[max(0, len(line) - 1 - WARM_PLIES)], WARM_SECONDS, children=True, table=table)


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


class _Searcher(_DrawSearch):
    """The whole search of :func:`prove`: the steps of its bases, driven position by position."""

    def prove_one(self, state: int) -> tuple[str, int]:
        known = self.exact(state)
        if known is not None:
            return known
        if self.compiled is not None and self.compiled.labels:
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
        """Outcome and distance from a compiled exact search (:meth:`_label_all_compiled` of the
        one state), stopped at the time limit."""
        labels: dict[int, tuple[str, int]] = {}
        self._label_all_compiled([state], labels)
        return labels[0]

    def _label_all_compiled(self, states: list[int], labels: dict[int, tuple[str, int]]) -> None:
        """Outcome and distance of each of ``states`` not in ``labels``, into ``labels`` (by index),
        from a compiled exact search of them together (``table.label_all(states, budget,
        deadline)``: ``None`` for those not proved by the deadline), stopped at the time limit."""
        began = time.perf_counter()
        compiled = self._compiled()
        before = compiled.nodes
        try:
            todo = [i for i in range(len(states)) if i not in labels]
            found = compiled.label_all([states[i] for i in todo], None, self.deadline)
            for i, label_ in zip(todo, found):
                if label_ is not None:
                    labels[i] = self.proved[states[i]] = label_
            if len(labels) < len(states):
                raise _Timeout
        finally:
            self.seconds["outcome"] += time.perf_counter() - began
            self.nodes += compiled.nodes - before

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
        process. Without a helper, a compiled table that proves states together (``label_all``)
        proves them so."""
        for i, state in enumerate(states):
            known = self.exact(state)
            if known is not None:
                labels[i] = known
        share = self.share_labels
        if not share and self.compiled is not None and self.compiled.labels:
            self._label_all_compiled(states, labels)
            return
        helper_at = time.perf_counter() + base.HELPER_AFTER
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
        if self.compiled is None or not self.compiled.races:
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
        context = fork_context()
        if context is None:
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
    outcome: str | None = None
    distance: int | None = None
    collected: _Collected | None = None
    stats: dict[str, int | float]
    if timed_out or too_big:
        stats = {"states": len(states), "too_many_states": int(too_big)}
    else:
        src, moves, dst = graph.src.tolist(), graph.move.tolist(), graph.dst.tolist()
        outcomes, distances = label(len(states), graph.src, graph.dst, terminal)
        positions: dict[int, tuple[str, int | None]] = {
            s: (OUTCOME_NAMES[int(outcomes[i])], None if int(distances[i]) == NO_DISTANCE else int(distances[i]))
            for i, s in enumerate(states)
        }
        unique = {(states[a], m): states[b] for a, m, b in zip(src, moves, dst)}
        edges = [(a, m, b) for (a, m), b in unique.items()]
        outcome, distance = positions[root]
        collected = (positions, edges, [s for s, t in zip(states, terminal) if t == UNKNOWN_CODE])
        stats = {"states": len(states), "moves": len(src)}
    return SearchResult(
        game=game, root=root, outcome=outcome, distance=distance, complete=collected is not None, timed_out=timed_out,
        method="retrograde", nodes=len(states), seconds=time.perf_counter() - start, stats=stats, _collected=collected,
    )  # fmt: skip
