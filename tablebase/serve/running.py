"""The uvicorn pieces of ``tablebase serve``: JSON errors from the HTTP parser, a clean stop on
``SIGTERM``, and the supervisor of several HTTP processes sharing one pool of search workers."""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from multiprocessing.process import BaseProcess
from types import FrameType

import uvicorn

logger = logging.getLogger("uvicorn.error")

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


def listening_sockets(host: str, port: int, count: int, backlog: int = 2048) -> list[socket.socket]:
    """``count`` sockets listening on ``host:port``: one per HTTP process, bound with ``SO_REUSEPORT``
    so the kernel spreads new connections evenly between them (with one shared socket, the
    process that wakes first takes most of a burst of connections and keeps them); one socket
    shared by all where the system lacks it. Port 0: the port the first one got. Raises
    ``OSError`` when the port is taken, by another such server too."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    spread = count > 1 and hasattr(socket, "SO_REUSEPORT") and sys.platform.startswith("linux")
    if spread and port:
        # another server on the port makes this fail, even one whose sockets could share it
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
    sockets: list[socket.socket] = []
    try:
        for _ in range(count if spread else 1):
            sock = socket.socket(family, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if spread:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            sock.bind((host, port))
            port = sock.getsockname()[1]
            sock.listen(backlog)
            sock.set_inheritable(True)
            sockets.append(sock)
    except OSError:
        for sock in sockets:
            sock.close()
        raise
    return sockets


def _child(config: uvicorn.Config, sock: socket.socket) -> None:
    """An HTTP process: the app of ``config`` (an import string) served on ``sock`` until ``SIGTERM``."""
    config.configure_logging()
    try:
        Server(config, lambda: None).run(sockets=[sock])
    except KeyboardInterrupt:
        pass


class Supervisor:
    """Runs one HTTP process serving ``config`` per socket of ``sockets`` (:func:`listening_sockets`;
    ``workers`` processes taking turns on one socket where there is only one), restarting one that
    dies; ``SIGINT`` or ``SIGTERM`` calls ``on_stop`` (stop the searches), then stops the processes
    (requests in flight finish) and :meth:`run` returns. The sockets stay the caller's."""

    #: A process that dies within this many seconds of its start twice in a row stops the server.
    EARLY = 5.0

    def __init__(
        self, config: uvicorn.Config, sockets: list[socket.socket], workers: int, on_stop: Callable[[], None]
    ):
        self.config = config
        self.sockets = sockets
        self.workers = workers
        self.on_stop = on_stop
        self.stopping = threading.Event()
        self._context = multiprocessing.get_context("spawn")

    def _start(self, sock: socket.socket) -> tuple[BaseProcess, float]:
        process = self._context.Process(target=_child, args=(self.config, sock), name="tablebase-http")
        process.start()
        return process, time.monotonic()

    def run(self) -> None:
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda signum, frame: self.stopping.set())
        slots = [self.sockets[i % len(self.sockets)] for i in range(self.workers)]
        running: list[tuple[BaseProcess, float]] = []
        try:
            running += [self._start(sock) for sock in slots]
            port = self.sockets[0].getsockname()[1]
            logger.info("Started %d HTTP processes on %s:%d [%d]", self.workers, self.config.host, port, os.getpid())
            self._watch(running, slots)
            self.on_stop()
            for process, _ in running:
                if process.is_alive() and process.pid is not None:
                    os.kill(process.pid, signal.SIGTERM)
            grace = self.config.timeout_graceful_shutdown
            deadline = None if grace is None else time.monotonic() + grace + 5
            for process, _ in running:
                process.join(None if deadline is None else max(0.0, deadline - time.monotonic()))
            logger.info("Stopped the HTTP processes [%d]", os.getpid())
        finally:
            for process, _ in running:
                if process.is_alive():
                    process.kill()
                    process.join()

    def _watch(self, running: list[tuple[BaseProcess, float]], slots: list[socket.socket]) -> None:
        """Replace the processes that die until told to stop (or one dies early twice in a row)."""
        early = [0] * len(running)
        while not self.stopping.wait(0.5):
            for i, (process, began) in enumerate(running):
                if process.is_alive():
                    continue
                process.join()
                early[i] = early[i] + 1 if time.monotonic() - began < self.EARLY else 0
                if early[i] >= 2:
                    logger.error("HTTP process [%s] failed to start; stopping", process.pid)
                    return
                logger.warning("HTTP process [%s] died (exit code %s); starting another", process.pid, process.exitcode)
                running[i] = self._start(slots[i])


__all__ = ["Server", "Supervisor", "listening_sockets", "protocol"]
