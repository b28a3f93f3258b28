"""Step 1 of :func:`tablebase.solve.search.prove`: the outcome (win, draw or loss) by negamax alpha-beta,
or by the game's compiled search run in node budgets, and the rival process that races it."""

from __future__ import annotations

import time
from typing import Any, Callable

from tablebase.games.base import Game
from tablebase.games.compiled_search import CompiledSearch
from tablebase.scores import settle
from tablebase.solve.search.base import _VALUE, fork_context, COMPILED_BUDGET, COMPILED_CHUNK, _Abandoned, _SearchState, _Timeout


def _rival(
    kind: type[_OutcomeSearch],
    game: Game,
    state: int,
    table: CompiledSearch,
    deadline: float | None,
    known: dict[int, tuple[str, int | None]] | None,
    conn: Any,
) -> None:
    """In a second process: prove the outcome of ``state`` with ``table`` (a new search of type
    ``kind``), sending its entries each time it knows more (with proof numbers: whether it is not
    lost, then whether it is won, child by child)."""
    searcher = kind(game, None if deadline is None else max(0.0, deadline - time.perf_counter()), table)
    if known:
        searcher.seed(known)
    try:
        if not table.proof_numbers:
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


class _OutcomeSearch(_SearchState):
    def __init__(self, game: Game, time_limit: float | None, compiled: CompiledSearch | None = None):
        super().__init__(game, time_limit, compiled)
        if compiled is not None:
            # tables that may forget entries: what the driver proves is kept in `proved` too
            self.wdl = compiled
            self.wdl_search = self._wdl_compiled  # type: ignore[method-assign]

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
        best, lo, hi = settle(best, lo, hi, alpha0, beta)
        table[state] = (lo, hi, best_i)
        return best

    def _wdl_compiled(self, state: int, alpha: int, beta: int) -> int:
        """:meth:`wdl_search` by the game's compiled search: its proof-number search where it has
        one (:attr:`~tablebase.games.compiled_search.CompiledSearch.proof_numbers`), its alpha-beta otherwise."""
        compiled = self._compiled()
        if not compiled.proof_numbers:
            return self._sliced(compiled.search, state, alpha, beta)
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
        proved, nodes = self._compiled().dfpn(state, target, budget)
        return (None if proved is None else int(proved)), nodes

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
        context = fork_context()
        if context is None:
            return  # one process
        receive, send = context.Pipe(duplex=False)
        rival = self._compiled().rival()
        self.rival_state = state
        self.rival = context.Process(target=_rival, args=(type(self), self.game, state, rival, self.deadline, known, send), daemon=True)
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
        self._compiled().adopt(exported)
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
