"""One built variant of a tablebase file: probes, lines, predecessors, stats, rows.

:class:`VariantTable` objects come from :meth:`tablebase.query.Tablebase.variant`;
they read through the file's :class:`~tablebase.reader.Reader` and the
variant's storage (:mod:`tablebase.store.storage`), and return the
types of :mod:`tablebase.results`.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
import weakref
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Iterator, NamedTuple, NoReturn, Protocol, TypeVar, cast

from tablebase.errors import DatabaseError, IllegalMoveError, UnreachablePositionError, VariantNotBuiltError
from tablebase.games.base import Game
from tablebase.games.notation import parse_position
from tablebase.outcome import Outcome
from tablebase.probes import ChildValue, build_probe
from tablebase.reader import TablebaseFile, read_variant
from tablebase.results import Line, MoveValue, PlyCount, Predecessor, Predecessors, Probe, Stats
from tablebase.store.storage import Entry, Row, Storage, open_storage
from tablebase.store.tier_blocks import older_tiers

if TYPE_CHECKING:
    from tablebase.results import StoredKey, VariantInfo
    from tablebase.games.tiering import TierSearch

#: Seconds a probe spends proving the moves of a position stored by ``solve`` with its value only.
PROBE_BUDGET = 2.0
_T = TypeVar("_T")


class OpeningTable(Protocol):
    """What a :class:`VariantTable` reads of a shipped opening table (:class:`tablebase.opening.ShippedTable` is one)."""

    def value(self, state: int) -> tuple[str, int | None, bool] | None: ...

    def probe(self, state: int, name: str) -> Probe | None: ...


#: The storage object of each build of a variant that some thread of this process reads.
_STORAGES: weakref.WeakValueDictionary[tuple[Any, ...], Storage] = weakref.WeakValueDictionary()
_STORAGES_LOCK = threading.Lock()


def _forget_storages() -> None:
    """In a child process after fork: its storage objects are its own (a parent thread may hold a cache's lock)."""
    global _STORAGES_LOCK
    _STORAGES.clear()
    _STORAGES_LOCK = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_storages)


class _Bound(NamedTuple):
    variant_id: int
    info: VariantInfo
    storage: Storage


