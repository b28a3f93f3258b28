"""The HTTP JSON API and the web board over :mod:`tablebase.query`.

``create_app(path)`` builds a FastAPI application that only reads the
tablebase file; ``run(path, host, port)`` serves it with uvicorn (that is
what ``tablebase serve`` calls). Endpoints, all ``GET`` (``HEAD`` answers
the same without a body):

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
import hashlib
import json
import os
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, get_type_hints
from urllib.parse import parse_qsl

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from pydantic import BaseModel, Field, create_model

import tablebase
from tablebase import games
from tablebase.errors import (
    DatabaseError,
    IllegalMoveError,
    MalformedPositionError,
    TablebaseError,
    UnknownVariantError,
    UnreachablePositionError,
    VariantNotBuiltError,
    error_dict,
    quote,
)
from tablebase.games.base import Layout
from tablebase.games.base import parse_position as parse_text
from tablebase.outcome import Outcome
from tablebase.query import PROBE_BUDGET, Tablebase
from tablebase.results import Probe, VariantInfo
from tablebase.serve.analysis import Analysis, BusyError, NotProvedError
from tablebase.serve.hub import RemoteSolvers
from tablebase.serve.workers import KEPT_POSITIONS, MEMORY_CAP, Solvers
from tablebase.variant import VariantTable

STATIC = Path(__file__).with_name("static")
#: Seconds browsers and shared caches may keep an answer (``tablebase serve --max-age``).
MAX_AGE = 3600

class NotSolvedError(UnreachablePositionError):
    """A position of a variant explored by search that this server has not proved."""

    kind = "not_solved"


class NotEnumeratedError(VariantNotBuiltError):
    """A question only an enumerated (built) variant can answer."""

    kind = "not_enumerated"


#: HTTP status of each library error, most specific first (the error kind is the class's ``kind``).
ERROR_STATUS: tuple[tuple[type[TablebaseError], int], ...] = (
    (MalformedPositionError, 400),
    (IllegalMoveError, 400),
    (NotSolvedError, 404),
    (NotEnumeratedError, 404),
    (UnknownVariantError, 404),
    (VariantNotBuiltError, 404),
    (UnreachablePositionError, 404),
    (NotProvedError, 503),
    (BusyError, 503),
    (DatabaseError, 500),
    (TablebaseError, 500),
)

PositionQuery = Query(
    None,
    description="Position in the variant's notation, e.g. `x.o/.x./...` (default: the start).",
    examples=["x.o/.x./..."],
)


# -- response shapes (for the OpenAPI description; tests check replies against them) --


class ErrorReply(BaseModel):
    """An error: a stable kind for programs and a one-line message for people."""

    error: str = Field(description="malformed_position, illegal_move, unknown_variant, variant_not_built, ...")
    detail: str


class MoveReply(BaseModel):
    """A legal move and what it achieves for the player making it."""

    move: str
    position: str = Field(description="The position after the move.")
    outcome: Outcome | None = Field(
        description="null only for a move of a position solved with its value alone that the probe could not prove in time."
    )
    distance: int | None = Field(description="Plies to the end from the probed position; null: perpetual draw.")


class ProbeReply(BaseModel):
    """The value of a position for the side to move, and every legal move, best first."""

    variant: str
    position: str
    to_move: str
    outcome: Outcome
    distance: int | None
    moves: list[MoveReply] = Field(
        description="Fastest win first, then draws, then the slowest loss; empty at the end."
    )


class VariantReply(BaseModel):
    """A built variant."""

    variant: str
    states: int
    moves: int = Field(description="Stored moves (0 when the layout derives them from the rules).")
    storage: str = Field(description="How the variant is stored: the name of its storage layout.")
    symmetry: bool
    complete: bool = Field(
        description="Every reachable position is stored; false for variants explored by search (`/solve`)."
    )
    outcome: Outcome | None = Field(description="Value of the start for the first player; null while unproved.")
    distance: int | None
    family: str
    rules: str
    parameters: dict[str, Any]
    players: list[str] = Field(description="The two players, first player first.")
    start: str = Field(description="The start position.")


class LineReply(BaseModel):
    """The perfect line: best moves to the end or to the first repeated position."""

    variant: str
    position: str
    outcome: Outcome
    moves: list[str]
    positions: list[str] = Field(description="The position after each move.")
    repeats: bool = Field(description="True when the line stopped at a repetition (perpetual play).")


class PredecessorReply(BaseModel):
    position: str
    move: str = Field(description="The move that leads from `position` to the queried position.")


class PredecessorsReply(BaseModel):
    variant: str
    position: str
    predecessors: list[PredecessorReply]


class CellReply(BaseModel):
    name: str
    x: float
    y: float


class RegionReply(BaseModel):
    name: str
    cells: list[str]


def typed_dict_model(name: str, shape: type, doc: str, **fields: Any) -> type[BaseModel]:
    """A reply model with the keys of the TypedDict ``shape`` in its order, after the extra ``fields``
    (``name=(type, default)``); a field of ``fields`` that ``shape`` also has replaces its plain form."""
    keys = {key: (hint, ...) for key, hint in get_type_hints(shape).items()}
    ordered = {**{k: v for k, v in fields.items() if k not in keys}, **keys}
    return create_model(name, __doc__=doc, **{k: fields.get(k, v) for k, v in ordered.items()})


LayoutReply = typed_dict_model(
    "LayoutReply",
    Layout,
    "Board geometry; the contract is the docstring of ``Game.layout`` (tablebase/games/base.py).",
    variant=(str, ...),
    cells=(list[CellReply], Field(description="Cells in the order of the board characters of a position.")),
    regions=(list[RegionReply], Field(default=[], description="Named groups of cells (Ultimate's fields).")),
    click_moves=(dict[str, str], Field(default={}, description="Cell name -> the move one click on it plays.")),
    gravity=(bool, Field(default=False, description="Pieces fall to the lowest empty cell of their column.")),
)


class BoardMoveReply(BaseModel):
    move: str
    position: str = Field(description="The position after the move.")


class BoardReply(BaseModel):
    """A position as the rules see it, whether the tablebase holds it or not."""

    variant: str
    position: str
    to_move: str
    outcome: Outcome | None = Field(description="The result for the side to move when the game is over, else null.")
    active: list[str] = Field(description="Regions of the layout the side to move must play in.")
    owners: dict[str, str] = Field(description="Region name -> the player who owns it (a won field).")
    line: list[str] = Field(default=[], description="Cells of the line that ended the game (empty if none).")
    moves: list[BoardMoveReply] = Field(description="Every legal move, in the rules' order.")


class SolveReply(ProbeReply):
    """A proved position: the probe, and whether the tablebase file holds it."""

    stored: bool = Field(description="The file holds the position; false: proved by this server, kept in memory.")


class HealthReply(BaseModel):
    """Whether the server can read its file."""

    status: str = Field(description="ok or error")
    file: str = Field(description="The tablebase file's name.")
    variants: int = Field(description="Variants built into the file.")
    detail: str | None = Field(default=None, description="What could not be read.")


ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorReply, "description": "Malformed position or illegal move."},
    404: {"model": ErrorReply, "description": "Unknown or unbuilt variant, or a position not in the tablebase."},
    414: {"model": ErrorReply, "description": "Request address (path and query) over 64 KiB: error `uri_too_long`."},
}


#: Longest request address (path and query string) served, in bytes.
MAX_ADDRESS = 64 * 1024


class LongAddress:
    """Answers a request whose address exceeds :data:`MAX_ADDRESS` with a JSON 414."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            size = len(scope.get("raw_path") or scope["path"].encode()) + len(scope.get("query_string", b""))
            if size > MAX_ADDRESS:
                reply = JSONResponse(
                    {"error": "uri_too_long", "detail": f"request address of {size:,} bytes exceeds {MAX_ADDRESS:,}"},
                    status_code=414,
                )
                await reply(scope, receive, send)
                return
        await self.app(scope, receive, send)


