"""What a game's compiled search gives the generic search of :mod:`tablebase.solve.search`
(:meth:`tablebase.games.base.Game.outcome_table`): a table of proved bounds, the negamax that
fills it, and the capabilities a game may add, each one named here with its default."""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from typing import Any, Protocol


class Bounds(Protocol):
    """A table of proved bounds ``{state: (lo, hi, best move index)}`` as a search reads and
    writes it (a ``dict`` is one): entries exact whichever search stored them; a compiled table
    may forget entries to make room."""

    def get(self, state: int, /) -> tuple[int, int, int] | None: ...

    def __setitem__(self, state: int, entry: tuple[int, int, int], /) -> None: ...

    def __len__(self) -> int: ...


class CompiledSearch(ABC):
    """A game's compiled win/draw/loss search and its table of bounds (:class:`Bounds`), which
    :func:`tablebase.solve.search.prove` runs in node budgets between looks at the clock.

    Every search has :meth:`search`; the optional capabilities are off by default, and a
    search that has one says so with its flag (:attr:`labels`, :attr:`races`,
    :attr:`proof_numbers`, :attr:`keeps`, :attr:`distances`) and overrides its methods.
    """

    #: Whether the table holds only facts exact for every position, whichever search stored
    #: them: a batch of proofs may share it (:class:`tablebase.solve.search.SearchSession`).
    reusable: bool = False
    #: The threads the search runs on; a search on more than one needs no helper process.
    threads: int = 1
    #: Nodes searched so far by :meth:`label_all`.
    nodes: int = 0
    #: Whether :meth:`label_all` proves outcome and distance itself (the generic outcome,
    #: distance and draw-length steps are then not run).
    labels: bool = False
    #: Whether :meth:`rival` gives a table whose search orders moves otherwise, for a second
    #: process to race this one with, and :meth:`export` and :meth:`adopt` pass entries between them.
    races: bool = False
    #: Whether :meth:`dfpn` proves a bound by proof-number search (the outcome step then asks it).
    proof_numbers: bool = False
    #: Whether :meth:`save` and :meth:`load` keep the most valuable entries in a file between processes.
    keeps: bool = False
    #: The bounds of :meth:`distance_search`, or ``None``: no compiled distance search (the
    #: generic one runs, with a table of its own).
    distances: Bounds | None = None

    @abstractmethod
    def get(self, state: int, /) -> tuple[int, int, int] | None:
        """The bounds of ``state`` in the table, ``None`` if it holds none."""

    @abstractmethod
    def __setitem__(self, state: int, entry: tuple[int, int, int], /) -> None:
        """Enter proved bounds of ``state``."""

    @abstractmethod
    def __len__(self) -> int:
        """Entries the table holds."""

    @abstractmethod
    def search(self, state: int, alpha: int, beta: int, budget: int) -> tuple[int | None, int]:
        """``(fail-soft negamax value in -1..1, nodes)`` of a non-terminal ``state``; value ``None``
        when ``budget`` nodes did not suffice (what was proved stays in the table)."""

    def label_all(
        self, states: list[int], budget: int | None = None, deadline: float | None = None
    ) -> list[tuple[str, int] | None]:
        """``(outcome, distance)`` of each non-terminal state of ``states`` for its side to move,
        proved together; ``None`` for those ``budget`` nodes or the time to ``deadline``
        (:func:`time.perf_counter` seconds) did not reach. Only where :attr:`labels`."""
        raise NotImplementedError(f"{type(self).__name__} does not label positions")

    def rival(self) -> CompiledSearch:
        """An empty table of the same variant whose search orders moves otherwise. Only where :attr:`races`."""
        raise NotImplementedError(f"{type(self).__name__} has no rival")

    def export(self, states: list[int] | None = None) -> Any:
        """What :meth:`adopt` of a table of the same variant takes: the entries (of ``states``
        only, if given), an opaque value a pipe can carry. Only where :attr:`races`."""
        raise NotImplementedError(f"{type(self).__name__} does not export its entries")

    def adopt(self, exported: Any) -> None:
        """Add the entries another table exported (:meth:`export`) to this one's. Only where :attr:`races`."""
        raise NotImplementedError(f"{type(self).__name__} does not adopt entries")

    def dfpn(self, state: int, target: int, budget: int) -> tuple[bool | None, int]:
        """``(whether the value of the non-terminal ``state`` for its mover is at least ``target``,
        nodes)`` by proof-number search; ``None`` when ``budget`` nodes did not suffice. Only
        where :attr:`proof_numbers`."""
        raise NotImplementedError(f"{type(self).__name__} has no proof-number search")

    def distance_search(self, state: int, alpha: int, beta: int, budget: int) -> tuple[int | None, int]:
        """``(fail-soft distance score, nodes)`` of a non-terminal ``state`` (the scores of
        :mod:`tablebase.scores`), its bounds in :attr:`distances`; score ``None`` when ``budget``
        nodes did not suffice. Only where :attr:`distances` is not ``None``."""
        raise NotImplementedError(f"{type(self).__name__} has no compiled distance search")

    def save(self, path: str | os.PathLike[str]) -> int:
        """Write the most valuable entries to ``path`` (replaced whole); returns how many. Only where :attr:`keeps`."""
        raise NotImplementedError(f"{type(self).__name__} cannot be kept")

    def load(self, path: str | os.PathLike[str]) -> int:
        """Add the entries :meth:`save` wrote to ``path`` to the table; returns how many; a
        :class:`ValueError` naming ``path`` when it holds no such table. Only where :attr:`keeps`."""
        raise NotImplementedError(f"{type(self).__name__} cannot be kept")


__all__ = ["Bounds", "CompiledSearch"]
