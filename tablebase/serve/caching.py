"""Caching headers: a built tablebase does not change until it is rebuilt, so its answers may be kept.

An answer is tagged (``ETag``) by what determines it; a request whose
``If-None-Match`` names the tag is answered ``304`` with no body.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse, Response
from starlette.types import Scope

#: Seconds browsers and shared caches may keep an answer (``tablebase serve --max-age``).
MAX_AGE = 3600
#: The headers of a reply no cache may keep (errors, ``/health``, ``503``).
NO_STORE = {"Cache-Control": "no-store"}


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
