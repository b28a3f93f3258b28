"""ASGI wrappers round the application: the address limit, ``HEAD`` as ``GET``, and the fast probe path."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import parse_qsl

from fastapi.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send


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
