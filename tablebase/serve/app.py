"""The HTTP JSON API and the web board over :mod:`tablebase.query`.

``create_app(path)`` builds a FastAPI application that only reads the
tablebase file (:func:`tablebase.serve.launch.run` serves it with uvicorn:
that is what ``tablebase serve`` calls). Endpoints, all ``GET`` (``HEAD``
answers the same without a body):

``/api/variants``
    every built variant, and every variant explored by search (``complete``
    false): rules, players, start position, counts, result;
``/api/{variant}?position=P``
    the probe of ``P`` (default: the start), the JSON of ``tablebase probe --json``;
``/api/{variant}/line?position=P``
    the perfect line from ``P``;
``/api/{variant}/predecessors?position=P``
    the positions one move before ``P``;
``/api/{variant}/layout``
    the board geometry of :meth:`tablebase.games.base.Game.layout`;
``/api/{variant}/board?position=P``
    what a drawing of ``P`` needs, from the rules alone: legal moves, the
    position after each, marked regions (Ultimate's active and won fields);
``/api/{variant}/solve?position=P&time_limit=S``
    the probe of ``P`` from the tablebase, from earlier searches of this
    server, or proved by a search of at most ``S`` seconds (capped at 30);
    for variants too large to build (see :mod:`tablebase.serve.analysis`);
    ``stored`` says whether the file holds the answer;
``/health``
    200 when the file and each of its variants can be read, else 503;
``/``
    the web board (``static/``); ``/docs`` and ``/openapi.json`` describe the API.

Errors are JSON ``{"error": kind, "detail": message}``: 400 for a malformed
(or explicitly empty) position or another bad parameter, 404 for an unknown
or unbuilt variant, an unknown endpoint, and a well-formed position the
tablebase does not hold (it is not reachable from the start: the position
exists as a string but not as a resource here; ``not_solved`` for a variant
explored by search), 405 for a method other than ``GET``/``HEAD``, 414 for
an address over 64 KB, 501 for a variant without a board layout, 503 when
``/solve`` runs out of time or every solver is busy (with ``Retry-After``).
Messages name the database file but not its folder.

Answers can be cached: a built tablebase does not change until it is
rebuilt. A reply about a built variant carries an ``ETag`` made of the
variant's build identity (:attr:`tablebase.variant.VariantTable.build_id`),
the version of this package and the request, and ``Cache-Control: public``
with ``max-age``/``s-maxage``; a request whose ``If-None-Match`` names it is
answered ``304`` with no body, before any lookup. A ``/solve`` answer (always
proved: an unproved position is a ``503``) and the probe of a variant
explored by search are tagged by their content. ``/api/variants`` is tagged
by its content with ``Cache-Control: no-cache`` (a new build adds to it).
Errors, ``/health`` and ``503`` replies carry ``Cache-Control: no-store``.

Handlers are coroutines that call the synchronous query layer directly: each
query is a handful of indexed SQLite reads (well under a millisecond), so
running them on the event loop is faster than a hop to a thread pool, and the
single read-only connection is never used by two threads at once. Searches
(``/solve``) run in worker processes (:mod:`tablebase.serve.workers`), so a
search never holds the interpreter that answers probes; closing the request
stops its search.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Query, Request
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool
from starlette.types import Scope

import tablebase
from tablebase import games
from tablebase.errors import TablebaseError, UnknownVariantError
from tablebase.games.notation import parse_position as parse_text
from tablebase.query import PROBE_BUDGET, Tablebase, probe_else_prove
from tablebase.results import Probe, VariantInfo
from tablebase.serve.analysis import Analysis, NotProvedError, load_rules
from tablebase.serve.caching import MAX_AGE, NO_STORE, Caching, names_tag, render_json, request_identity, scope_identity
from tablebase.serve.errors import NotEnumeratedError, NotSolvedError, add_error_handlers, error_detail
from tablebase.serve.hub import RemoteSolvers
from tablebase.serve.middleware import FastProbes, HeadAsGet, LongAddress
from tablebase.serve.replies import (
    ERRORS,
    BoardReply,
    ErrorReply,
    HealthReply,
    LayoutReply,
    LineReply,
    PredecessorsReply,
    ProbeReply,
    SolveReply,
    VariantReply,
)
from tablebase.serve.workers import KEPT_POSITIONS, MEMORY_CAP, Solvers
from tablebase.variant import VariantTable

STATIC = Path(__file__).with_name("static")

PositionQuery = Query(
    None,
    description="Position in the variant's notation, e.g. `x.o/.x./...` (default: the start).",
    examples=["x.o/.x./..."],
)


def parse_position(game: games.Game, position: str | None) -> int:
    """The state of ``position`` in ``game`` (``None``: the start; an empty string is malformed)."""
    return game.initial_state() if position is None else parse_text(game, position)


def create_app(
    db: str | os.PathLike[str] | Tablebase = tablebase.DEFAULT_DB,
    solvers: int | None = None,
    memory_cap: int = MEMORY_CAP,
    write: bool = False,
    max_age: int = MAX_AGE,
    solver_hub: str | None = None,
) -> FastAPI:
    """The application serving the tablebase file ``db`` (or an open :class:`Tablebase`).

    A path is opened read-only on first use and closed at shutdown; a
    ``Tablebase`` passed in stays open (its owner closes it). Searches run in
    at most ``solvers`` worker processes (default: one per core but one) that
    are replaced when they keep more than ``memory_cap`` bytes
    (:class:`tablebase.serve.workers.Solvers`); ``solvers=0``, or a
    ``Tablebase`` passed in, searches on a thread of this process instead.
    With ``write`` the workers store what they prove in the file (as
    ``tablebase solve`` does); the server itself only reads. ``solver_hub``:
    the address of the one pool that the HTTP processes of ``tablebase serve
    --workers N`` share (:mod:`tablebase.serve.hub`), used instead of a pool
    of this process. Answers may be cached ``max_age`` seconds.
    """
    tb = db if isinstance(db, Tablebase) else tablebase.open(db)
    owned = tb is not db
    with_pool = owned and solvers != 0
    analysis = Analysis(tb, max_positions=KEPT_POSITIONS) if with_pool and solver_hub is None else Analysis(tb)
    pool: Solvers | RemoteSolvers | None = None
    if solver_hub is not None:
        pool = RemoteSolvers(solver_hub)
    elif with_pool:
        pool = Solvers(tb.path, solvers, memory_cap, write=write, learn=analysis.remember)
    caching = Caching(max_age, tablebase.__version__)

    def served(name: str) -> games.Game:
        """The rules of ``name``: a variant built into the file, or one explored by search."""
        game = games.get(name)
        if game.enumerable:
            tb.variant(name)
        return game

    async def known(game: games.Game, state: int) -> Probe | None:
        """The probe of ``state`` from the file, from this process's searches or from the workers' answers
        (with a pool, without searching in this process; without one, the moves of a position the
        file holds with its value only are proved here)."""
        probe = analysis.known(game, state, search=pool is None)
        if probe is None and pool is not None:
            probe = await pool.lookup(game, state)
        return probe

    def stored(game: games.Game, state: int) -> bool:
        """Whether the file holds ``state`` of ``game`` (with its value at least; its shipped opening table counts)."""
        return probe_else_prove(tb, game, state, enough=lambda probe: True) is not None

    tables: dict[str, VariantTable] = {}

    def table_of(name: str) -> VariantTable:
        """The table of the variant ``name`` (whether the file still holds it is checked on each read)."""
        table = tables.get(name)
        if table is None:
            table = tables.setdefault(name, tb.variant(name))
        return table

    def built(request: Request, variant: str, make: Callable[[VariantTable], Any]) -> Response:
        """The answer ``make(table)`` about the built ``variant``, tagged by its build and the request."""
        table = table_of(variant)
        with table.snapshot():  # one read of the file for the tag and the answer
            tag = caching.tag(table.build_id, *request_identity(request))
            return caching.tagged(request, tag, lambda: make(table))

    def fast_probe(
        name: str, position: str | None, scope: Scope, match: str | None
    ) -> tuple[int, list[tuple[bytes, bytes]], bytes] | None:
        """The probe route's reply for a built variant (:class:`FastProbes`); ``None`` for anything else."""
        try:
            game = games.get(name)
            if not game.enumerable:
                return None
            table = table_of(game.name)
            with table.snapshot():
                tag = caching.tag(table.build_id, *scope_identity(scope))
                headers = [(key.lower().encode(), value.encode()) for key, value in caching.headers(tag).items()]
                headers.append((b"vary", b"Origin"))
                if names_tag(match, tag):
                    return 304, headers, b""
                body = render_json(table.probe(position).to_dict())
        except TablebaseError:
            return None
        headers.append((b"content-type", b"application/json"))
        return 200, headers, body

    def by_rules(request: Request, make: Callable[[], Any]) -> Response:
        """An answer from the rules alone, tagged by the request (and the package version)."""
        return caching.tagged(request, caching.tag("rules", *request_identity(request)), make)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        load_rules()
        yield
        if pool is not None:
            pool.close()
        if owned:
            tb.close()

    app = FastAPI(
        title="tablebase",
        version=tablebase.__version__,
        description=(
            "Exact endgame tablebases for the tic-tac-toe family. Outcomes are for the side to move; "
            "distances are plies to the end under perfect play. Read-only."
        ),
        lifespan=lifespan,
    )
    app.add_middleware(
        CORSMiddleware,
        allow_origins=["*"],
        allow_methods=["GET", "HEAD"],
        allow_headers=["If-None-Match"],
        expose_headers=["ETag", "Retry-After", "Tablebase-Answer"],
    )
    app.add_middleware(HeadAsGet)
    app.add_middleware(FastProbes, answer=fast_probe)
    app.add_middleware(LongAddress)
    app.state.solvers = pool

    add_error_handlers(app, tb.path, lambda: pool.retry_after() if pool is not None else int(analysis.max_seconds))

    @app.get("/api/variants", response_model=list[VariantReply], responses={414: ERRORS[414]}, tags=["api"])
    async def variants(request: Request) -> Response:
        """Every variant built into the database (variants whose rules this version lacks are left out),
        and the variants too large to build, explored position by position with ``/solve``."""
        out: dict[str, dict[str, Any]] = {}
        for info in tb.variants():
            try:
                game = tb.variant(info.name).game
            except UnknownVariantError:
                continue
            out[info.name] = info.to_dict(game)
        for name in games.names():
            game = games.get(name)
            if not game.enumerable and name not in out:
                out[name] = VariantInfo.unbuilt(game).to_dict(game)
        # a new build adds to the list: kept, but checked with the server each time
        return caching.by_content(request, [out[name] for name in sorted(out)], {"Cache-Control": "no-cache"})

    @app.get("/api/{variant}", response_model=ProbeReply, responses=ERRORS, tags=["api"])
    async def probe(request: Request, variant: str, position: str | None = PositionQuery) -> Response:
        """Outcome and distance of a position and of every legal move, best first.

        A variant explored by search answers from what the file and this
        server proved; a position the file holds with its value only has its
        moves proved by a search of at most 2 s, not stored; a position not
        proved yet is 404 ``not_solved``. Positions the file lacks answer from
        the opening table the game ships, if it has them.
        """
        game = games.get(variant)
        if game.enumerable:
            return built(request, variant, lambda table: table.probe(position).to_dict())
        state = parse_position(game, position)
        found = await known(game, state)
        if found is None and pool is not None and stored(game, state):
            # stored with its value only: its moves are proved in a worker
            found = await pool.solve(game, state, PROBE_BUDGET, request.is_disconnected, kind="probe")
        if found is None:
            shown = game.format_position(state)
            raise NotSolvedError(
                f"position {shown!r} of {game.name} is not solved here; prove it with /api/{game.name}/solve"
            )
        return caching.by_content(request, found.to_dict())

    @app.get("/api/{variant}/line", response_model=LineReply, responses=ERRORS, tags=["api"])
    async def line(request: Request, variant: str, position: str | None = PositionQuery) -> Response:
        """The perfect line from a position to the end (or to the first repetition)."""
        return built(request, variant, lambda table: table.line(position).to_dict())

    @app.get("/api/{variant}/predecessors", response_model=PredecessorsReply, responses=ERRORS, tags=["api"])
    async def predecessors(request: Request, variant: str, position: str | None = PositionQuery) -> Response:
        """Every position one move before the given one, with the move that leads here."""
        game = games.get(variant)
        if not game.enumerable:
            raise NotEnumeratedError(
                f"variant {game.name!r} is too large to enumerate: predecessors are listed for built variants only"
            )
        return built(request, variant, lambda table: table.predecessors(position).to_dict())

    @app.get(
        "/api/{variant}/layout",
        response_model=LayoutReply,
        responses={**ERRORS, 501: {"model": ErrorReply, "description": "The variant has no board layout yet."}},
        tags=["api"],
    )
    async def layout(request: Request, variant: str) -> Response:
        """Cells with coordinates, how positions and moves name them: enough to draw and play any variant."""
        game = served(variant)
        board = game.layout()
        if board is None:
            return JSONResponse(
                {"error": "no_layout", "detail": f"variant {game.name!r} has no board layout yet"}, status_code=501
            )
        return by_rules(request, lambda: {"variant": game.name, **board})

    @app.get("/api/{variant}/board", response_model=BoardReply, responses=ERRORS, tags=["api"])
    async def board(request: Request, variant: str, position: str | None = PositionQuery) -> Response:
        """The legal moves of a position and the regions its drawing marks, from the rules (no values)."""
        game = served(variant)
        state = parse_position(game, position)
        return by_rules(request, lambda: board_reply(game, state))

    def board_reply(game: games.Game, state: int) -> dict[str, Any]:
        marks = game.board_marks(state)
        moves = [move for move, _ in game.children(state)]
        return (
            {
                "variant": game.name,
                "position": game.format_position(state),
                "to_move": game.to_move(state),
                "outcome": game.outcome(state),
                "active": marks["active"],
                "owners": marks["owners"],
                "line": marks.get("line", []),
                "moves": [
                    {"move": game.format_move(m), "position": p}
                    for m, p in zip(moves, game.format_children(state, moves))
                ],
            }
        )

    @app.get(
        "/api/{variant}/solve",
        response_model=SolveReply,
        responses={**ERRORS, 503: {"model": ErrorReply, "description": "Not proved within the time limit, or busy."}},
        tags=["api"],
    )
    async def solve(
        request: Request,
        variant: str,
        position: str | None = PositionQuery,
        time_limit: float = Query(
            10.0, ge=0, allow_inf_nan=False, description="Seconds of search at most (capped at 30); 0: only what is already proved."
        ),
        partial: bool = Query(
            False,
            description="When the search runs out of time, 200 with what is proved so far (`proved` false,"
            " unproved values null) rather than 503 `not_proved`; asked again, the search goes on from there.",
        ),
    ) -> Response:
        """The probe of a position of any variant, proved by search if the tablebase lacks it.

        The answer comes from the tablebase file, else from what this server
        proved earlier, else from a search of at most ``time_limit`` seconds;
        503 ``not_proved`` when the search runs out of time, 503 ``busy``
        when every solver is busy (``partial``: what is proved so far instead of
        ``not_proved``, not cached). ``stored`` is true when the tablebase file
        holds the position (a ``--write`` server stores what it proves), false
        when the proof is kept in the server's memory only; closing the request
        stops its search. Every answer with ``proved`` true may be cached.
        """
        game = served(variant)
        state = parse_position(game, position)
        probe = await known(game, state)
        if probe is None:
            seconds = analysis.limit(time_limit)
            try:
                if pool is None:
                    probe = await run_in_threadpool(analysis.solve, game, state, seconds)
                else:
                    probe = await pool.solve(game, state, seconds, request.is_disconnected)
            except NotProvedError:
                if not partial:
                    raise
                return so_far(game, state)
        keep = stored(game, state)
        return caching.by_content(
            request, {**probe.to_dict(), "stored": keep, "proved": True}, {"Tablebase-Answer": "stored" if keep else "proved"}
        )

    def so_far(game: games.Game, state: int) -> JSONResponse:
        """What this process proved of ``state`` and its moves, for a partial reply of ``/solve``."""
        value, moves = analysis.so_far(game, state)
        outcome, distance = value if value is not None else (None, None)
        proved = value is not None and all(m.outcome is not None for m in moves)
        data = {
            "variant": game.name, "position": game.format_position(state), "to_move": game.to_move(state),
            "outcome": outcome, "distance": distance, "moves": [m.to_dict() for m in moves], "stored": False,
            "proved": proved,
        }
        return JSONResponse(data, headers={**NO_STORE, "Tablebase-Answer": "partial"})

    @app.get(
        "/health",
        response_model=HealthReply,
        responses={
            503: {"model": HealthReply, "description": "The file or one of its variants cannot be read."},
            414: ERRORS[414],
        },
        tags=["operations"],
    )
    async def health() -> JSONResponse:
        """Whether the file and every variant built into it can be read: the file is opened afresh, as a
        new reader would, and the start of each complete variant probed."""
        try:
            with tablebase.open(tb.path) if owned else contextlib.nullcontext(tb) as fresh:
                listed = fresh.variants()
                for info in listed:
                    table = fresh.variant(info.name)
                    if info.complete:
                        table.probe(None, search=False)
        except TablebaseError as exc:
            return health_reply(503, error_detail(exc, tb.path))
        return health_reply(200, None, len(listed))

    def health_reply(status: int, detail: str | None, count: int = 0) -> JSONResponse:
        data = {"status": "ok" if status == 200 else "error", "file": tb.path.name, "variants": count, "detail": detail}
        return JSONResponse(data, status_code=status, headers=NO_STORE)

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app
