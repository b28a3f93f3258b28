"""Step 2 of :func:`tablebase.solve.search.prove`: the distance of a won or lost position by null-window
distance tests, and the helper process that shares the start's tests by children."""

from __future__ import annotations

import time
from typing import Any

from tablebase.games.base import Game
from tablebase.games.compiled_search import CompiledSearch
from tablebase.solve.search import base
from tablebase.scores import INF, M, settle, shift, unshift
from tablebase.solve.search.base import _VALUE, fork_context, _Abandoned, _Timeout
from tablebase.solve.search.outcome import _OutcomeSearch


def _distance_helper(
    kind: type[_DistanceSearch], game: Game, kids: list[tuple[int, int | None]], table: CompiledSearch, deadline: float | None,
    conn: Any,
) -> None:
    """In a second process, a new search of type ``kind``: the start's children ``kids``
    (:func:`_split_children`) for each distance test the start's process sends (``("test", g, order)``),
    from the last child of ``order`` to the first, skipping those the start's process has done; each
    child's value (for the start's mover) goes back as ``("done", g, index, value)``."""
    searcher = kind(game, None if deadline is None else max(0.0, deadline - time.perf_counter()), table)
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


def _split_children(game: Game, state: int) -> list[tuple[int, int | None]]:
    """The children of ``state`` in the order the distance split takes them: ``(child, its value for
    the parent's mover when the game ends there, else None)``, fewest replies first."""
    kids = sorted((replies, child, result) for _m, child, result, replies in game.successors(state))
    return [(child, None if result is None else shift(-_VALUE[result] * M)) for _r, child, result in kids]


class _DistanceSearch(_OutcomeSearch):
    def __init__(self, game: Game, time_limit: float | None, compiled: CompiledSearch | None = None):
        super().__init__(game, time_limit, compiled)
        if compiled is not None and compiled.distances is not None:
            self.dist = compiled.distances
            self.dist_search = self._dist_compiled  # type: ignore[method-assign]

    def _dist_compiled(self, state: int, alpha: int, beta: int) -> int:
        """:meth:`dist_search` by the game's compiled search."""
        before = self.nodes
        try:
            return self._sliced(self._compiled().distance_search, state, alpha, beta)
        finally:
            self.dist_nodes += self.nodes - before

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
                order.append((-3 * M, 0, 0, i, shift(-_VALUE[result] * M)))
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
                value = shift(-self.dist_search(kids[i][1], -unshift(beta), -unshift(alpha)))
            if value > best:
                best, best_i = value, i
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        break
        if skipped and best < 0:
            best = 0  # the skipped children are worth at most 0
        best, lo, hi = settle(best, lo, hi, alpha0, beta)
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
        helper_at = time.perf_counter() + base.HELPER_AFTER
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
        context = fork_context()
        if context is None:
            return False
        mine, theirs = context.Pipe()
        self.split_kids = _split_children(self.game, state)
        self.split_values = {}
        self.helper = context.Process(
            target=_distance_helper, args=(type(self), self.game, self.split_kids, self._compiled(), self.deadline, theirs),
            daemon=True,
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
        a = -unshift(g)
        try:
            return shift(-self.dist_search(child, a, a + 1))
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
