"""Proving positions on request, for a server that only reads its tablebase file.

Variants too large to build (Ultimate tic-tac-toe) are explored position by
position: ``GET /api/{variant}/solve`` answers from the tablebase file when it
holds the position with all its moves, else from what this process proved
earlier, else by a search bounded in time. What a search proves is kept in
memory, never written to the file being served. One search runs at a time per
process; a second request meanwhile is told the server is busy.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from tablebase.errors import TablebaseError
from tablebase.games.base import Game
from tablebase.games.compiled_search import CompiledSearch
from tablebase.probes import build_probe, ranked_moves
from tablebase.query import Tablebase, probe_else_prove
from tablebase.results import MoveValue, Probe

if TYPE_CHECKING:
    from tablebase.solve.search import SearchSession

#: Longest search a request may ask for, in seconds.
MAX_SECONDS = 30.0
#: Proved positions kept in memory (canonical states, all variants); the store is emptied when full.
MAX_POSITIONS = 2_000_000

class NotProvedError(TablebaseError):
    """The search did not prove the position within its time limit."""

    kind = "not_proved"


class BusyError(TablebaseError):
    """Another search is running in this server process."""

    kind = "busy"


class Analysis:
    """Known and newly proved values of positions, for one server process.

    ``prover(game, state, seconds)`` returns ``(proved, positions)``:
    whether the position and each of its children were proved, and the
    canonical states proved with their ``(outcome, distance)``; the default
    is :func:`tablebase.solve.search.prove`.
    """

    def __init__(
        self,
        tb: Tablebase,
        max_seconds: float = MAX_SECONDS,
        max_positions: int = MAX_POSITIONS,
        prover: Callable[[Game, int, float], tuple[bool, dict[int, tuple[str, int | None]]]] | None = None,
    ):
        self.tb = tb
        self.max_seconds = max_seconds
        self.max_positions = max_positions
        self.prover = prover or search_positions
        self._proved: dict[str, dict[int, tuple[str, int | None]]] = {}
        self._count = 0
        self._running = threading.Lock()
        self._store = threading.Lock()

    def known(self, game: Game, state: int, search: bool = False) -> Probe | None:
        """The probe of ``state`` from the tablebase file or from earlier searches; ``None`` if unknown
        (:func:`~tablebase.query.probe_else_prove`). ``search``: the moves of a position the file holds
        with its value only are proved now, for at most :data:`~tablebase.variant.PROBE_BUDGET` seconds."""
        return probe_else_prove(self.tb, game, state, lambda state: self._from_memory(game, state), search=search)

    def _value(self, game: Game, state: int) -> tuple[str, int | None] | None:
        result = game.outcome(state)
        if result is not None:
            return result, 0
        return self._proved.get(game.name, {}).get(game.canonical(state)[0])

    def _from_memory(self, game: Game, state: int) -> Probe | None:
        with self._store:
            value = self._value(game, state)
            if value is None:
                return None
            children = game.children(state)
            values = [self._value(game, child) for _, child in children]
        if any(v is None for v in values):
            return None
        return build_probe(game, game.name, state, value, not children, [(m, v) for (m, _), v in zip(children, values)])

    def so_far(self, game: Game, state: int) -> tuple[tuple[str, int | None] | None, tuple[MoveValue, ...]]:
        """What this process proved of ``state`` and of the positions its moves lead to: the value of
        ``state`` (``None`` while unproved) and its moves best first, those unproved last with
        outcome ``None``."""
        with self._store:
            value = self._value(game, state)
            children = [(move, self._value(game, child)) for move, child in game.children(state)]
        return value, ranked_moves(game, state, children)

    def remember(self, game: Game, positions: dict[int, tuple[str, int | None]]) -> None:
        """Keep proved ``(outcome, distance)`` of canonical states of ``game`` (all are dropped
        first when they would exceed ``max_positions``)."""
        if not positions:
            return
        with self._store:
            if self._count + len(positions) > self.max_positions:
                self._proved.clear()
                self._count = 0
            table = self._proved.setdefault(game.name, {})
            before = len(table)
            table.update(positions)
            self._count += len(table) - before

    def limit(self, time_limit: float | None) -> float:
        """The search time a request gets: ``time_limit`` capped at :attr:`max_seconds`."""
        return self.max_seconds if time_limit is None else min(time_limit, self.max_seconds)

    def solve(self, game: Game, state: int, time_limit: float) -> Probe:
        """Prove ``state`` and each of its moves within ``time_limit`` seconds (already capped).

        Raises :class:`BusyError` when another search runs and
        :class:`NotProvedError` when the time runs out; call :meth:`known` first.
        """
        shown = game.format_position(state)
        if time_limit <= 0:
            raise NotProvedError(f"position {shown!r} of {game.name} is not proved yet; solve it with a time limit")
        if not self._running.acquire(blocking=False):
            raise BusyError(
                f"another position is being solved; try again in a moment (searches last at most {self.max_seconds:g} s)"
            )
        try:
            proved, positions = self.prover(game, state, time_limit)
        finally:
            self._running.release()
        self.remember(game, positions)
        probe = self._from_memory(game, state) if proved else None
        if probe is None:
            raise NotProvedError(
                f"position {shown!r} of {game.name} not proved within {time_limit:g} s;"
                " try a later position or a longer time limit"
            )
        return probe


def load_rules() -> list[Game]:
    """Every registered variant's rules, loaded now (once a process) so that no request waits for them."""
    from tablebase import games

    return [games.get(name) for name in games.names()]


