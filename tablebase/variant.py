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
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, NamedTuple, NoReturn, Protocol, TypeVar, cast

from tablebase.errors import DatabaseError, IllegalMoveError, UnreachablePositionError, VariantNotBuiltError
from tablebase.games.base import Game
from tablebase.games.notation import parse_position
from tablebase.outcome import Outcome, move_value, rank
from tablebase.reader import Reader, read_variant
from tablebase.results import Line, MoveValue, PlyCount, Predecessor, Predecessors, Probe, Stats
from tablebase.store.storage import Entry, Row, Storage, open_storage

if TYPE_CHECKING:
    from tablebase.results import StoredKey, VariantInfo

#: Seconds a probe spends proving the moves of a position stored by ``solve`` with its value only.
PROBE_BUDGET = 2.0
_T = TypeVar("_T")


_RANKED: dict[tuple[str, int | None], tuple[tuple[int, float], Outcome, int | None]] = {}


def _ranked(child: tuple[str, int | None]) -> tuple[tuple[int, float], Outcome, int | None]:
    """``(sort key, outcome, distance)`` of a move from the stored value of the position it leads to."""
    found = _RANKED.get(child)
    if found is None:
        value, d = move_value(*child)
        found = _RANKED[child] = (rank(value, d), value, d)
    return found


class VariantFile(Protocol):
    """What a :class:`VariantTable` reads of its file (:class:`tablebase.query.Tablebase` is one)."""

    path: Path
    _read: Reader

    def _snapshot(self) -> AbstractContextManager[sqlite3.Connection]: ...


