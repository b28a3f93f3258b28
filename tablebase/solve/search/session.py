"""Proofs of one game that go on from one another's compiled table: :class:`SearchSession`."""

from __future__ import annotations

import os
from pathlib import Path

from tablebase.errors import DatabaseError
from tablebase.games.base import Game
from tablebase.games.compiled_search import CompiledSearch
from tablebase.solve.search.driver import prove, warm_up
from tablebase.solve.search.result import SearchResult


class SearchSession:
    """Proofs of ``game`` (:func:`~tablebase.solve.search.prove`) that share one compiled table
    where the game's is reusable (:attr:`CompiledSearch.reusable`): the table is made by the
    first proof, at most ``memory`` bytes where the game sizes it, and goes on from one proof to
    the next; where the file ``kept`` exists, the table is made before the first proof and starts
    with the entries kept there, and :meth:`save` writes them back. A kept file that cannot be
    read raises :class:`~tablebase.errors.DatabaseError` naming it, or with ``strict=False``
    is passed over (the proofs go on without it)."""

    def __init__(
        self, game: Game, *, kept: str | os.PathLike[str] | None = None, memory: int | None = None, strict: bool = True
    ):
        self.game = game
        self.kept = None if kept is None else Path(kept)
        self.memory = memory
        self.strict = strict
        #: The table the next proof goes on with (``None``: none yet, or the game's is not reusable).
        self.table: CompiledSearch | None = None
        #: Whether the game's compiled table is reusable (``None``: not known before a table is made).
        self.reusable: bool | None = None
        self._opened = False
        #: Whether a proof searched since the table was made (else it holds nothing new to save).
        self._searched = False

    def open(self, state: int, seconds: float | None = None) -> CompiledSearch | None:
        """The table the next proof goes on with; at the first call, where the kept file exists,
        a new one for positions reached from ``state`` (a proof of ``seconds``) with its entries."""
        if not self._opened:
            if self.kept is not None and self.kept.exists():
                self._make(state, seconds)
                self._load(self.kept)
            self._opened = True
        return self.table

    def prove(
        self,
        state: int,
        time_limit: float | None = None,
        *,
        children: bool = False,
        line: bool = False,
        line_time_limit: float | None = None,
        known: dict[int, tuple[str, int | None]] | None = None,
        processes: int = 1,
    ) -> SearchResult:
        """:func:`~tablebase.solve.search.prove` of ``state`` (the options as there) going on with
        the table (:meth:`open`); the table it used is the next one's where it is reusable."""
        result = prove(
            self.game, state, time_limit, children=children, line=line, line_time_limit=line_time_limit, known=known,
            processes=processes, table=self.open(state, time_limit), memory=self.memory,
        )  # fmt: skip
        self._searched = self._searched or result.nodes > 0
        self._keep(result.table)
        return result

    def warm_up(self) -> bool:
        """Make the table, as large as for the start, with what the kept file holds, and load the
        game's compiled search (:func:`~tablebase.solve.search.warm_up`: compiled on first use), so
        the next proof waits for neither; ``False`` (nothing more done) where the game's compiled
        table is not reusable."""
        start = self.game.initial_state()
        if self.open(start) is None and self.reusable is None:
            self._make(start, None)
        if self.table is None:
            return False
        warm_up(self.game, self.table)
        return True

    def save(self) -> None:
        """Write the table's most valuable entries to the kept file, where there is one, the table
        can be kept (:attr:`CompiledSearch.keeps`) and a proof searched (a proof answered without
        a node leaves the kept file as it was)."""
        if self.kept is not None and self.table is not None and self.table.keeps and self._searched:
            self.table.save(self.kept)

    def close(self) -> None:
        """Let the table go, unsaved; a later proof starts again from the kept file."""
        self.table = None
        self._opened = False

    def _make(self, state: int, seconds: float | None) -> None:
        """A new table for positions reached from ``state``, kept where it is reusable."""
        self._keep(self.game.outcome_table(state, seconds, memory=self.memory))

    def _keep(self, table: CompiledSearch | None) -> None:
        self.reusable = table is not None and table.reusable
        self.table = table if self.reusable else None

    def _load(self, path: Path) -> None:
        """Add the entries kept in ``path`` to the table, where it can be kept."""
        if self.table is None or not self.table.keeps:
            return
        try:
            self.table.load(path)
        except ValueError as err:
            if self.strict:
                self.table = None
                raise DatabaseError(f"{err}; delete it to solve without it") from None


__all__ = ["SearchSession"]
