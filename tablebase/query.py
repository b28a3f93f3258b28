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
Queries only read: they open the file read-only.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, TypeVar

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
from tablebase.games.base import Game
from tablebase.store.schema import UPGRADE_COMMAND, check_revision

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

    from tablebase.solve import Progress

DEFAULT_DB = "tablebase.db"
#: Above this many classes a build stores states only (``storage=None``).
STATES_ONLY_ABOVE = 20_000_000
#: How much of the file read-only connections map into memory.
READ_MMAP_BYTES = 1 << 30
_T = TypeVar("_T")
_FLIP = {"win": "loss", "loss": "win", "draw": "draw"}
_RANK = {"win": 0, "draw": 1, "loss": 2}


@dataclass(frozen=True)
class MoveValue:
    """A legal move and what it achieves for the player making it."""

    move: str
    position: str
    outcome: str
    distance: int | None

    def sort_key(self) -> tuple[int, float]:
        """Best first: fastest win, then draws (longest first), then slowest loss."""
        return _move_rank(self.outcome, self.distance)


def _move_rank(outcome: str, distance: int | None) -> tuple[int, float]:
    d = float("inf") if distance is None else distance
    if outcome == "win":
        return (0, d)
    return (_RANK[outcome], -d)


@dataclass(frozen=True)
class Probe:
    """The value of a position and of every legal move, best first."""

    variant: str
    position: str
    to_move: str
    outcome: str
    distance: int | None
    terminal: bool
    moves: tuple[MoveValue, ...]

    @property
    def best_move(self) -> MoveValue | None:
        """The best move, or ``None`` when the game is over."""
        return self.moves[0] if self.moves else None

    def to_dict(self) -> dict[str, Any]:
        """The JSON contract of ``tablebase probe --json``."""
        return {
            "variant": self.variant,
            "position": self.position,
            "to_move": self.to_move,
            "outcome": self.outcome,
            "distance": self.distance,
            "moves": [dict(vars(m)) for m in self.moves],
        }


@dataclass(frozen=True)
class Line:
    """The principal variation from a position: best moves to the end."""

    variant: str
    position: str
    outcome: str
    moves: tuple[str, ...]
    positions: tuple[str, ...]
    #: True when the line stopped at a repeated position (perpetual draw).
    repeats: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"variant": self.variant, "position": self.position, "outcome": self.outcome, "moves": list(self.moves)}


@dataclass(frozen=True)
class Predecessor:
    """A position one move before the given one, and the move that leads from it."""

    position: str
    move: str


@dataclass(frozen=True)
class PlyCount:
    ply: int
    positions: int
    classes: int


@dataclass(frozen=True)
class Stats:
    """Per-ply counts of positions and symmetry classes, and label totals."""

    variant: str
    plies: tuple[PlyCount, ...]
    outcomes: dict[str, int]
    terminal: int

    @property
    def positions(self) -> int:
        return sum(p.positions for p in self.plies)

    @property
    def classes(self) -> int:
        return sum(p.classes for p in self.plies)

    def to_dict(self) -> dict[str, Any]:
        return {
            "variant": self.variant,
            "plies": [asdict(p) for p in self.plies],
            "positions": self.positions,
            "classes": self.classes,
            "outcomes": dict(self.outcomes),
            "terminal": self.terminal,
        }


@dataclass(frozen=True)
class VariantInfo:
    """What the ``variants`` table says about one built variant."""

    name: str
    family: str
    rules: str
    parameters: dict[str, Any]
    symmetry: bool
    complete: bool
    states: int
    moves: int
    outcome: str | None
    distance: int | None
    build_seconds: float
    builder_version: str
    built_at: str
    #: ``"moves"`` when the moves table holds the variant's moves, ``"states"`` when they come from the rules.
    storage: str = "moves"

    def to_dict(self) -> dict[str, Any]:
        """The JSON contract of ``tablebase list --json``."""
        return {
            "variant": self.name,
            "states": self.states,
            "moves": self.moves,
            "storage": self.storage,
            "symmetry": self.symmetry,
            "outcome": self.outcome,
            "distance": self.distance,
        }