class OpeningTable(Protocol):
    """What a :class:`VariantTable` reads of a shipped opening table (:class:`tablebase.opening.ShippedTable` is one)."""

    def value(self, state: int) -> tuple[str, int | None, bool] | None: ...

    def moves(
        self, state: int, positions: dict[int, tuple[str, int | None]], edges: list[tuple[int, int, int]]
    ) -> None: ...


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
    ``None``: a probe of a position the file lacks answers from it when it has the position.
    """

    def __init__(self, tablebase: VariantFile, game: Game, name: str, shipped: OpeningTable | None = None):
        self.tablebase = tablebase
        self.game = game
        self._name = name
        self.shipped = shipped

    def _bound(self) -> _Bound:
        """The variant's row and storage as this thread's current snapshot of the file has them.

        Raises :class:`VariantNotBuiltError` when the file (no longer) has the variant.
        """
        found = self.tablebase._read.cached(self._name)
        if found is not None:
            return found  # type: ignore[no-any-return]
        with self.tablebase._snapshot() as conn:
            cache = self.tablebase._read.cache()
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
                found = cache[self._name] = _Bound(variant_id, info, self._storage(variant_id, info))
            return found  # type: ignore[no-any-return]

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

    def __repr__(self) -> str:
        return f"<VariantTable {self.name!r} in {str(self.tablebase.path)!r}>"

    def snapshot(self) -> AbstractContextManager[sqlite3.Connection]:
        """A read transaction on the file: every read through the connection it yields sees one state of it."""
        return self.tablebase._snapshot()


    # -- positions -----------------------------------------------------------

    def parse(self, position: str | None) -> int:
        """The state of a position string (``None``: the start; an empty string is malformed)."""
        if position is None:
            return self.game.initial_state()
        return parse_position(self.game, position)

    def key(self, position: str | None = None) -> StoredKey:
        """The key ``position`` is stored under and the symmetry between them (see :mod:`tablebase.keys`)."""
        from tablebase.keys import stored_key

        return stored_key(self.game, self.parse(position), self.info.symmetry)

    def canonical(self, state: int) -> tuple[int, int]:
        """The stored representative of ``state`` and the symmetry that maps ``state`` onto it."""
        if self.info.symmetry:
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
        if not self.info.complete:
            raise UnreachablePositionError(
                f"position {shown!r} of {self.name} is not solved; run: tablebase solve {self.name} '{shown}'"
            )
        raise UnreachablePositionError(f"position {shown!r} is not reachable from the start of {self.name}")

    def probe(self, position: str | None = None, *, search: bool = True) -> Probe:
        """Outcome and distance of ``position`` and every legal move's value, best first.

        A position that ``solve`` stored with its value only has its moves
        proved now (see :meth:`_prove_moves`); ``search=False`` lists no moves
        for it instead.
        """
        game = self.game
        state = self.parse(position)
        with self.snapshot() as conn:
            bound = self._bound()
            canon, sym = self._oriented(bound, state)
            entry, found = bound.storage.probe(conn, canon)
        if entry is None or not (found or entry.terminal or bound.info.complete):
            probe = self._shipped_probe(state, search)
            if probe is not None and (entry is None or probe.moves):
                return probe
            if entry is None:
                self._not_found(state, position)
        moves: tuple[MoveValue, ...] = ()
        if not found and not entry.terminal and not bound.info.complete and search:
            moves = self._prove_moves(state, entry.outcome, entry.distance)
        if found:
            inverse = game.inverse_symmetry(sym)
            legal = game.legal_moves(state)
            order = dict(zip(legal, range(len(legal))))
            ranked = []
            missing = []
            for code, child in found:
                if sym:
                    code = game.transform_move(code, inverse)
                if child is None:
                    missing.append(code)
                    continue
                # the table first, without a call a move (a probe of mnk-5-4-4 ranks up to 20)
                key, value, d = _RANKED.get(child) or _ranked(child)
                # moves of equal value keep the rules' order
                ranked.append((key, order.get(code, len(order)), code, value, d))
            if missing:
                first = min(missing, key=lambda code: order.get(code, len(order)))
                raise DatabaseError(
                    f"{self.name} in {str(self.tablebase.path)!r} lacks the position after"
                    f" {game.format_move(first)!r}; rebuild the variant"
                )
            ranked.sort()
            positions = game.format_children(state, [item[2] for item in ranked])
            # a list, not a generator: 3 % of the instructions of an mnk-5-4-4 probe
            moves = tuple(
                [
                    MoveValue(game.format_move(code), child, value, d)
                    for (_, _, code, value, d), child in zip(ranked, positions)
                ]
            )
        return Probe(
            variant=self.name,
            position=game.format_position(state),
            to_move=game.to_move(state),
            outcome=entry.outcome,
            distance=entry.distance,
            terminal=entry.terminal,
            moves=moves,
        )

    def stored_with_moves(self, position: str | None = None) -> bool:
        """Whether the file holds ``position`` with its moves (not only a shipped opening table)."""
        state = self.parse(position)
        with self.snapshot() as conn:
            bound = self._bound()
            _, found = bound.storage.probe(conn, self._oriented(bound, state)[0])
        return bool(found)

    def value(self, position: str | None = None) -> tuple[Outcome, int | None]:
        """``(outcome, distance)`` of ``position`` for the side to move, as :meth:`probe` gives them,
        without its moves (one lookup)."""
        state = self.parse(position)
        with self.snapshot() as conn:
            bound = self._bound()
            entry = bound.storage.lookup(conn, self._oriented(bound, state)[0])
        if entry is not None:
            return entry.outcome, entry.distance
        shipped = None if self.shipped is None else self.shipped.value(self.canonical(state)[0])
        if shipped is None:
            self._not_found(state, position)
        return cast(Outcome, shipped[0]), shipped[1]

    def _shipped_probe(self, state: int, search: bool) -> Probe | None:
        """The probe of ``state`` from the shipped opening table, ``None`` when it lacks the
        position; a position it has without its moves has them proved now, as :meth:`probe` does
        (``search=False``: none listed)."""
        shipped = self.shipped
        canon = self.canonical(state)[0]
        found = None if shipped is None else shipped.value(canon)
        if shipped is None or found is None:
            return None
        game = self.game
        outcome, distance, full = found
        terminal = game.outcome(state) is not None
        moves: tuple[MoveValue, ...] = ()
        if full and not terminal:
            positions: dict[int, tuple[str, int | None]] = {}
            shipped.moves(canon, positions, [])
            children = game.children(state)
            moves = self._ranked_moves(
                children, {m: positions[self.canonical(c)[0]] for m, c in children}
            )
        elif not terminal and search:
            moves = self._prove_moves(state, outcome, distance)
        return Probe(
            variant=self.name,
            position=game.format_position(state),
            to_move=game.to_move(state),
            outcome=cast(Outcome, outcome),
            distance=distance,
            terminal=terminal,
            moves=moves,
        )

    def _prove_moves(self, state: int, outcome: str, distance: int | None) -> tuple[MoveValue, ...]:
        """Every move of a position that ``solve`` stored with its value only (a child of a
        solved position): the values stored, the rest proved now, for at most
        :data:`PROBE_BUDGET` seconds; a move still unproved then has outcome ``None``."""
        from tablebase.solve.search import prove

        game = self.game
        children = game.children(state)
        with self.snapshot() as conn:
            bound = self._bound()
            canon = [game.canonical(c)[0] if bound.info.symmetry else c for _, c in children]
            values = bound.storage.values(conn, canon)
        found: dict[int, tuple[str, int | None]] = {m: v for (m, _), v in zip(children, values) if v is not None}
        if len(found) < len(children):
            known: dict[int, tuple[str, int | None]] = {
                child: v for (_, child), v in zip(children, values) if v is not None
            }
            known[state] = (outcome, distance)
            found.update(prove(game, state, PROBE_BUDGET, children=True, known=known).moves)
        return self._ranked_moves(children, found)

    def _ranked_moves(
        self, children: list[tuple[int, int]], found: dict[int, tuple[str, int | None]]
    ) -> tuple[MoveValue, ...]:
        """The moves of ``children`` (the rules' ``(move, child)`` of a position) best first, from
        the values of the positions they lead to (``found``, by move; a move missing has outcome ``None``)."""
        game = self.game
        order = {m: i for i, (m, _) in enumerate(children)}
        ranked: list[tuple[tuple[int, float], int, int, int, str | None, int | None]] = []
        for move, child in children:
            value = found.get(move)
            mover, d = (None, None) if value is None else move_value(*value)
            ranked.append((rank(mover, d), order[move], move, child, mover, d))
        ranked.sort(key=lambda item: (item[0], item[1]))
        return tuple(
            MoveValue(move=game.format_move(m), position=game.format_position(c), outcome=mover, distance=d)
            for _, _, m, c, mover, d in ranked
        )

    def _stored_below(self, state: int, seconds: float | None) -> dict[int, tuple[str, int | None]]:
        """Stored labels of positions at least as far into the game as ``state``, nearest first,
        read for at most ``seconds`` (to seed a search from ``state``)."""
        from tablebase.store.proved import read_proved

        with self.snapshot() as conn:
            return read_proved(conn, self.game, self._bound().variant_id, state, seconds)

    def get_probe(
        self, position: str | None = None, default: _T = None, *, search: bool = True  # type: ignore[assignment]
    ) -> Probe | _T:
        """Like :meth:`probe`, but ``default`` when the position is not in the tablebase."""
        try:
            return self.probe(position, search=search)
        except UnreachablePositionError:
            return default

    def best_move(self, position: str | None = None) -> MoveValue | None:
        """The best move (fastest win, else a draw, else the slowest loss); ``None`` at the end."""
        return self.probe(position).best_move

    def play(self, position: str | None, move: str) -> str:
        """The position after ``move`` (checked against the rules)."""
        state = self.parse(position)
        if self.game.outcome(state) is not None:
            raise IllegalMoveError(f"illegal move {move!r}: the game is over")
        return self.game.format_position(self.game.apply(state, self.game.parse_move(state, move)))

    def line(self, position: str | None = None, max_plies: int = 1000) -> Line:
        """The perfect line from ``position`` to the end (or to the first repetition)."""
        first = self.probe(position)
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
            probe = self.probe(best.position)
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
        plies = tuple(PlyCount(r[0], r[1], r[2], _ply_outcomes(r[7], r[8], r[9])) for r in rows)
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


__all__ = ["PROBE_BUDGET", "VariantFile", "VariantTable"]


def _ply_outcomes(win: int | None, loss: int | None, draw: int | None) -> dict[str, int] | None:
    """The per-ply outcome counts of a ``plies`` row, ``None`` when the row has none."""
    if win is None or loss is None or draw is None:
        return None
    return {"win": win, "draw": draw, "loss": loss}
