"""The front object: open a tablebase file, build variants, probe positions.

Example::

    import tablebase
    with tablebase.open("tablebase.db") as tb:
        ttt = tb.variant("tictactoe")
        r = ttt.probe("x.o/.x./...")
        r.outcome, r.distance, r.best_move.move
        ttt.line("x.o/.x./...").moves
        ttt.predecessors("x.o/.x./...")

Positions and moves are strings in the variant's notation, in the user's
orientation; lookups canonicalise them and map the stored moves back.
Queries only read, through :mod:`tablebase.reader`; what is stored where is
the business of the variant's storage layout (:mod:`tablebase.store.layouts`);
what a build does is planned in :mod:`tablebase.build`; the values returned
are the types of :mod:`tablebase.results`.
"""

from __future__ import annotations

import functools
import os
import sqlite3
import threading
import time
import weakref
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, NamedTuple, NoReturn, TypeVar

from tablebase import games
from tablebase.errors import (
    BuildError,
    DatabaseError,
    IllegalMoveError,
    TablebaseError,
    UnknownVariantError,
    UnreachablePositionError,
    VariantNotBuiltError,
)
from tablebase.games.base import Game, parse_position
from tablebase.outcome import move_value, rank
from tablebase.reader import Reader, check_file, database_errors, read_variant, read_variants
from tablebase.results import Line, MoveValue, PlyCount, Predecessor, Predecessors, Probe, SolveReport, Stats
from tablebase.store.layouts import Entry, Row, Storage, open_storage

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

    from tablebase.results import StoredKey, VariantInfo, VerifyReport

    from tablebase.solve import Progress

DEFAULT_DB = "tablebase.db"
#: Shares of the time left that ``solve`` gives to reading the stored values and to the search
#: (the rest is for writing).
SOLVE_READ_SHARE = 0.05
SOLVE_SEARCH_SHARE = 0.8
#: Seconds a probe spends proving the moves of a position stored by ``solve`` with its value only.
PROBE_BUDGET = 2.0
_T = TypeVar("_T")


_Method = TypeVar("_Method", bound=Callable[..., Any])


def _writes(method: _Method) -> _Method:
    """Run a writing method of :class:`Tablebase` alone among the threads sharing the object,
    with errors of the database layer raised as :class:`DatabaseError`."""

    @functools.wraps(method)
    def serialised(self: Tablebase, *args: Any, **kwargs: Any) -> Any:
        with self._writing, database_errors(self.path):
            return method(self, *args, **kwargs)

    return serialised  # type: ignore[return-value]