def search_positions(
    game: Game, state: int, seconds: float, session: SearchSession | None = None
) -> tuple[bool, dict[int, tuple[str, int | None]]]:
    """Whether a search of ``seconds`` proved ``state`` and each of its children, and the canonical
    states it proved with their ``(outcome, distance)`` (none when it did not); ``session``: the
    searches of ``game`` this one goes on from (:class:`~tablebase.solve.search.SearchSession`)."""
    from tablebase.solve.search import SearchSession

    result = (session or SearchSession(game)).prove(state, seconds, children=True)
    return result.complete, result.positions if result.complete else {}


class Searches:
    """:func:`search_positions` that goes on from the compiled table of the game searched last,
    where the game's table is reusable, so each search of a game starts from what the earlier
    ones proved (a :class:`~tablebase.solve.search.SearchSession` a game). A new table takes at
    most ``memory`` bytes and starts with the entries a tablebase kept for its game in the file
    ``kept(name)`` names, if that exists and can be read
    (:meth:`~tablebase.query.Tablebase.kept_table_path`); nothing is written back. A search of
    another game whose table may be reusable drops the table and starts one of its own."""

    def __init__(self, memory: int | None = None, kept: Callable[[str], os.PathLike[str] | None] | None = None):
        self.memory = memory
        self.kept = kept
        self._sessions: dict[str, SearchSession] = {}

    @property
    def game(self) -> str | None:
        """The name of the game whose table is kept, if any."""
        return next((name for name, session in self._sessions.items() if session.table is not None), None)

    @property
    def table(self) -> CompiledSearch | None:
        """The table kept, if any."""
        return next((session.table for session in self._sessions.values() if session.table is not None), None)

    def __call__(self, game: Game, state: int, seconds: float) -> tuple[bool, dict[int, tuple[str, int | None]]]:
        return search_positions(game, state, seconds, self._session(game))

    def _session(self, game: Game) -> SearchSession:
        """The searches of ``game``; unless its table is known not to be reusable, the other
        games' tables go before its own is made."""
        from tablebase.solve.search import SearchSession

        session = self._sessions.get(game.name)
        if session is None:
            kept = self.kept(game.name) if self.kept is not None else None
            session = self._sessions[game.name] = SearchSession(game, kept=kept, memory=self.memory, strict=False)
        if session.reusable is not False:
            for other in self._sessions.values():
                if other is not session:
                    other.close()
        return session

    def prepare(self, game: Game) -> bool:
        """Make the table of ``game`` and load its compiled search
        (:meth:`~tablebase.solve.search.SearchSession.warm_up`) before a request waits for it;
        ``False`` (and nothing more done) where the game's table is not reusable."""
        return self._session(game).warm_up()


__all__ = ["MAX_SECONDS", "Analysis", "BusyError", "NotProvedError", "Searches", "load_rules", "search_positions"]