#: Error kind of the HTTP errors the framework raises itself (unknown route, wrong method).
HTTP_ERRORS = {404: "not_found", 405: "method_not_allowed"}


class HeadAsGet:
    """Answers ``HEAD`` like ``GET`` without the body (the routes are declared for ``GET`` only)."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def headers_only(message: Message) -> None:
            if message["type"] == "http.response.body":
                if not message.get("more_body", False):
                    await send({"type": "http.response.body", "body": b""})
                return
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, headers_only)


def parse_position(game: games.Game, position: str | None) -> int:
    """The state of ``position`` in ``game`` (``None``: the start; an empty string is malformed)."""
    return game.initial_state() if position is None else parse_text(game, position)


def entity_tag(*parts: object) -> str:
    """A strong ``ETag`` value naming ``parts``."""
    digest = hashlib.blake2b(repr(parts).encode(), digest_size=12).hexdigest()
    return f'"{digest}"'


def request_identity(request: Request) -> tuple[str, str]:
    """What of a request its answer depends on: the path and the query string."""
    return scope_identity(request.scope)


def scope_identity(scope: Scope) -> tuple[str, str]:
    """:func:`request_identity` from the ASGI scope."""
    return scope["path"], scope.get("query_string", b"").decode("latin-1")


def matches(request: Request, tag: str) -> bool:
    """Whether ``If-None-Match`` of ``request`` names ``tag`` (weak or strong) or is ``*``."""
    return names_tag(request.headers.get("if-none-match"), tag)


def names_tag(header: str | None, tag: str) -> bool:
    """Whether the ``If-None-Match`` value ``header`` names ``tag`` (weak or strong) or is ``*``."""
    if not header:
        return False
    names = [name.strip().removeprefix("W/") for name in header.split(",")]
    return tag in names or "*" in names


def render_json(data: Any) -> bytes:
    """``data`` as the JSON bytes of a ``JSONResponse``."""
    return json.dumps(data, ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":")).encode()


#: What :class:`FastProbes` asks of a request: ``(variant, position or None, scope, If-None-Match)`` ->
#: ``(status, headers, body)``, or ``None`` to leave the request to the application.
FastAnswer = Callable[[str, "str | None", Scope, "str | None"], "tuple[int, list[tuple[bytes, bytes]], bytes] | None"]


class FastProbes:
    """Answers ``GET``/``HEAD /api/{variant}?position=P`` of a built variant with ``answer``, without
    the framework's routing and parameter checks (about half the processor time of a probe, the
    hot path of a service). Anything else goes to the application: another path or parameter, a
    request with an ``Origin`` (CORS headers), and every error, which the application answers
    again. The reply is the route's: the same ``answer`` makes both."""

    def __init__(self, app: ASGIApp, answer: FastAnswer):
        self.app = app
        self.answer = answer

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] in ("GET", "HEAD"):
            reply = self._reply(scope)
            if reply is not None:
                status, headers, body = reply
                if status != 304:
                    headers.append((b"content-length", str(len(body)).encode()))
                await send({"type": "http.response.start", "status": status, "headers": headers})
                await send({"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body})
                return
        await self.app(scope, receive, send)

    def _reply(self, scope: Scope) -> tuple[int, list[tuple[bytes, bytes]], bytes] | None:
        path: str = scope["path"]
        if not path.startswith("/api/") or "/" in path[5:] or len(path) == 5:
            return None
        origin = match = None
        for name, value in scope["headers"]:
            if name == b"origin":
                origin = value
            elif name == b"if-none-match":
                match = value.decode("latin-1")
        if origin is not None:
            return None
        query = scope.get("query_string", b"")
        position = None
        if query:
            try:
                pairs = parse_qsl(query.decode("latin-1"), keep_blank_values=True, strict_parsing=True)
            except ValueError:
                return None
            if len(pairs) != 1 or pairs[0][0] != "position":
                return None
            position = pairs[0][1]
        return self.answer(path[5:], position, scope, match)


class Caching:
    """The caching headers of a server whose answers may be kept ``max_age`` seconds; its tags name
    the ``version`` of the package that made the answers."""

    def __init__(self, max_age: int, version: str):
        self.max_age = max_age
        self.version = version
        self.control = f"public, max-age={max_age}, s-maxage={max_age}" if max_age > 0 else "no-cache"

    def tag(self, *parts: object) -> str:
        """The ``ETag`` of an answer determined by ``parts`` (and the version)."""
        return entity_tag(self.version, *parts)

    def headers(self, tag: str) -> dict[str, str]:
        return {"ETag": tag, "Cache-Control": self.control}

    def not_modified(self, tag: str) -> Response:
        return Response(status_code=304, headers=self.headers(tag))

    def tagged(self, request: Request, tag: str, make: Callable[[], Any]) -> Response:
        """``304`` if the client holds ``tag``, else the JSON of ``make()`` tagged with it."""
        if matches(request, tag):
            return self.not_modified(tag)
        return JSONResponse(make(), headers=self.headers(tag))

    def by_content(self, request: Request, data: Any, extra: dict[str, str] | None = None) -> Response:
        """``data`` as JSON tagged by its content (``304`` if the client holds it); ``extra`` headers
        are added (or replace ``Cache-Control``)."""
        body = render_json(data)
        tag = self.tag(hashlib.blake2b(body, digest_size=16).hexdigest())
        headers = {**self.headers(tag), **(extra or {})}
        if matches(request, tag):
            return Response(status_code=304, headers=headers)
        return Response(body, media_type="application/json", headers=headers)


NO_STORE = {"Cache-Control": "no-store"}


def error_detail(exc: TablebaseError, path: Path | None = None) -> str:
    """The message of a library error, naming the database ``path`` by its file name only."""
    return error_dict(exc, path)["detail"]


def error_reply(exc: TablebaseError, path: Path | None = None, headers: dict[str, str] | None = None) -> JSONResponse:
    """The JSON error response for a library error; the database ``path`` is named by its file name only."""
    for kind, status in ERROR_STATUS:
        if isinstance(exc, kind):
            return JSONResponse(error_dict(exc, path), status_code=status, headers={**NO_STORE, **(headers or {})})
    raise AssertionError("TablebaseError is the last entry")  # pragma: no cover


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
        (with a pool, without searching in this process)."""
        probe = analysis.known(game, state, search=pool is None)
        if probe is None and pool is not None:
            probe = await pool.lookup(game, state)
        return probe

    def stored(game: games.Game, state: int) -> bool:
        """Whether the file holds ``state`` of ``game`` (with its value at least)."""
        table = tb.get_variant(game.name)
        return table is not None and table.get_probe(game.format_position(state), search=False) is not None

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

    @app.exception_handler(TablebaseError)
    async def on_tablebase_error(request: Request, exc: TablebaseError) -> JSONResponse:
        if isinstance(exc, BusyError):
            wait = getattr(exc, "retry_after", None)
            if wait is None:
                wait = pool.retry_after() if pool is not None else int(analysis.max_seconds)
            return error_reply(exc, tb.path, {"Retry-After": str(wait)})
        return error_reply(exc, tb.path)

    @app.exception_handler(RequestValidationError)
    async def on_bad_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        problem = exc.errors()[0]
        where = ".".join(str(part) for part in problem["loc"][1:]) or "request"
        return JSONResponse(
            {"error": "bad_request", "detail": f"{where}: {problem['msg']}"}, status_code=400, headers=NO_STORE
        )

    @app.exception_handler(HTTPException)
    async def on_http_error(request: Request, exc: HTTPException) -> JSONResponse:
        kind = HTTP_ERRORS.get(exc.status_code, "http_error")
        detail = f"{request.method} {quote(request.url.path)}: {str(exc.detail).lower()}"
        return JSONResponse(
            {"error": kind, "detail": detail}, status_code=exc.status_code, headers={**NO_STORE, **(exc.headers or {})}
        )

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
        server proved; a position not proved yet is 404 ``not_solved``.
        """
        game = games.get(variant)
        if game.enumerable:
            return built(request, variant, lambda table: table.probe(position).to_dict())
        state = parse_position(game, position)
        found = await known(game, state)
        if found is None and pool is not None:
            table = tb.get_variant(game.name)
            if table is not None and table.get_probe(game.format_position(state), search=False) is not None:
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
    ) -> Response:
        """The probe of a position of any variant, proved by search if the tablebase lacks it.

        The answer comes from the tablebase file, else from what this server
        proved earlier, else from a search of at most ``time_limit`` seconds;
        503 ``not_proved`` when the search runs out of time, 503 ``busy``
        when every solver is busy. ``stored`` is true when the tablebase file
        holds the position (a ``--write`` server stores what it proves), false
        when the proof is kept in the server's memory only; closing the request
        stops its search. Every answer is proved, so it may be cached.
        """
        game = served(variant)
        state = parse_position(game, position)
        probe = await known(game, state)
        if probe is None:
            seconds = analysis.limit(time_limit)
            if pool is None:
                probe = await run_in_threadpool(analysis.solve, game, state, seconds)
            else:
                probe = await pool.solve(game, state, seconds, request.is_disconnected)
        keep = stored(game, state)
        return caching.by_content(
            request, {**probe.to_dict(), "stored": keep}, {"Tablebase-Answer": "stored" if keep else "proved"}
        )

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


#: Environment variables of :func:`from_environment` (what ``tablebase serve`` passes to its HTTP processes).
ENVIRONMENT = {
    "TABLEBASE_DB": "the tablebase file (default: tablebase.db)",
    "TABLEBASE_SOLVERS": "search workers of this HTTP process (0: search on a thread; default: one per core but one)",
    "TABLEBASE_SOLVER_MEMORY": "memory in MB a search worker may keep (default 1024)",
    "TABLEBASE_WRITE": "1: store what searches prove in the file",
    "TABLEBASE_MAX_AGE": f"seconds caches may keep an answer (default {MAX_AGE})",
    "TABLEBASE_SOLVER_HUB": "set by tablebase serve --workers N: the socket of the shared search pool",
}


def _number(name: str, default: int | None) -> int | None:
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"{name}={text!r} is not a whole number") from None
    if value < 0:
        raise ValueError(f"{name}={text!r} is negative")
    return value