class VariantTable:
    """Queries on one built variant.

    ``shipped`` is the opening table the game ships (:func:`tablebase.opening.shipped`), or
    ``None``: a probe of a position the file lacks answers from it when it has the position,
    also while the file holds nothing of the variant. Every query only reads.
    """

    def __init__(self, tablebase: TablebaseFile, game: Game, name: str, shipped: OpeningTable | None = None):
        self.tablebase = tablebase
        self.game = game
        self._name = name
        self.shipped = shipped

    def _bound(self) -> _Bound:
        """The variant's row and storage as this thread's current snapshot of the file has them.

        Raises :class:`VariantNotBuiltError` when the file (no longer) has the variant.
        """
        found = self.tablebase.reader.cached(self._name)
        if found is not None:
            return found  # type: ignore[no-any-return]
        with self.tablebase.snapshot() as conn:
            cache = self.tablebase.reader.cache()
            found = cache.get(self._name)
            if found is None:
                row = read_variant(conn, self._name)
                if row is None:
                    path = self.tablebase.path
                    how = f"build {self._name}" if self.game.enumerable else f"solve {self._name} POSITION"
                    raise VariantNotBuiltError(
                        f"variant {self._name!r} is not built in {str(path)!r}; run: tablebase {how} --db {path}"
                    )
                variant_id, info = row
                older = older_tiers(self.game, info.storage, info.plies)
                if older is not None:
                    raise DatabaseError(older)
                found = cache[self._name] = _Bound(variant_id, info, self._storage(variant_id, info))
            return found  # type: ignore[no-any-return]

    def _bound_or_shipped(self) -> _Bound | None:
        """:meth:`_bound`, or ``None`` when the file lacks the variant and a shipped opening table answers for it."""
        try:
            return self._bound()
        except VariantNotBuiltError:
            if self.shipped is None:
                raise
            return None

    def _storage(self, variant_id: int, info: VariantInfo) -> Storage:
        """The storage of this build of the variant, one object for every thread that reads it
        (its caches, such as decoded blocks, are shared), a new one for a new build."""
        build = (str(self.tablebase.path), variant_id, info.storage, info.built_at, info.states, info.moves)
        with _STORAGES_LOCK:
            storage = _STORAGES.get(build)
            if storage is None:
                storage = _STORAGES[build] = open_storage(info.storage, self.game, variant_id, info.symmetry)
        return storage

    @property
    def name(self) -> str:
        return self._name

    @property
    def variant_id(self) -> int:
        """The id of the variant's row."""
        return self._bound().variant_id

    @property
    def info(self) -> VariantInfo:
        """The variant's row: rules, counts, result of the start, how it is stored."""
        return self._bound().info

    @property
    def complete(self) -> bool:
        """Whether the file holds the whole variant (built); ``False`` for one solved position by
        position, or answered from its shipped opening table alone."""
        bound = self._bound_or_shipped()
        return bound is not None and bound.info.complete

    def _symmetry(self) -> bool:
        """Whether positions are stored by symmetry class (so are those of a shipped opening table)."""
        bound = self._bound_or_shipped()
        return bound is None or bound.info.symmetry

    @property
    def build_id(self) -> str:
        """A short identity of what the file holds of the variant: a rebuild gives a new one, and so
        does a ``solve`` that stores more positions of a variant explored by search."""
        bound = self._bound()
        info = bound.info
        identity = (
            bound.variant_id,
            info.built_at,
            info.storage,
            info.states,
            info.moves,
            info.outcome,
            info.distance,
            info.build_seconds,
            info.builder_version,
        )
        return hashlib.blake2b(repr(identity).encode(), digest_size=9).hexdigest()

    @property
    def storage(self) -> Storage:
        """How the variant's positions are stored (the storage named in its row)."""
        return self._bound().storage

    def tier_search(self) -> TierSearch | None:
        """A search of the positions the variant's tiers do not hold (Morris: the placement phase),
        reading the stored tiers at its leaves; ``None`` for a variant not built tier by tier."""
        bound = self._bound_or_shipped()
        return None if bound is None else bound.storage.search(self.snapshot)

    def __repr__(self) -> str:
        return f"<VariantTable {self.name!r} in {str(self.tablebase.path)!r}>"

    def snapshot(self) -> AbstractContextManager[sqlite3.Connection]:
        """A read transaction on the file: every read through the connection it yields sees one state of it."""
        return self.tablebase.snapshot()


    # -- positions -----------------------------------------------------------

    def parse(self, position: str | None) -> int:
        """The state of a position string (``None``: the start; an empty string is malformed)."""
        if position is None:
            return self.game.initial_state()
        return parse_position(self.game, position)

    def key(self, position: str | None = None) -> StoredKey:
        """The key ``position`` is stored under and the symmetry between them (see :mod:`tablebase.keys`)."""
        from tablebase.keys import stored_key

        return stored_key(self.game, self.parse(position), self._symmetry())

    def canonical(self, state: int) -> tuple[int, int]:
        """The stored representative of ``state`` and the symmetry that maps ``state`` onto it."""
        if self._symmetry():
            return self.game.canonical(state)
        return state, 0

    def _oriented(self, bound: _Bound, state: int) -> tuple[int, int]:
        """The form of ``state`` the storage looks up and the symmetry that maps ``state`` onto it
        (``state`` and 0 where the storage takes every orientation)."""
        if bound.info.symmetry and not bound.storage.any_orientation:
            return self.game.canonical(state)
        return state, 0

    def _lookup(
        self, conn: sqlite3.Connection, bound: _Bound, state: int, position: str | None
    ) -> tuple[Entry, int]:
        """The stored entry of ``state``'s class and the symmetry of :meth:`_oriented`."""
        canon, sym = self._oriented(bound, state)
        entry = bound.storage.lookup(conn, canon)
        if entry is None:
            self._not_found(state, position)
        return entry, sym

    def _not_found(self, state: int, position: str | None) -> NoReturn:
        shown = self.game.format_position(state) if position is None else position
        if not self.complete:
            raise UnreachablePositionError(
                f"position {shown!r} of {self.name} is not solved; run: tablebase solve {self.name} '{shown}'"
            )
        raise UnreachablePositionError(f"position {shown!r} is not reachable from the start of {self.name}")

    def probe(self, position: str | None = None, *, search: bool = False) -> Probe:
        """Outcome and distance of ``position`` and every legal move's value, best first.

        A position the file lacks answers from the shipped opening table when that has it. A
        position that ``solve`` stored with its value only lists no moves; with ``search``, its
        moves are proved now (see :meth:`_proved_children`), and nothing is stored.
        """
        game = self.game
        state = self.parse(position)
        with self.snapshot() as conn:
            bound = self._bound_or_shipped()
            if bound is None:
                entry, found, sym = None, None, 0
            else:
                canon, sym = self._oriented(bound, state)
                entry, found = bound.storage.probe(conn, canon)
        complete = bound is not None and bound.info.complete
        if entry is None or not (found or entry.terminal or complete):
            probe = self._shipped_probe(state, search)
            if probe is not None and (entry is None or probe.moves):
                return probe
            if entry is None:
                self._not_found(state, position)
        children: list[tuple[int, ChildValue]] = []
        if found:
            inverse = game.inverse_symmetry(sym)
            missing = []
            for code, child in found:
                if sym:
                    code = game.transform_move(code, inverse)
                if child is None:
                    missing.append(code)
                else:
                    children.append((code, child))
            if missing:
                legal = game.legal_moves(state)
                first = min(missing, key=lambda code: legal.index(code) if code in legal else len(legal))
                raise DatabaseError(
                    f"{self.name} in {str(self.tablebase.path)!r} lacks the position after"
                    f" {game.format_move(first)!r}; rebuild the variant"
                )
        elif search and not entry.terminal and not complete:
            children = self._proved_children(state, entry.outcome, entry.distance)
        return build_probe(game, self.name, state, (entry.outcome, entry.distance), entry.terminal, children)

    def stored_with_moves(self, position: str | None = None) -> bool:
        """Whether the file holds ``position`` with its moves (not only a shipped opening table)."""
        state = self.parse(position)
        with self.snapshot() as conn:
            bound = self._bound_or_shipped()
            if bound is None:
                return False
            _, found = bound.storage.probe(conn, self._oriented(bound, state)[0])
        return bool(found)

    def value(self, position: str | None = None) -> tuple[Outcome, int | None]:
        """``(outcome, distance)`` of ``position`` for the side to move, as :meth:`probe` gives them,
        without its moves (one lookup)."""
        state = self.parse(position)
        with self.snapshot() as conn:
            bound = self._bound_or_shipped()
            entry = None if bound is None else bound.storage.lookup(conn, self._oriented(bound, state)[0])
        if entry is not None:
            return entry.outcome, entry.distance
        shipped = None if self.shipped is None else self.shipped.value(self.game.canonical(state)[0])
        if shipped is None:
            self._not_found(state, position)
        return cast(Outcome, shipped[0]), shipped[1]

    def _shipped_probe(self, state: int, search: bool) -> Probe | None:
        """The probe of ``state`` from the shipped opening table, ``None`` when it lacks the
        position; a position it has without its moves lists none (``search``: proved now, as
        :meth:`probe` does)."""
        probe = None if self.shipped is None else self.shipped.probe(state, self.name)
        if probe is None or probe.terminal or probe.moves or not search:
            return probe
        children = self._proved_children(state, probe.outcome, probe.distance)
        return build_probe(self.game, self.name, state, (probe.outcome, probe.distance), False, children)

    def _proved_children(self, state: int, outcome: str, distance: int | None) -> list[tuple[int, ChildValue]]:
        """Every move of a position known with its value only (a child of a solved position) and
        the value of the position it leads to: the values stored, the rest proved now, for at most
        :data:`PROBE_BUDGET` seconds (``None`` for a move still unproved then)."""
        from tablebase.solve.search import prove

        game = self.game
        children = game.children(state)
        with self.snapshot() as conn:
            bound = self._bound_or_shipped()
            if bound is None:
                values: list[tuple[str, int | None] | None] = [None] * len(children)
            else:
                canon = [game.canonical(c)[0] if bound.info.symmetry else c for _, c in children]
                values = list(bound.storage.values(conn, canon))
        found: dict[int, tuple[str, int | None]] = {m: v for (m, _), v in zip(children, values) if v is not None}
        if len(found) < len(children):
            known: dict[int, tuple[str, int | None]] = {
                child: v for (_, child), v in zip(children, values) if v is not None
            }
            known[state] = (outcome, distance)
            found.update(prove(game, state, PROBE_BUDGET, children=True, known=known).moves)
        return [(m, found.get(m)) for m, _ in children]

    def _stored_below(self, state: int, seconds: float | None) -> dict[int, tuple[str, int | None]]:
        """Stored labels of positions at least as far into the game as ``state``, nearest first,
        read for at most ``seconds`` (to seed a search from ``state``)."""
        from tablebase.store.proved import read_proved

        with self.snapshot() as conn:
            return read_proved(conn, self.game, self._bound().variant_id, state, seconds)

    def get_probe(
        self, position: str | None = None, default: _T = None, *, search: bool = False  # type: ignore[assignment]
    ) -> Probe | _T:
        """Like :meth:`probe`, but ``default`` when the position is not in the tablebase."""
        try:
            return self.probe(position, search=search)
        except UnreachablePositionError:
            return default

    def best_move(self, position: str | None = None, *, search: bool = False) -> MoveValue | None:
        """The best move (fastest win, else a draw, else the slowest loss); ``None`` at the end
        (``search`` as in :meth:`probe`)."""
        return self.probe(position, search=search).best_move

    def play(self, position: str | None, move: str) -> str:
        """The position after ``move`` (checked against the rules)."""
        state = self.parse(position)
        if self.game.outcome(state) is not None:
            raise IllegalMoveError(f"illegal move {move!r}: the game is over")
        return self.game.format_position(self.game.apply(state, self.game.parse_move(state, move)))

    def line(self, position: str | None = None, max_plies: int = 1000, *, search: bool = False) -> Line:
        """The perfect line from ``position`` to the end (or to the first repetition; ``search`` as in
        :meth:`probe`, for each position of the line)."""
        first = self.probe(position, search=search)
        moves: list[str] = []
        positions: list[str] = []
        seen = {first.position}
        probe = first
        repeats = False
        while probe.best_move is not None and probe.best_move.outcome is not None and len(moves) < max_plies:
            best = probe.best_move
            moves.append(best.move)
            positions.append(best.position)
            if best.position in seen:
                repeats = True
                break
            seen.add(best.position)
            probe = self.probe(best.position, search=search)
        return Line(self.name, first.position, first.outcome, tuple(moves), tuple(positions), repeats)

    def predecessors(self, position: str | None = None) -> Predecessors:
        """Every stored (position, move) one move before ``position``, in the user's orientation.

        Read from the moves table where the variant stores its moves, else
        derived from the rules (:meth:`~tablebase.games.base.Game.unmoves`)
        and kept when the earlier position is stored. Only a built variant
        knows them: one solved position by position holds some positions and
        not their parents, and raises :class:`VariantNotBuiltError`.
        """
        game = self.game
        state = self.parse(position)
        with self.snapshot() as conn:
            bound = self._bound()
            if not bound.info.complete:
                raise VariantNotBuiltError(
                    f"predecessors are not known in {self.name}: it is solved position by position"
                    " (tablebase solve), which stores no parents"
                )
            entry, _ = self._lookup(conn, bound, state, position)
            found = bound.storage.parents(conn, state, entry)
        pairs = {(game.format_position(parent), game.format_move(code)) for parent, code in found}
        return Predecessors(self.name, game.format_position(state), [Predecessor(p, m) for p, m in sorted(pairs)])

    def stats(self) -> Stats:
        """Positions and symmetry classes per ply with the positions won, drawn and lost there for the
        side to move, and totals of the stored states' outcomes and of terminal states."""
        with self.snapshot() as conn:
            rows = self.storage.plies(conn)
        name = self.game.tier_name
        plies = tuple(PlyCount(r[0], r[1], r[2], _ply_outcomes(r[7], r[8], r[9]), name(r[0])) for r in rows)
        outcomes = {"win": sum(r[3] for r in rows), "loss": sum(r[4] for r in rows), "draw": sum(r[5] for r in rows)}
        terminal = sum(r[6] for r in rows)
        return Stats(self.name, plies, outcomes, terminal)

    def dump(self) -> tuple[list[Row], list[tuple[int, str, int]]]:
        """Every stored state as (ref, key, to_move, terminal, outcome, distance) and every
        stored move as (from ref, move, to ref), read in one snapshot."""
        with self.snapshot() as conn:
            return list(self.storage.rows(conn)), list(self.storage.move_rows(conn))

    def rows(self) -> Iterator[Row]:
        """Every stored state as (ref, key, to_move, terminal, outcome, distance)."""
        with self.snapshot() as conn:
            rows = list(self.storage.rows(conn))
        yield from rows


__all__ = ["PROBE_BUDGET", "OpeningTable", "VariantTable"]


def _ply_outcomes(win: int | None, loss: int | None, draw: int | None) -> dict[str, int] | None:
    """The per-ply outcome counts of a ``plies`` row, ``None`` when the row has none."""
    if win is None or loss is None or draw is None:
        return None
    return {"win": win, "draw": draw, "loss": loss}
