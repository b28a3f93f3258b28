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
The queries on one variant are :class:`~tablebase.variant.VariantTable`'s
(:mod:`tablebase.variant`). Queries only read, through :mod:`tablebase.reader`;
what is stored where is the business of the variant's storage
(:mod:`tablebase.store.storage`);
what a build does is planned in :mod:`tablebase.build`; the values returned
are the types of :mod:`tablebase.results`.
"""

from __future__ import annotations

import functools
import os
import sqlite3
import threading
import time
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, TypeVar, overload

from tablebase import games, opening
from tablebase.errors import (
    BuildError, DatabaseError, TablebaseError, UnknownVariantError, UnreachablePositionError, VariantNotBuiltError,
)
from tablebase.games.base import Game
from tablebase.games.tiering import settled
from tablebase.games.notation import parse_position
from tablebase.reader import Reader, check_file, database_errors, read_variants
from tablebase.results import PlyCount, SolveReport, Stats
from tablebase.store.schema import HEAD, connect_writer, file_revision
from tablebase.variant import PROBE_BUDGET, VariantTable

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

    from tablebase.results import OpeningReport, Probe, VariantInfo, VerifyReport

    from tablebase.solve import Progress
    from tablebase.games.tiering import TierSearch
    from tablebase.solve.search import SearchSession

DEFAULT_DB = "tablebase.db"
#: Shares of the time left that ``solve`` gives to reading the stored values, to the search of the
#: position and its moves, and to the search down the best line after them (the rest is for writing).
SOLVE_READ_SHARE = 0.05
SOLVE_SEARCH_SHARE = 0.95
SOLVE_LINE_SHARE = 0.8


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
        # re-entrant: a write may call another (install_opening writes the opening table)
        self._writing = threading.RLock()
        #: Variants whose opening table this object computes: probes do not answer from a shipped one.
        self._own_opening: set[str] = set()

    # -- connections ---------------------------------------------------------

    @property
    def engine(self) -> Engine:
        """The SQLAlchemy engine used for writing (created on first use)."""
        if self._engine is None:
            from tablebase.store.engine import make_engine

            self._engine = make_engine(self.path)
        return self._engine

    def _ensure_schema(self) -> None:
        """Create or upgrade the schema (alembic) unless the file has this library's revision already."""
        if self._engine is None and file_revision(self.path) == HEAD:
            return
        from tablebase.store.engine import upgrade

        upgrade(self.engine)

    @contextmanager
    def _write_connection(self) -> Iterator[sqlite3.Connection]:
        """A SQLite connection to write in (the engine's when one was given or made, else a plain one)."""
        if self._engine is None:
            conn = connect_writer(self.path)
            try:
                yield conn
            finally:
                conn.close()
            return
        raw = self._engine.raw_connection()
        try:
            yield raw.driver_connection  # type: ignore[misc]
        finally:
            raw.close()

    @property
    def reader(self) -> Reader:
        """The file's read-only connections (one a thread) and the variant rows they keep."""
        return self._read

    def snapshot(self) -> AbstractContextManager[sqlite3.Connection]:
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
        with self.snapshot() as conn:
            return read_variants(conn)

    def variant(self, name: str) -> VariantTable:
        """The built variant ``name``; raises if the name is unknown or not built here. Nothing is written.

        A variant whose game ships an opening table (:meth:`~tablebase.games.base.Game.shipped_opening`)
        answers probes of the positions the file lacks from that table, read-only, also in a file that
        holds nothing of the variant yet; :meth:`install_opening` copies the table into the file.
        """
        table = self._variant_table(name)
        table._bound_or_shipped()
        return table

    def _variant_table(self, name: str) -> VariantTable:
        """The object :meth:`variant` hands out for ``name`` (whether the file holds it is not checked)."""
        table = self._tables.get(name)
        if table is None:
            game = games.get(name)
            shipped = None if name in self._own_opening else opening.shipped(game)
            table = self._tables.setdefault(name, VariantTable(self, game, name, shipped))
        return table

    def _table(self, name: str) -> VariantTable:
        """:meth:`variant` when the file holds the variant (a shipped opening table alone does not do)."""
        table = self._variant_table(name)
        table._bound()
        return table

    def _get_table(self, name: str) -> VariantTable | None:
        """:meth:`_table`, ``None`` when the file does not hold the variant."""
        try:
            return self._table(name)
        except VariantNotBuiltError:
            return None

    def get_variant(self, name: str) -> VariantTable | None:
        """Like :meth:`variant`, but ``None`` when it is not built and ships no opening table (unknown names still raise)."""
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
    def install_opening(self, name: str) -> int:
        """Copy the opening table ``name``'s game ships into this file (in one transaction,
        skipping the positions stored already); how many positions were new. This is the one call
        that writes the table into a file: probes read it from the package."""
        game = games.get(name)
        table = opening.shipped(game)
        if table is None:
            raise BuildError(f"variant {name!r} ships no opening table")
        positions, edges = table.read()
        return self._write_opening(name, game, positions, edges)

    @_writes
    def _write_opening(
        self, name: str, game: Game, positions: dict[int, tuple[str, int | None]], edges: list[tuple[int, int, int]]
    ) -> int:
        """Store positions of a shipped opening table (as :meth:`install_opening`); how many were new."""
        from tablebase.store.proved import write_proved

        self._check_writable()
        self._drop_reader()
        self._ensure_schema()
        table = self._get_table(name)
        if table is not None and table.info.complete:
            raise BuildError(f"variant {name!r} is fully built here; it needs no opening table")
        self._drop_reader()
        with self._write_connection() as conn:
            stored = write_proved(conn, game, positions, edges, 0.0)
        self._drop_reader()
        return stored

    @_writes
    def opening(self, name: str, plies: int, *, every: bool = False, progress: Progress | None = None) -> OpeningReport:
        """Solve and store the opening table of ``name`` to ``plies`` plies: every position reached
        from the start when one side plays perfectly (any move as good as the best) and the other
        any move, with the perfect side to move, for both sides; with ``every``, every position up to
        ``plies`` plies. Each is stored with every move as it is solved, so a call stopped part way
        (Ctrl-C) goes on where it stopped when called again. ``progress`` hears of each position
        (``ply N``, positions done, positions known so far). The shipped table is not installed
        first (:meth:`install_opening` does that)."""
        game = games.get(name)
        if plies < 0:
            raise BuildError(f"plies must be 0 or more, got {plies!r}")
        self._own_opening.add(name)
        self._tables.pop(name, None)
        self.upgrade()
        with self.solver(name) as solver:
            return opening.compute(
                game, plies, every, progress, stored=lambda state: probe_else_prove(self, game, state), solver=solver
            )

    def export_opening(self, name: str, path: str | os.PathLike[str]) -> int:
        """Write the positions of ``name`` stored with all their moves, and their children's values,
        to the opening table file ``path`` (:mod:`tablebase.opening`), the form a game ships;
        returns how many positions had moves."""
        return opening.export(self.variant(name), path)

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
        worker_memory: str | None = None,
        tiers: int | None = None,
    ) -> VariantInfo:
        """Solve ``name`` and store it, replacing an earlier build atomically; or, with ``tiers``, its tiers.

        ``storage`` names the storage (:func:`tablebase.store.storage.names`:
        ``"moves"``, states and moves tables; ``"states"``, states only, moves
        come from the rules at query time) or is ``None`` to let
        :func:`tablebase.build.plan` choose by size. Out-of-core builds keep
        their layer files in ``build_dir`` (a folder, or an fsspec URL) and run
        ``workers`` processes, or their tasks on the Dask cluster ``scheduler``
        (an address such as ``tcp://host:8786``, or ``local:N`` whose workers
        each get ``worker_memory``, as ``"1GB"``) whatever the size; a
        variant stored dense is then built in tasks over ranges of its plies
        (:func:`tablebase.build.run`).

        A game cut into tiers (:meth:`~tablebase.games.base.Game.tiering`) is built tier by tier with
        ``tiers``, the tiers of at most that (Morris: stones a side): each tier a task (on ``workers``
        processes or ``scheduler``), stored when it is finished, the tiers stored already kept, so that
        the same call goes on with a stopped build (:mod:`tablebase.solve.tier_build`).
        """
        from tablebase import build

        planned = build.plan(
            name, symmetry=symmetry, storage=storage, path_known=self._owns_engine, scheduler=scheduler,
            worker_memory=worker_memory, tiers=tiers,
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

    def solve(
        self, name: str, position: str | None = None, *, time_limit: float | None = None, line: bool = False
    ) -> SolveReport:
        """Prove the exact value of one position (and of each of its moves) by search, and
        store what was proved; for variants too large to build. Nothing unproved is stored,
        and every position stored with moves has all its legal moves. With ``line``, the
        search goes on down the best line, each position on it stored with every move, while
        time allows. ``time_limit`` bounds the whole call: reading what the file knows, the
        search and the writing. A shipped opening table is not used: what the file holds is,
        the rest is the search's own work (:meth:`install_opening` copies the table in).
        :meth:`solver` keeps the search's table between solves."""
        with self.solver(name) as solver:
            return solver.solve(position, time_limit=time_limit, line=line)

    def solver(self, name: str) -> Solver:
        """Solves of ``name`` that go on from one another (a :class:`Solver`; close it, or use it
        in a ``with`` block, to keep what they proved beside the file)."""
        return Solver(self, name)

    @_writes
    def _solve(
        self, name: str, game: Game, state: int, time_limit: float | None, session: SearchSession, line: bool = False
    ) -> SolveReport:
        """:meth:`solve` of ``state`` (already read) by ``session``'s search of ``game``, which goes
        on from the table of its earlier solves."""
        started = time.perf_counter()
        from tablebase.store.proved import write_proved

        deadline = None if time_limit is None else started + time_limit
        self._check_writable()
        self._drop_reader()
        self._ensure_schema()
        table = self._get_table(name)
        if game.enumerable and table is not None and table.info.complete:
            raise BuildError(f"variant {name!r} is fully built here; probe it instead")
        known = {} if table is None else table._stored_below(state, _share(deadline, SOLVE_READ_SHARE))
        self._drop_reader()
        result = session.prove(
            state, _share(deadline, SOLVE_SEARCH_SHARE), children=True, line=line,
            line_time_limit=_share(deadline, SOLVE_LINE_SHARE), known=known, processes=2,
        )
        write_by = None if deadline is None or time_limit is None else deadline - 0.05 * time_limit
        result.collect(write_by)
        with self._write_connection() as conn:
            stored = write_proved(conn, game, result.positions, result.edges, result.seconds, deadline=write_by)
        self._drop_reader()
        return SolveReport(
            variant=name,
            position=game.format_position(state),
            outcome=result.outcome,
            distance=result.distance if result.outcome is not None else None,
            proved=result.complete,
            timed_out=result.timed_out,
            stored=stored,
            nodes=result.nodes,
            seconds=time.perf_counter() - started,
            moves=0 if game.outcome(state) is not None else game.move_count(state),
            moves_proved=len(result.moves),
        )

    @_writes
    def _solve_in_tiers(
        self, name: str, game: Game, state: int, time_limit: float | None, search: TierSearch
    ) -> SolveReport:
        """:meth:`solve` of ``state`` (already read) of a variant built tier by tier, by ``search`` over
        its stored tiers: the position and each move proved, what was proved with its distance stored
        in the ``states`` table (the tiers' positions are not stored again)."""
        from tablebase.store.proved import write_proved

        started = time.perf_counter()
        deadline = None if time_limit is None else started + time_limit
        shown = game.format_position(state)
        if not search.covers(state):
            raise BuildError(f"position {shown!r} of {name} lies in its stored tiers; probe it instead")
        self._check_writable()
        self._drop_reader()
        canon = game.canonical(state)[0]
        nodes = search.nodes
        proof = search.prove(canon, None if deadline is None else deadline - 0.05 * (time_limit or 0.0))
        positions = {s: v for s, v in proof.positions(lambda s: game.canonical(s)[0]).items() if search.covers(s)}
        with self._write_connection() as conn:
            stored = write_proved(conn, game, positions, [], time.perf_counter() - started)
        self._drop_reader()
        value = proof.value
        return SolveReport(
            variant=name,
            position=shown,
            outcome=None if value is None else value[0],
            distance=None if value is None else value[1],
            proved=proof.complete,
            timed_out=not proof.complete,
            stored=stored,
            nodes=search.nodes - nodes,
            seconds=time.perf_counter() - started,
            moves=len(proof.moves),
            moves_proved=sum(settled(v) for _, _, v in proof.moves),
        )

    def solve_many(
        self, name: str, positions: list[str], *, time_limit: float | None = None, line: bool = False
    ) -> Iterator[SolveReport]:
        """:meth:`solve` each of ``positions`` in turn (``time_limit`` per position, ``line`` as there), storing
        as it goes; every position is read first, so bad input stores nothing. The positions
        share one :meth:`solver`, so later ones go on from what earlier ones proved."""
        game = games.get(name)
        states = [parse_position(game, position) for position in positions]
        _check_time_limit(time_limit)
        with self.solver(name) as solver:
            for state in states:
                yield solver.solve_state(state, time_limit, line)

    def kept_table_path(self, name: str) -> Path | None:
        """The file beside this one that keeps the exact scores a compiled search of ``name`` proved
        (for games whose search table can be kept), so later solves go on from them; ``None``
        for a database that is not a file."""
        if not self._owns_engine or str(self.path) == ":memory:":
            return None
        return self.path.with_name(f"{self.path.name}.{name}.search.npy")

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

    def verify(
        self, name: str, sample: int | None = None, progress: Progress | None = None, *, search: int | None = None
    ) -> VerifyReport:
        """Re-derive every stored label of ``name`` from its stored moves and the rules.

        States-only variants, and any variant with ``sample`` (that many random
        states), are checked against their children derived from the rules.
        ``progress`` is called as during a build, on the check of every state of
        a states-only variant. With ``search``, that many stored positions with
        moves, drawn at random (fixed seed), are also proved again by the search
        from nothing, and their values and every move's value compared.
        """
        from tablebase.verify import check, verify_by_search

        table = self.variant(name)
        report = check(table, sample, progress)
        if search:
            verify_by_search(table, search, report, progress=progress)
        return report


class Solver:
    """Solves of one variant by search (:meth:`Tablebase.solve`) that go on from one another: where
    the game's compiled search table can be reused, it is kept between them (a
    :class:`~tablebase.solve.search.SearchSession`), read from beside the file
    (:meth:`Tablebase.kept_table_path`) on the first solve and written back by :meth:`keep`
    and on :meth:`close`."""

    def __init__(self, tablebase: Tablebase, name: str):
        from tablebase.solve.search import SearchSession

        self.tablebase = tablebase
        self.name = name
        self.game = games.get(name)
        self.session = SearchSession(self.game, kept=tablebase.kept_table_path(name))
        self._tiers: TierSearch | None = None

    def solve(self, position: str | None = None, *, time_limit: float | None = None, line: bool = False) -> SolveReport:
        """:meth:`Tablebase.solve` of ``position`` (``None``: the start)."""
        game = self.game
        state = game.initial_state() if position is None else parse_position(game, position)
        _check_time_limit(time_limit)
        return self.solve_state(state, time_limit, line)

    def solve_state(self, state: int, time_limit: float | None = None, line: bool = False) -> SolveReport:
        """:meth:`solve` of a state already read."""
        search = self._tier_search()
        if search is not None:
            return self.tablebase._solve_in_tiers(self.name, self.game, state, time_limit, search)
        self.session.open(state)
        return self.tablebase._solve(self.name, self.game, state, time_limit, self.session, line)

    def _tier_search(self) -> TierSearch | None:
        """The search over the stored tiers of a variant built tier by tier (kept between solves)."""
        tb = self.tablebase
        if self._tiers is None and self.game.tiering() is not None and (not tb._owns_engine or tb.path.exists()):
            table = tb.get_variant(self.name)
            self._tiers = None if table is None else table.tier_search()
        return self._tiers

    def prepare(self) -> None:
        """Make the search's table, as large as for the start, with what earlier solves kept, and
        load the game's compiled search (:func:`~tablebase.solve.search.warm_up`: compiled on first
        use), so the next solve waits for neither; nothing where the game's compiled table cannot
        be reused."""
        self.session.warm_up()

    def keep(self) -> None:
        """Write what the search proved so far beside the file, where the game's table can be kept."""
        self.session.save()

    def close(self) -> None:
        """:meth:`keep`, then let the search's table go."""
        try:
            self.keep()
        finally:
            self.session.close()

    def __enter__(self) -> Solver:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _check_time_limit(time_limit: float | None) -> None:
    """Raise :class:`BuildError` unless ``time_limit`` is ``None`` or a positive number of seconds."""
    if time_limit is not None and not time_limit > 0:
        raise BuildError(f"time limit must be a positive number of seconds, got {time_limit!r}")


def _share(deadline: float | None, share: float) -> float | None:
    """``share`` of the seconds left until ``deadline`` (``None``: no limit)."""
    if deadline is None:
        return None
    return max(0.0, deadline - time.perf_counter()) * share


_Proved = TypeVar("_Proved")


@overload
def probe_else_prove(
    tb: Tablebase, game: Game, state: int, prove: Callable[[int], _Proved], *, search: bool = False,
    enough: Callable[[Probe], bool] | None = None,
) -> Probe | _Proved: ...


@overload
def probe_else_prove(
    tb: Tablebase, game: Game, state: int, prove: None = None, *, search: bool = False,
    enough: Callable[[Probe], bool] | None = None,
) -> Probe | None: ...


def probe_else_prove(
    tb: Tablebase,
    game: Game,
    state: int,
    prove: Callable[[int], _Proved] | None = None,
    *,
    search: bool = False,
    enough: Callable[[Probe], bool] | None = None,
) -> Probe | _Proved | None:
    """The probe of ``state`` of ``game``: the file's (or its shipped opening table's) when it gives
    every move's value, or when ``enough(probe)`` takes it as it is; else ``prove(state)``, the
    caller's way to prove it (it may search, and store); ``None`` when neither knows it. ``search``:
    a position the file holds with its value only has its moves proved by the probe
    (:meth:`VariantTable.probe`)."""
    table = tb.get_variant(game.name)
    probe = None if table is None else table.get_probe(game.format_position(state), search=search)
    if probe is not None and (probe.proves_every_move(game.move_count(state)) or (enough is not None and enough(probe))):
        return probe
    return None if prove is None else prove(state)


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


def check_strategy(name: str, *, lower_bound: bool = False, walk_to: int = 0) -> Any:
    """The by-machine check of the strategies a family states for variant ``name``
    (:func:`tablebase.games.check_strategy`, handed the solver): an object with ``to_dict()`` and
    ``summary()``; raises :class:`UnknownVariantError` naming ``name`` when no family has one for it.

    >>> print(tablebase.check_strategy("ultimate").summary())       # doctest: +SKIP
    """
    from tablebase.solve import solve

    return games.check_strategy(name, solve=solve, lower_bound=lower_bound, walk_to=walk_to)


__all__ = [
    "DEFAULT_DB", "PROBE_BUDGET", "Solver", "Tablebase", "TablebaseError", "UnknownVariantError", "VariantTable", "check_strategy",
    "count", "open", "probe_else_prove",
]