def from_environment() -> FastAPI:
    """The application of :func:`create_app`, configured by the environment (:data:`ENVIRONMENT`): the
    app factory of one HTTP process, for ``uvicorn --factory tablebase.serve:from_environment`` or
    gunicorn's ``tablebase.serve:from_environment()``."""
    memory = _number("TABLEBASE_SOLVER_MEMORY", 1024)
    max_age = _number("TABLEBASE_MAX_AGE", MAX_AGE)
    assert memory is not None and max_age is not None
    return create_app(
        os.environ.get("TABLEBASE_DB") or tablebase.DEFAULT_DB,
        solvers=_number("TABLEBASE_SOLVERS", None),
        memory_cap=memory << 20,
        write=os.environ.get("TABLEBASE_WRITE", "") == "1",
        max_age=max_age,
        solver_hub=os.environ.get("TABLEBASE_SOLVER_HUB") or None,
    )


def default_workers() -> int:
    """HTTP processes of ``tablebase serve``: one per core."""
    return max(1, os.cpu_count() or 1)


def run(
    db: str | os.PathLike[str],
    host: str = "127.0.0.1",
    port: int = 8000,
    access_log: bool = False,
    solvers: int | None = None,
    memory_cap: int = MEMORY_CAP,
    write: bool = False,
    workers: int = 1,
    max_age: int = MAX_AGE,
) -> None:
    """Serve ``db`` until interrupted or sent ``SIGTERM`` (then requests in flight finish, searches
    are stopped and it returns), searching in ``solvers`` worker processes (see :func:`create_app`);
    raises the library's error at once if the file is not a tablebase.

    ``workers`` HTTP processes share the port (:class:`tablebase.serve.running.Supervisor`); their
    searches run in one pool of ``solvers`` processes owned by this process (:mod:`tablebase.serve.hub`).
    """
    from tablebase.serve.running import Server, listening_sockets

    if workers < 1:
        raise ValueError(f"invalid number of HTTP workers: {workers!r} (at least 1)")
    with tablebase.open(db) as tb:
        tb.variants()
    try:
        sockets = listening_sockets(host, port, workers)
    except OSError as exc:
        raise TablebaseError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    try:
        shown = sockets[0].getsockname()[1]
        print(f"web board: http://{host}:{shown}/   API description: http://{host}:{shown}/docs", file=sys.stderr)
        options: dict[str, Any] = {"host": host, "port": shown, "access_log": access_log, "log_level": "info"}
        if workers == 1:
            app = create_app(db, solvers, memory_cap, write, max_age)
            pool = app.state.solvers
            Server(config(app, **options), pool.cancel if pool is not None else lambda: None).run(sockets=sockets)
        else:
            _run_processes(db, sockets, workers, options, solvers, memory_cap, write, max_age)
    finally:
        for sock in sockets:
            sock.close()


