"""How the server answers errors: JSON ``{"error": kind, "detail": message}`` with a status per kind.

A library error gets the status of :data:`ERROR_STATUS`, a malformed request
``400 bad_request``, the framework's own errors (unknown route, wrong method)
the kinds of :data:`HTTP_ERRORS`; none may be cached. Messages name the
database file but not its folder.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

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
from tablebase.serve.analysis import BusyError, NotProvedError
from tablebase.serve.caching import NO_STORE


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


#: Error kind of the HTTP errors the framework raises itself (unknown route, wrong method).
HTTP_ERRORS = {404: "not_found", 405: "method_not_allowed"}


def error_detail(exc: TablebaseError, path: Path | None = None) -> str:
    """The message of a library error, naming the database ``path`` by its file name only."""
    return error_dict(exc, path)["detail"]


def error_reply(exc: TablebaseError, path: Path | None = None, headers: dict[str, str] | None = None) -> JSONResponse:
    """The JSON error response for a library error; the database ``path`` is named by its file name only."""
    for kind, status in ERROR_STATUS:
        if isinstance(exc, kind):
            return JSONResponse(error_dict(exc, path), status_code=status, headers={**NO_STORE, **(headers or {})})
    raise AssertionError("TablebaseError is the last entry")  # pragma: no cover


def add_error_handlers(app: FastAPI, path: Path, retry_after: Callable[[], int]) -> None:
    """Answer every error ``app`` raises as JSON; the database ``path`` is named by its file name only,
    and a ``busy`` reply carries ``Retry-After`` (the error's own, else ``retry_after()``)."""

    @app.exception_handler(TablebaseError)
    async def on_tablebase_error(request: Request, exc: TablebaseError) -> JSONResponse:
        if isinstance(exc, BusyError):
            wait = getattr(exc, "retry_after", None)
            if wait is None:
                wait = retry_after()
            return error_reply(exc, path, {"Retry-After": str(wait)})
        return error_reply(exc, path)

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