@dataclass
class VerifyReport:
    """What ``verify`` found: counts checked and every disagreement (capped)."""

    variant: str
    states: int = 0
    moves: int = 0
    errors: list[str] = field(default_factory=list)
    error_count: int = 0

    @property
    def ok(self) -> bool:
        return self.error_count == 0

    def add(self, message: str) -> None:
        self.error_count += 1
        if len(self.errors) < 50:
            self.errors.append(message)

    def to_dict(self) -> dict[str, Any]:
        return {
            "variant": self.variant,
            "states": self.states,
            "moves": self.moves,
            "ok": self.ok,
            "error_count": self.error_count,
            "errors": list(self.errors),
        }


@dataclass(frozen=True)
class SolveReport:
    """What ``solve`` proved about one position and how many positions it stored."""

    variant: str
    position: str
    outcome: str | None
    distance: int | None
    proved: bool
    timed_out: bool
    stored: int
    nodes: int
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        return dict(vars(self))


_VARIANT_COLUMNS = (
    "id, name, family, rules, parameters, symmetry, complete, states_count, moves_count,"
    " outcome, distance, build_seconds, builder_version, built_at, storage"
)


def _info(row: tuple[Any, ...]) -> VariantInfo:
    return VariantInfo(
        name=row[1],
        family=row[2],
        rules=row[3],
        parameters=json.loads(row[4]) if row[4] else {},
        symmetry=bool(row[5]),
        complete=bool(row[6]),
        states=row[7],
        moves=row[8],
        outcome=row[9],
        distance=row[10],
        build_seconds=row[11],
        builder_version=row[12],
        built_at=str(row[13]),
        storage=row[14],
    )


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
        self._conn: sqlite3.Connection | None = None
        self._raw: Any = None
        self._tables: dict[str, VariantTable] = {}
        self._data_version: int | None = None
        self._file_id: tuple[int, int] | None = None

    # -- connections ---------------------------------------------------------

    @property
    def engine(self) -> Engine:
        """The SQLAlchemy engine used for writing (created on first use)."""
        if self._engine is None:
            from tablebase.store.engine import make_engine

            self._engine = make_engine(self.path)
        return self._engine

    def _reader(self) -> sqlite3.Connection:
        if self._conn is not None:
            return self._conn
        if self._engine is not None and not self._owns_engine:
            self._raw = self._engine.raw_connection()
            conn: sqlite3.Connection = self._raw.driver_connection
        else:
            if not self.path.exists():
                raise DatabaseError(
                    f"database {str(self.path)!r} does not exist; build a variant first: "
                    f"tablebase build tictactoe --db {self.path}"
                )
            try:
                conn = sqlite3.connect(
                    f"{self.path.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False, isolation_level=None
                )
                conn.execute("PRAGMA busy_timeout = 30000")
                # probes read pages through the memory map instead of one read() call per page
                conn.execute(f"PRAGMA mmap_size = {READ_MMAP_BYTES}").fetchall()
            except sqlite3.Error as exc:
                raise DatabaseError(f"cannot open database {str(self.path)!r}: {exc}") from exc
        self._check_schema(conn)
        self._conn = conn
        self._file_id = _file_id(self.path) if self._raw is None else None
        self._data_version = conn.execute("PRAGMA data_version").fetchone()[0]
        return conn

    def _replaced(self) -> bool:
        """Whether another file was renamed over the path since the reader opened it (a states-only rebuild)."""
        if self._file_id is None:
            return False
        try:
            return _file_id(self.path) != self._file_id
        except OSError:
            return False

    @contextmanager
    def _snapshot(self) -> Iterator[sqlite3.Connection]:
        """A read transaction: every query inside sees the same committed state of the file."""
        conn = self._reader()
        if conn.in_transaction:
            yield conn
            return
        replaced = self._replaced()
        if replaced:
            conn.close()
            self._conn = None
            conn = self._reader()
        conn.execute("BEGIN")
        try:
            version = conn.execute("PRAGMA data_version").fetchone()[0]
            if replaced or version != self._data_version:
                self._data_version = version
                self._refresh_tables(conn)
            yield conn
        finally:
            conn.execute("COMMIT")

    def _refresh_tables(self, conn: sqlite3.Connection) -> None:
        """Re-read the variant rows after another connection changed the file (a rebuild)."""
        for name, table in list(self._tables.items()):
            row = conn.execute(f"SELECT {_VARIANT_COLUMNS} FROM variants WHERE name = ?", (name,)).fetchone()
            if row is None:
                del self._tables[name]
                table.variant_id = -1
            else:
                table.variant_id, table.info = row[0], _info(row)

    def _check_schema(self, conn: sqlite3.Connection) -> None:
        where = str(self.path)
        try:
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        except sqlite3.DatabaseError as exc:
            raise DatabaseError(f"{where!r} is not a tablebase database ({exc})") from exc
        if "alembic_version" not in tables:
            raise DatabaseError(
                f"{where!r} is not a tablebase database (no schema); "
                f"build a variant into it or run '{UPGRADE_COMMAND} --db {where}'"
            )
        row = conn.execute("SELECT version_num FROM alembic_version").fetchone()
        check_revision(row[0] if row else None, where)

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
            rows = conn.execute(f"SELECT {_VARIANT_COLUMNS} FROM variants ORDER BY name").fetchall()
        return [_info(r) for r in rows]

    def variant(self, name: str) -> VariantTable:
        """The built variant ``name``; raises if the name is unknown or not built here."""
        table = self._tables.get(name)
        if table is not None:
            with self._snapshot():
                pass  # brings the table's info up to date if the file changed
            if self._tables.get(name) is table:
                return table
        game = games.get(name)
        with self._snapshot() as conn:
            row = conn.execute(f"SELECT {_VARIANT_COLUMNS} FROM variants WHERE name = ?", (name,)).fetchone()
        if row is None:
            raise VariantNotBuiltError(
                f"variant {name!r} is not built in {str(self.path)!r}; run: tablebase build {name} --db {self.path}"
            )
        table = VariantTable(self, game, row[0], _info(row))
        self._tables[name] = table
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

    def upgrade(self) -> tuple[str | None, str]:
        """Create or upgrade the schema with alembic; returns (old revision, new revision)."""
        from tablebase.store.engine import upgrade

        self._drop_reader()
        return upgrade(self.engine)

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

        ``storage`` is ``"moves"`` (states and moves tables), ``"states"``
        (states only; moves come from the rules at query time) or ``None``:
        states only when the game's size bound allows more than
        :data:`STATES_ONLY_ABOVE` classes and the count confirms it. Layered games with array kernels are then solved out of core
        in ``build_dir`` (default: a folder next to the database, removed
        after the write), which an interrupted build resumes from, by
        ``workers`` processes (default: one per core). ``scheduler`` (a Dask
        scheduler address, or ``local:N``) runs the out-of-core build on that
        cluster whatever the size, stored states only; ``build_dir`` may then be an
        fsspec URL that every worker reaches (see :mod:`tablebase.solve.chunked`).
        """
        from tablebase.solve import solve
        from tablebase.store.engine import upgrade
        from tablebase.store.writer import write_solution

        if storage not in (None, "moves", "states"):
            raise BuildError(f"unknown storage {storage!r}: use 'moves' or 'states'")
        game = games.get(name)
        if not game.enumerable:
            raise BuildError(
                f"variant {name!r} is too large to enumerate; solve positions with: tablebase solve {name} POSITION"
            )
        if storage == "states" and not game.has_unmoves:
            raise BuildError(
                f"variant {name!r} cannot be stored states-only: its rules do not list the moves into a position"
                " (predecessors need them); build it with moves"
            )
        self._check_writable()
        self._drop_reader()
        if self._owns_engine and self._engine is not None:
            self._engine.dispose()
        start = time.perf_counter()
        kernels = game.vector
        bound = game.size_bound(symmetry)
        large = bound is not None and bound > STATES_ONLY_ABOVE
        if scheduler and (storage == "moves" or not game.has_unmoves or kernels is None or not kernels.layered
                          or not self._owns_engine):
            raise BuildError(
                f"variant {name!r} cannot be built on a cluster: that takes a layered game stored states-only in a file"
            )
        if (storage == "states" or (storage is None and large) or scheduler) and kernels is not None and kernels.layered and self._owns_engine:
            import shutil

            from tablebase.solve.chunked import solve_chunked
            from tablebase.store.states import write_states

            folder = build_dir if build_dir is not None else self.path.with_name(f"{self.path.name}.build-{name}")
            if workers is None:
                workers = os.cpu_count() or 1
            layered = solve_chunked(game, folder, symmetry=symmetry, progress=progress, workers=workers, scheduler=scheduler)
            if storage == "states" or scheduler or layered.num_states > STATES_ONLY_ABOVE:
                write_states(self.path, layered, time.perf_counter() - start, progress=progress)
                if build_dir is None:
                    shutil.rmtree(folder, ignore_errors=True)
                self._drop_reader()
                return self.variant(name).info
            if build_dir is None:
                shutil.rmtree(folder, ignore_errors=True)
            start = time.perf_counter()
        solution = solve(game, symmetry=symmetry, progress=progress)
        seconds = time.perf_counter() - start
        if storage == "states":
            from tablebase.store.states import SolutionLayers, write_states

            if not self._owns_engine:
                raise BuildError("states-only builds need a database path, not an engine")
            write_states(self.path, SolutionLayers(solution), seconds, progress=progress)
        else:
            upgrade(self.engine)
            write_solution(self.engine, solution, seconds, progress=progress)
        self._drop_reader()
        return self.variant(name).info

    def solve(self, name: str, position: str | None = None, *, time_limit: float | None = None) -> SolveReport:
        """Prove the exact value of one position (and of each of its moves) by search, and
        store what was proved; for variants too large to build. Nothing unproved is stored."""
        from tablebase.solve.search import prove
        from tablebase.store.engine import upgrade
        from tablebase.store.writer import write_proved

        game = games.get(name)
        state = game.initial_state() if not position else game.parse_position(position)
        self._check_writable()
        self._drop_reader()
        upgrade(self.engine)
        if game.enumerable and self.get_variant(name) is not None and self.variant(name).info.complete:
            raise BuildError(f"variant {name!r} is fully built here; probe it instead")
        self._drop_reader()
        result = prove(game, state, time_limit, children=True)
        stored = write_proved(self.engine, game, result.positions, result.edges, result.seconds)
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
            seconds=result.seconds,
        )

    def _check_writable(self) -> None:
        if not self._owns_engine:
            return
        folder = self.path.resolve().parent
        if not folder.is_dir():
            raise DatabaseError(f"cannot create database {str(self.path)!r}: folder {str(folder)!r} does not exist")
        for target in (self.path, folder):
            if target.exists() and (not os.access(target, os.W_OK) or not target.stat().st_mode & 0o222):
                raise DatabaseError(f"cannot write database {str(self.path)!r}: {str(target)!r} is read-only")

    def _drop_reader(self) -> None:
        if self._conn is not None:
            if self._raw is not None:
                self._raw.close()
                self._raw = None
            else:
                self._conn.close()
            self._conn = None
        self._tables.clear()

    def verify(self, name: str, sample: int | None = None, progress: Progress | None = None) -> VerifyReport:
        """Re-derive every stored label of ``name`` from its stored moves and the rules.

        States-only variants, and any variant with ``sample`` (that many random
        states), are checked against their children derived from the rules.
        ``progress`` is called as during a build, on the check of every state of
        a states-only variant.
        """
        from tablebase.verify import verify, verify_children

        table = self.variant(name)
        if sample is not None or table.info.storage == "states":
            return verify_children(table, sample, progress=progress)
        return verify(table)


class VariantTable:
    """Queries on one built variant."""

    def __init__(self, tablebase: Tablebase, game: Game, variant_id: int, info: VariantInfo):
        self.tablebase = tablebase
        self.game = game
        self.variant_id = variant_id
        self.info = info
        self._move_codes: dict[str, int] = {}

    @property
    def name(self) -> str:
        return self.info.name

    def __repr__(self) -> str:
        return f"<VariantTable {self.name!r} in {str(self.tablebase.path)!r}>"

    def _snapshot(self) -> Any:
        return self.tablebase._snapshot()

    # -- positions -----------------------------------------------------------

    def parse(self, position: str | None) -> int:
        """The state of a position string (``None`` or empty: the start)."""
        if position is None or position == "":
            return self.game.initial_state()
        return self.game.parse_position(position)

    def _canonical(self, state: int) -> tuple[int, int]:
        if self.info.symmetry:
            return self.game.canonical(state)
        return state, 0

    def _lookup(
        self, conn: sqlite3.Connection, state: int, position: str | None
    ) -> tuple[int, str, int | None, bool, int]:
        canon, sym = self._canonical(state)
        key = self.game.format_position(canon)
        row = conn.execute(
            "SELECT id, outcome, distance, terminal FROM states WHERE variant_id = ? AND key = ?",
            (self.variant_id, key),
        ).fetchone()
        if row is None:
            self._not_found(state, position)
        return row[0], row[1], row[2], bool(row[3]), sym

    def _not_found(self, state: int, position: str | None) -> None:
        shown = self.game.format_position(state) if position is None else position
        if not self.info.complete:
            raise UnreachablePositionError(
                f"position {shown!r} of {self.name} is not solved; run: tablebase solve {self.name} '{shown}'"
            )
        raise UnreachablePositionError(f"position {shown!r} is not reachable from the start of {self.name}")

    def _move_code(self, canon: int, text: str) -> int:
        code = self._move_codes.get(text)
        if code is None:
            code = self._move_codes[text] = self.game.parse_move(canon, text)
        return code

    def probe(self, position: str | None = None) -> Probe:
        """Outcome and distance of ``position`` and every legal move's value, best first."""
        game = self.game
        state = self.parse(position)
        with self._snapshot() as conn:
            if self.info.storage == "states":
                return self._probe_states(state, position)
            state_id, outcome, distance, terminal, sym = self._lookup(conn, state, position)
            rows = [] if terminal else conn.execute(
                "SELECT m.move, t.outcome, t.distance FROM moves AS m JOIN states AS t ON t.id = m.to_state"
                " WHERE m.from_state = ?",
                (state_id,),
            ).fetchall()
        moves: tuple[MoveValue, ...] = ()
        if rows:
            canon = game.transform(state, sym) if sym else state
            inverse = game.inverse_symmetry(sym)
            order = {m: i for i, m in enumerate(game.legal_moves(state))}
            codes = self._move_codes
            ranked = []
            for text, child_outcome, child_distance in rows:
                code = codes.get(text)
                if code is None:
                    code = self._move_code(canon, text)
                if sym:
                    code = game.transform_move(code, inverse)
                value = _FLIP[child_outcome]
                d = None if child_distance is None else child_distance + 1
                ranked.append((_move_rank(value, d), order.get(code, len(order)), code, value, d))
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
            outcome=outcome,
            distance=distance,
            terminal=terminal,
            moves=moves,
        )

    def _values(self, conn: sqlite3.Connection, states: list[int]) -> list[tuple[str, int | None] | None]:
        """``(outcome, distance)`` of each state looked up by its canonical key, ``None`` if not stored."""
        keys = [self.game.format_position(self._canonical(s)[0]) for s in states]
        found: dict[str, tuple[str, int | None]] = {}
        for lo in range(0, len(keys), 500):
            part = keys[lo : lo + 500]
            rows = conn.execute(
                f"SELECT key, outcome, distance FROM states WHERE variant_id = ? AND key IN ({','.join('?' * len(part))})",
                (self.variant_id, *part),
            ).fetchall()
            found.update((k, (o, d)) for k, o, d in rows)
        return [found.get(k) for k in keys]

    def _probe_states(self, state: int, position: str | None) -> Probe:
        """:meth:`probe` for states-only storage: the moves from the rules, their values by lookup."""
        game = self.game
        with self._snapshot() as conn:
            _, outcome, distance, terminal, _ = self._lookup(conn, state, position)
            children = [] if terminal else game.children(state)
            values = self._values(conn, [child for _, child in children])
        ranked = []
        for i, ((code, child), value) in enumerate(zip(children, values)):
            if value is None:
                raise DatabaseError(
                    f"{self.name} in {str(self.tablebase.path)!r} lacks the position after"
                    f" {game.format_move(code)!r}; rebuild the variant"
                )
            mover = _FLIP[value[0]]
            d = None if value[1] is None else value[1] + 1
            ranked.append((_move_rank(mover, d), i, code, child, mover, d))
        ranked.sort(key=lambda item: (item[0], item[1]))
        return Probe(
            variant=self.name,
            position=game.format_position(state),
            to_move=game.to_move(state),
            outcome=outcome,
            distance=distance,
            terminal=terminal,
            moves=tuple(
                MoveValue(move=game.format_move(code), position=game.format_position(child), outcome=value, distance=d)
                for _, _, code, child, value, d in ranked
            ),
        )

    def get_probe(self, position: str | None = None, default: _T = None) -> Probe | _T:  # type: ignore[assignment]
        """Like :meth:`probe`, but ``default`` when the position is not in the tablebase."""
        try:
            return self.probe(position)
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
        while probe.best_move is not None and len(moves) < max_plies:
            best = probe.best_move
            moves.append(best.move)
            positions.append(best.position)
            if best.position in seen:
                repeats = True
                break
            seen.add(best.position)
            probe = self.probe(best.position)
        return Line(self.name, first.position, first.outcome, tuple(moves), tuple(positions), repeats)

    def predecessors(self, position: str | None = None) -> list[Predecessor]:
        """Every (position, move) one move before ``position``, read from the moves table."""
        game = self.game
        state = self.parse(position)
        with self._snapshot() as conn:
            if self.info.storage == "states":
                self._lookup(conn, state, position)
                unmoves = game.unmoves(state)
                stored = self._values(conn, [parent for parent, _ in unmoves])
                pairs = {
                    (game.format_position(parent), game.format_move(code))
                    for (parent, code), value in zip(unmoves, stored)
                    if value is not None
                }
                return [Predecessor(p, m) for p, m in sorted(pairs)]
            state_id, *_ = self._lookup(conn, state, position)
            rows = conn.execute(
                "SELECT f.key, m.move FROM moves AS m JOIN states AS f ON f.id = m.from_state WHERE m.to_state = ?",
                (state_id,),
            ).fetchall()
        symmetries = range(game.num_symmetries) if self.info.symmetry else range(1)
        found: set[tuple[str, str]] = set()
        for key, text in rows:
            parent = game.parse_position(key)
            code = self._move_code(parent, text)
            child = game.apply(parent, code)
            for t in symmetries:
                if game.transform(child, t) == state:
                    found.add(
                        (game.format_position(game.transform(parent, t)), game.format_move(game.transform_move(code, t)))
                    )
        return [Predecessor(p, m) for p, m in sorted(found)]

    def stats(self) -> Stats:
        """Positions and symmetry classes per ply, and totals of outcomes and terminal states."""
        with self._snapshot() as conn:
            rows = conn.execute(
                "SELECT ply, positions, classes, wins, losses, draws, terminal FROM plies WHERE variant_id = ?"
                " ORDER BY ply",
                (self.variant_id,),
            ).fetchall()
        plies = tuple(PlyCount(r[0], r[1], r[2]) for r in rows)
        outcomes = {"win": sum(r[3] for r in rows), "loss": sum(r[4] for r in rows), "draw": sum(r[5] for r in rows)}
        terminal = sum(r[6] for r in rows)
        return Stats(self.name, plies, outcomes, terminal)

    def dump(self) -> tuple[list[tuple[int, str, str, bool, str, int | None]], list[tuple[int, str, int]]]:
        """Every stored state as (id, key, to_move, terminal, outcome, distance) and every
        stored move as (from_state, move, to_state), read in one snapshot."""
        with self._snapshot() as conn:
            states = conn.execute(
                "SELECT id, key, to_move, terminal, outcome, distance FROM states WHERE variant_id = ? ORDER BY id",
                (self.variant_id,),
            ).fetchall()
            moves = conn.execute(
                "SELECT m.from_state, m.move, m.to_state FROM moves AS m JOIN states AS s ON s.id = m.from_state"
                " WHERE s.variant_id = ? ORDER BY m.from_state",
                (self.variant_id,),
            ).fetchall()
        return states, moves

    def rows(self) -> Iterator[tuple[int, str, str, bool, str, int | None]]:
        """Every stored state as (id, key, to_move, terminal, outcome, distance)."""
        yield from self.dump()[0]


def _file_id(path: Path) -> tuple[int, int]:
    st = os.stat(path)
    return st.st_dev, st.st_ino


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
    plies = count_plies(game, symmetry=symmetry, progress=progress)
    return Stats(
        name,
        tuple(PlyCount(p.ply, p.positions, p.classes) for p in plies),
        outcomes={},
        terminal=sum(p.terminal for p in plies),
    )


__all__ = [
    "DEFAULT_DB",
    "Line",
    "MoveValue",
    "PlyCount",
    "Predecessor",
    "Probe",
    "SolveReport",
    "Stats",
    "Tablebase",
    "TablebaseError",
    "UnknownVariantError",
    "VariantInfo",
    "VariantTable",
    "VerifyReport",
    "count",
    "open",
]