def _run_processes(
    db: str | os.PathLike[str],
    sockets: list[Any],
    workers: int,
    options: dict[str, Any],
    solvers: int | None,
    memory_cap: int,
    write: bool,
    max_age: int,
) -> None:
    """``workers`` HTTP processes on ``sockets`` and the one pool of solvers they share."""
    from tablebase.serve.hub import SolverHub
    from tablebase.serve.running import Supervisor

    hub = SolverHub(Solvers(db, solvers, memory_cap, write=write)).start() if solvers != 0 else None
    settings = {
        "TABLEBASE_DB": str(Path(db).absolute()),
        "TABLEBASE_SOLVERS": "0" if hub is None else "",
        "TABLEBASE_SOLVER_MEMORY": str(memory_cap >> 20),
        "TABLEBASE_WRITE": "1" if write else "",
        "TABLEBASE_MAX_AGE": str(max_age),
        "TABLEBASE_SOLVER_HUB": hub.address if hub is not None else "",
    }
    before = {name: os.environ.get(name) for name in settings}
    os.environ.update(settings)
    try:
        setup = config("tablebase.serve.app:from_environment", factory=True, **options)
        Supervisor(setup, sockets, workers, hub.cancel if hub is not None else lambda: None).run()
    finally:
        if hub is not None:
            hub.close()
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


#: Seconds a stopping server waits for the requests in flight before it cancels them.
SHUTDOWN_SECONDS = 30


def config(app: ASGIApp | str, **options: Any) -> Any:
    """The ``uvicorn.Config`` serving ``app`` (or the app an import string names): requests the HTTP
    parser refuses (an address too long for it) are answered with a JSON 400 ``bad_request``, and
    addresses up to 1 MB reach the application (which answers those over :data:`MAX_ADDRESS` with
    a JSON 414)."""
    import uvicorn

    from tablebase.serve.running import protocol

    return uvicorn.Config(
        app,
        http=protocol(),
        h11_max_incomplete_event_size=1 << 20,
        timeout_graceful_shutdown=SHUTDOWN_SECONDS,
        **options,
    )
