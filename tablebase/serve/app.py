"""The HTTP JSON API and the web board over :mod:`tablebase.query`.

``create_app(path)`` builds a FastAPI application that only reads the
tablebase file; ``run(path, host, port)`` serves it with uvicorn (that is
what ``tablebase serve`` calls). Endpoints, all ``GET``:

``/api/variants``
    every built variant: rules, players, start position, counts, result;
``/api/{variant}?position=P``
    the probe of ``P`` (default: the start), the JSON of ``tablebase probe --json``;
``/api/{variant}/line?position=P``
    the perfect line from ``P``;
``/api/{variant}/predecessors?position=P``
    the positions one move before ``P``;
``/api/{variant}/layout``
    the board geometry of :meth:`tablebase.games.base.Game.layout`;
``/``
    the web board (``static/``); ``/docs`` and ``/openapi.json`` describe the API.

Errors are JSON ``{"error": kind, "detail": message}``: 400 for a malformed
position or an illegal move, 404 for an unknown or unbuilt variant and for a
well-formed position the tablebase does not hold (it is not reachable from
the start: the position exists as a string but not as a resource here), 501
for a variant without a board layout.

Handlers are coroutines that call the synchronous query layer directly: each
query is a handful of indexed SQLite reads (well under a millisecond), so
running them on the event loop is faster than a hop to a thread pool, and the
single read-only connection is never used by two threads at once.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Literal

from fastapi import FastAPI, Query, Request
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field

import tablebase
from tablebase.errors import (
    DatabaseError,
    IllegalMoveError,
    MalformedPositionError,
    TablebaseError,
    UnknownVariantError,
    UnreachablePositionError,
    VariantNotBuiltError,
)
from tablebase.outcome import Outcome
from tablebase.query import Tablebase

STATIC = Path(__file__).with_name("static")

#: HTTP status and error kind of each library error, most specific first.
ERROR_STATUS: tuple[tuple[type[TablebaseError], int, str], ...] = (
    (MalformedPositionError, 400, "malformed_position"),
    (IllegalMoveError, 400, "illegal_move"),
    (UnknownVariantError, 404, "unknown_variant"),
    (VariantNotBuiltError, 404, "variant_not_built"),
    (UnreachablePositionError, 404, "unreachable_position"),
    (DatabaseError, 500, "database_error"),
    (TablebaseError, 500, "tablebase_error"),
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
    outcome: Outcome | None = Field(description="Value of the start for the first player.")
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


class LayoutReply(BaseModel):
    """Board geometry; the contract is the docstring of ``Game.layout`` (tablebase/games/base.py)."""

    variant: str
    cells: list[CellReply] = Field(description="Cells in the order of the board characters of a position.")
    shape: Literal["square", "circle"]
    edges: list[tuple[str, str]]
    separators: str
    empty: str
    pieces: dict[str, str]
    move_separator: str


ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorReply, "description": "Malformed position or illegal move."},
    404: {"model": ErrorReply, "description": "Unknown or unbuilt variant, or a position not in the tablebase."},
}


def error_reply(exc: TablebaseError) -> JSONResponse:
    """The JSON error response for a library error."""
    for kind, status, name in ERROR_STATUS:
        if isinstance(exc, kind):
            return JSONResponse({"error": name, "detail": str(exc)}, status_code=status)
    raise AssertionError("TablebaseError is the last entry")  # pragma: no cover


def create_app(db: str | os.PathLike[str] | Tablebase = tablebase.DEFAULT_DB) -> FastAPI:
    """The application serving the tablebase file ``db`` (or an open :class:`Tablebase`).

    A path is opened read-only on first use and closed at shutdown; a
    ``Tablebase`` passed in stays open (its owner closes it).
    """
    tb = db if isinstance(db, Tablebase) else tablebase.open(db)
    owned = tb is not db

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
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
    app.add_middleware(CORSMiddleware, allow_origins=["*"], allow_methods=["GET"])

    @app.exception_handler(TablebaseError)
    async def on_tablebase_error(request: Request, exc: TablebaseError) -> JSONResponse:
        return error_reply(exc)

    @app.get("/api/variants", response_model=list[VariantReply], tags=["api"])
    async def variants() -> JSONResponse:
        """Every variant built into the database (variants whose rules this version lacks are left out)."""
        out = []
        for info in tb.variants():
            try:
                game = tb.variant(info.name).game
            except UnknownVariantError:
                continue
            out.append(info.to_dict(game))
        return JSONResponse(out)

    @app.get("/api/{variant}", response_model=ProbeReply, responses=ERRORS, tags=["api"])
    async def probe(variant: str, position: str | None = PositionQuery) -> JSONResponse:
        """Outcome and distance of a position and of every legal move, best first."""
        return JSONResponse(tb.variant(variant).probe(position).to_dict())

    @app.get("/api/{variant}/line", response_model=LineReply, responses=ERRORS, tags=["api"])
    async def line(variant: str, position: str | None = PositionQuery) -> JSONResponse:
        """The perfect line from a position to the end (or to the first repetition)."""
        return JSONResponse(tb.variant(variant).line(position).to_dict())

    @app.get("/api/{variant}/predecessors", response_model=PredecessorsReply, responses=ERRORS, tags=["api"])
    async def predecessors(variant: str, position: str | None = PositionQuery) -> JSONResponse:
        """Every position one move before the given one, with the move that leads here."""
        return JSONResponse(tb.variant(variant).predecessors(position).to_dict())

    @app.get(
        "/api/{variant}/layout",
        response_model=LayoutReply,
        responses={**ERRORS, 501: {"model": ErrorReply, "description": "The variant has no board layout yet."}},
        tags=["api"],
    )
    async def layout(variant: str) -> JSONResponse:
        """Cells with coordinates, how positions and moves name them: enough to draw and play any variant."""
        table = tb.variant(variant)
        board = table.game.layout()
        if board is None:
            return JSONResponse(
                {"error": "no_layout", "detail": f"variant {table.name!r} has no board layout yet"}, status_code=501
            )
        return JSONResponse({"variant": table.name, **board})

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app


def run(db: str | os.PathLike[str], host: str = "127.0.0.1", port: int = 8000, access_log: bool = False) -> None:
    """Serve ``db`` until interrupted; raises the library's error at once if the file is not a tablebase."""
    import uvicorn

    with tablebase.open(db) as tb:
        tb.variants()
    print(f"web board: http://{host}:{port}/   API description: http://{host}:{port}/docs", file=sys.stderr)
    uvicorn.run(create_app(db), host=host, port=port, access_log=access_log, log_level="info")
