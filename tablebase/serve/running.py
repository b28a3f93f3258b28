"""The uvicorn pieces of ``tablebase serve``: JSON errors from the HTTP parser, a clean stop on
``SIGTERM``, and the supervisor of several HTTP processes sharing one pool of search workers."""

from __future__ import annotations

import signal
from collections.abc import Callable
from types import FrameType

import uvicorn
from uvicorn.supervisors.multiprocess import Multiprocess

try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
except ImportError:  # pragma: no cover - uvicorn without httptools
    HttpToolsProtocol = None  # type: ignore[misc,assignment,unused-ignore]


if HttpToolsProtocol is not None:

    class JsonErrors(HttpToolsProtocol):  # type: ignore[misc,valid-type,unused-ignore]
        """uvicorn's fastest HTTP protocol, with a JSON body on its own 400 replies."""

        def send_400_response(self, msg: str) -> None:
            import json

            body = json.dumps(
                {"error": "bad_request", "detail": f"{msg.rstrip('.').lower()} (an address over 64 KB, or malformed)"}
            ).encode()
            head = [b"HTTP/1.1 400 Bad Request\r\n"]
            for name, value in self.server_state.default_headers:
                head.append(name + b": " + value + b"\r\n")
            head.append(b"content-type: application/json\r\ncontent-length: %d\r\nconnection: close\r\n\r\n" % len(body))
            self.transport.write(b"".join(head) + body)
            self.transport.close()


def protocol() -> type | str:
    """The HTTP protocol ``tablebase serve`` runs (by reference, so HTTP processes can import it)."""
    return JsonErrors if HttpToolsProtocol is not None else "h11"


class Server(uvicorn.Server):
    """A uvicorn server that calls ``on_stop`` (stop the searches) when told to stop, and ends
    normally on ``SIGTERM``: requests in flight finish, then the process exits with code 0."""

    def __init__(self, config: uvicorn.Config, on_stop: Callable[[], None]):
        super().__init__(config)
        self.on_stop = on_stop

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        self.on_stop()
        if sig == signal.SIGTERM and not self.should_exit:
            self.should_exit = True
            return
        super().handle_exit(sig, frame)


class Supervisor(Multiprocess):
    """uvicorn's supervisor of several HTTP processes on one socket, calling ``on_stop`` first when
    told to stop (``SIGINT``, ``SIGTERM``)."""

    def __init__(self, config: uvicorn.Config, sockets: list[object], on_stop: Callable[[], None]):
        super().__init__(config, sockets)  # type: ignore[arg-type]
        self.on_stop = on_stop

    def handle_int(self) -> None:
        self.on_stop()
        super().handle_int()

    def handle_term(self) -> None:
        self.on_stop()
        super().handle_term()


__all__ = ["Server", "Supervisor", "protocol"]