class Tablebase:
    """A tablebase file: the built variants, and building more.

    ``Tablebase(path)`` opens ``path`` (default ``tablebase.db``); an existing
    SQLAlchemy engine can be passed instead. Queries read through a read-only
    connection; :meth:`build` and :meth:`upgrade` write.
    """

    def __init__(self, path: str | os.PathLike[str] | None = None, *, engine: Engine | None = None):
        if engine is not None:
            self.path = Path(engine.url.database or ":memory:")
        else:
            self.path = Path(path if path is not None else DEFAULT_DB)
        self._engine = engine
        self._owns_engine = engine is None
        self._tables: dict[str, VariantTable] = {}
        self._read = Reader(self.path, engine)
        self._writing = threading.Lock()

    # -- connections ---------------------------------------------------------

    @property
    def engine(self) -> Engine:
        """The SQLAlchemy engine used for writing (created on first use)."""
        if self._engine is None:
            from tablebase.store.engine import make_engine

            self._engine = make_engine(self.path)
        return self._engine

    def _snapshot(self) -> AbstractContextManager[sqlite3.Connection]:
        """A read transaction: every query inside sees the same committed state of the file."""
        return self._read.snapshot()

    def close(self) -> None:
        """Close every connection (the object can be reopened by using it again)."""
        self._drop_reader()
        if self._engine is not None and self._owns_engine:
            self._engine.dispose()
            self._engine = None

    def __enter__(self) -> Tablebase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Tablebase({str(self.path)!r})"

    # -- reading -------------------------------------------------------------

    def variants(self) -> list[VariantInfo]:
        """Every variant built into this file, by name."""
        with self._snapshot() as conn:
            return read_variants(conn)

    def variant(self, name: str) -> VariantTable:
        """The built variant ``name``; raises if the name is unknown or not built here."""
        table = self._tables.get(name)
        if table is None:
            table = self._tables.setdefault(name, VariantTable(self, games.get(name), name))
        table._bound()
        return table

    def get_variant(self, name: str) -> VariantTable | None:
        """Like :meth:`variant`, but ``None`` when it is not built (unknown names still raise)."""
        try:
            return self.variant(name)
        except VariantNotBuiltError:
            return None

    def results_markdown(self) -> str:
        """A Markdown table of every built variant: rules, counts, result of the start."""
        lines = [
            "| variant | rules | positions | classes | start | distance |",
            "|---|---|---:|---:|---|---:|",
        ]
        for info in self.variants():
            stats = self.variant(info.name).stats()
            distance = "-" if info.distance is None else str(info.distance)
            lines.append(
                f"| `{info.name}` | {info.rules} | {stats.positions:,} | {stats.classes:,} "
                f"| {info.outcome} | {distance} |"
            )
        return "\n".join(lines)

    # -- writing -------------------------------------------------------------

    @_writes
    def upgrade(self) -> tuple[str | None, str]:
        """Create or upgrade the schema with alembic; returns (old revision, new revision)."""
        from tablebase.store.engine import upgrade

        self._check_writable()
        self._drop_reader()
        return upgrade(self.engine)

    @_writes
    def build(
        self,
        name: str,
        *,
        symmetry: bool = True,
        progress: Progress | None = None,
        storage: str | None = None,
        build_dir: str | os.PathLike[str] | None = None,
        workers: int | None = None,
        scheduler: str | None = None,
    ) -> VariantInfo:
        """Solve ``name`` and store it, replacing an earlier build atomically.

        ``storage`` names the layout (:func:`tablebase.store.layouts.names`:
        ``"moves"``, states and moves tables; ``"states"``, states only, moves
        come from the rules at query time) or is ``None`` to let
        :func:`tablebase.build.plan` choose by size. Out-of-core builds keep
        their layer files in ``build_dir`` (a folder, or an fsspec URL) and run
        ``workers`` processes, or their tasks on the Dask cluster ``scheduler``
        (an address such as ``tcp://host:8786``, or ``local:N``) whatever the
        size (:func:`tablebase.build.run`).
        """
        from tablebase import build

        planned = build.plan(
            name, symmetry=symmetry, storage=storage, path_known=self._owns_engine, scheduler=scheduler
        )
        self._check_writable()
        self._drop_reader()
        if self._owns_engine and self._engine is not None:
            self._engine.dispose()
        build.run(
            planned,
            engine=self.engine,
            path=self.path if self._owns_engine else None,
            progress=progress,
            build_dir=build_dir,
            workers=workers,
        )
        self._drop_reader()
        return self.variant(name).info

    def export(
        self,
        name: str,
        to: str | os.PathLike[str],
        *,
        storage: str = "states",
        plies: tuple[int, int] | None = None,
        progress: Progress | None = None,
    ) -> VariantInfo:
        """Write the packed variant ``name`` (only the plies ``plies``, inclusive, if given) into the
        tablebase file ``to`` as ``states`` rows, or ``moves`` (states and moves tables); returns its row there.
        Reads this file through a snapshot and writes only ``to``."""
        from tablebase.store.export import export_variant

        check_file(Path(to))
        with database_errors(Path(to)):
            export_variant(self.variant(name), to, storage, plies, progress)
        with Tablebase(to) as out:
            return out.variant(name).info

    @_writes
    def solve(self, name: str, position: str | None = None, *, time_limit: float | None = None) -> SolveReport:
        """Prove the exact value of one position (and of each of its moves) by search, and
        store what was proved; for variants too large to build. Nothing unproved is stored,
        and every position stored with moves has all its legal moves. ``time_limit`` bounds
        the whole call: reading what the file knows, the search and the writing."""
        started = time.perf_counter()
        from tablebase.solve.search import prove
        from tablebase.store.engine import upgrade
        from tablebase.store.writer import write_proved

        deadline = None if time_limit is None else started + time_limit
        game = games.get(name)
        state = game.initial_state() if position is None else parse_position(game, position)
        if time_limit is not None and not time_limit > 0:
            raise BuildError(f"time limit must be a positive number of seconds, got {time_limit!r}")
        self._check_writable()
        self._drop_reader()
        upgrade(self.engine)
        table = self.get_variant(name)
        if game.enumerable and table is not None and table.info.complete:
            raise BuildError(f"variant {name!r} is fully built here; probe it instead")
        known = {} if table is None else table._stored_below(state, _share(deadline, SOLVE_READ_SHARE))
        self._drop_reader()
        result = prove(
            game, state, _share(deadline, SOLVE_SEARCH_SHARE), children=True, line=True, known=known, processes=2
        )
        write_by = None if deadline is None or time_limit is None else deadline - 0.05 * time_limit
        result.collect(write_by)
        stored = write_proved(
            self.engine, game, result.positions, result.edges, result.seconds, deadline=write_by
        )
        self._drop_reader()
        return SolveReport(
            variant=name,
            position=game.format_position(state),
            outcome=result.outcome if result.complete else None,
            distance=result.distance if result.complete else None,
            proved=result.complete,
            timed_out=result.timed_out,
            stored=stored,
            nodes=result.nodes,
            seconds=time.perf_counter() - started,
        )

    def solve_many(
        self, name: str, positions: list[str], *, time_limit: float | None = None
    ) -> Iterator[SolveReport]:
        """:meth:`solve` each of ``positions`` in turn (``time_limit`` per position), storing
        as it goes; every position is read first, so bad input stores nothing."""
        game = games.get(name)
        for position in positions:
            parse_position(game, position)
        if time_limit is not None and not time_limit > 0:
            raise BuildError(f"time limit must be a positive number of seconds, got {time_limit!r}")
        for position in positions:
            yield self.solve(name, position, time_limit=time_limit)

    def _check_writable(self) -> None:
        if not self._owns_engine:
            return
        check_file(self.path)
        folder = self.path.resolve().parent
        if not folder.is_dir():
            raise DatabaseError(f"cannot create database {str(self.path)!r}: folder {str(folder)!r} does not exist")
        for target in (self.path, folder):
            if target.exists() and (not os.access(target, os.W_OK) or not target.stat().st_mode & 0o222):
                raise DatabaseError(f"cannot write database {str(self.path)!r}: {str(target)!r} is read-only")

    def _drop_reader(self) -> None:
        self._read.close()
        self._tables.clear()

    def verify(self, name: str, sample: int | None = None, progress: Progress | None = None) -> VerifyReport:
        """Re-derive every stored label of ``name`` from its stored moves and the rules.

        States-only variants, and any variant with ``sample`` (that many random
        states), are checked against their children derived from the rules.
        ``progress`` is called as during a build, on the check of every state of
        a states-only variant.
        """
        from tablebase.verify import check

        return check(self.variant(name), sample, progress)


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
    """Queries on one built variant."""

    def __init__(self, tablebase: Tablebase, game: Game, name: str):
        self.tablebase = tablebase
        self.game = game
        self._name = name

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
    def storage(self) -> Storage:
        """How the variant's positions are stored (the layout named in its row)."""
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

    def _lookup(
        self, conn: sqlite3.Connection, bound: _Bound, state: int, position: str | None
    ) -> tuple[Entry, int]:
        """The stored entry of ``state``'s class and the symmetry that maps ``state`` onto it."""
        canon, sym = self.game.canonical(state) if bound.info.symmetry else (state, 0)
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
            entry, sym = self._lookup(conn, bound, state, position)
            canon = game.transform(state, sym) if sym else state
            found = [] if entry.terminal else bound.storage.moves(conn, canon, entry)
        moves: tuple[MoveValue, ...] = ()
        if not found and not entry.terminal and not bound.info.complete and search:
            moves = self._prove_moves(state, entry.outcome, entry.distance)
        if found:
            inverse = game.inverse_symmetry(sym)
            order = {m: i for i, m in enumerate(game.legal_moves(state))}
            ranked = []
            missing = []
            for code, child in found:
                if sym:
                    code = game.transform_move(code, inverse)
                if child is None:
                    missing.append(code)
                    continue
                value, d = move_value(*child)
                ranked.append((rank(value, d), order.get(code, len(order)), code, value, d))
            if missing:
                first = min(missing, key=lambda code: order.get(code, len(order)))
                raise DatabaseError(
                    f"{self.name} in {str(self.tablebase.path)!r} lacks the position after"
                    f" {game.format_move(first)!r}; rebuild the variant"
                )
            ranked.sort(key=lambda item: (item[0], item[1]))
            positions = game.format_children(state, [item[2] for item in ranked])
            moves = tuple(
                MoveValue(move=game.format_move(code), position=child, outcome=value, distance=d)
                for (_, _, code, value, d), child in zip(ranked, positions)
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
        from tablebase.store.writer import read_proved

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


def _ply_outcomes(win: int | None, loss: int | None, draw: int | None) -> dict[str, int] | None:
    """The per-ply outcome counts of a ``plies`` row, ``None`` when the row has none."""
    if win is None or loss is None or draw is None:
        return None
    return {"win": win, "draw": draw, "loss": loss}


def _share(deadline: float | None, share: float) -> float | None:
    """``share`` of the seconds left until ``deadline`` (``None``: no limit)."""
    if deadline is None:
        return None
    return max(0.0, deadline - time.perf_counter()) * share


def open(path: str | os.PathLike[str] | None = None, *, engine: Engine | None = None) -> Tablebase:  # noqa: A001
    """Open a tablebase file (default ``tablebase.db``) or wrap an existing SQLAlchemy engine."""
    return Tablebase(path, engine=engine)


def count(name: str, *, symmetry: bool = True, progress: Progress | None = None) -> Stats:
    """Positions and symmetry classes per ply of ``name``, counted from the rules.

    Nothing is labelled, read or written, so this works for variants that
    are not built (on the game's array kernels when it has them). The
    walk visits one state per symmetry class (``symmetry=True``) or every
    position; both give the same table. ``outcomes`` is empty and
    ``terminal`` counts the terminal states visited.

    >>> tablebase.count("tictactoe").positions       # doctest: +SKIP
    5478
    """
    from tablebase.solve import count as count_plies

    game = games.get(name)
    if not game.enumerable:
        raise BuildError(f"variant {name!r} is too large to count: its positions cannot be enumerated")
    plies = count_plies(game, symmetry=symmetry, progress=progress)
    return Stats(
        name,
        tuple(PlyCount(p.ply, p.positions, p.classes) for p in plies),
        outcomes={},
        terminal=sum(p.terminal for p in plies),
    )


__all__ = ["DEFAULT_DB", "Tablebase", "TablebaseError", "UnknownVariantError", "VariantTable", "count", "open"]
