"""One pool of search workers for a server of several HTTP processes.

``tablebase serve --workers N`` runs N HTTP processes on one port. Searches
(``/solve``) must still run in at most ``--solvers`` processes, whatever N
is, so the pool is not split between the HTTP processes: the supervising
process owns one :class:`~tablebase.serve.workers.Solvers` pool
(:class:`SolverHub`, on a thread of its own) and the HTTP processes reach it
over a Unix socket (:class:`RemoteSolvers`). Each request is one connection:
the HTTP process sends ``(kind, variant, state, seconds)`` and waits for the
reply; closing the connection (its client went away) stops the search, as
with a pool in the same process. What the workers prove is kept once, in the
hub, and every HTTP process asks it for positions its file lacks.

Splitting ``--solvers`` into a share per HTTP process was not chosen: with
fewer solvers than HTTP processes some processes would get none, and an
idle worker of one process could not take the search of another.

Messages are pickles framed by a 4-byte length; the socket lives in a
folder only its owner may enter.
"""

from __future__ import annotations

import asyncio
import pickle
import shutil
import struct
import tempfile
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from tablebase.errors import TablebaseError
from tablebase.games.base import Game
from tablebase.results import Probe
from tablebase.serve.analysis import BusyError, NotProvedError
from tablebase.serve.workers import KEPT_POSITIONS, SolverPool, Solvers

_LENGTH = struct.Struct("!I")
#: How often a waiting HTTP process checks that its client is still there, in seconds.
CHECK = 0.1


async def _send(writer: asyncio.StreamWriter, message: object) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    writer.write(_LENGTH.pack(len(data)) + data)
    await writer.drain()


async def _receive(reader: asyncio.StreamReader) -> Any:
    (size,) = _LENGTH.unpack(await reader.readexactly(_LENGTH.size))
    return pickle.loads(await reader.readexactly(size))


class SolverHub:
    """The search workers of ``pool``, served on a Unix socket (:attr:`address`) from a thread of
    this process; what they prove is kept here, for every HTTP process to ask."""

    def __init__(self, pool: Solvers):
        import tablebase
        from tablebase.serve.analysis import Analysis, load_rules

        load_rules()
        self.tb = tablebase.open(pool.path)
        self.analysis = Analysis(self.tb, max_positions=KEPT_POSITIONS)
        pool.learn = self.analysis.remember
        self.pool = pool
        self.folder = Path(tempfile.mkdtemp(prefix="tablebase-solvers-"))
        self.address = str(self.folder / "socket")
        self._loop = asyncio.new_event_loop()
        self._stop: asyncio.Event | None = None
        self._started = threading.Event()
        self._failed: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="tablebase-solvers", daemon=True)

    def start(self) -> SolverHub:
        """Listen on :attr:`address`; returns once it does (raises when it cannot)."""
        self._thread.start()
        self._started.wait()
        if self._failed is not None:
            self.close()
            raise TablebaseError(f"cannot open the socket of the solvers: {self._failed}")
        return self

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_until_complete(self._serve())
        except Exception as exc:
            self._failed = exc
        finally:
            self._started.set()
            self._loop.close()

    async def _serve(self) -> None:
        self._stop = asyncio.Event()
        server = await asyncio.start_unix_server(self._answer, path=self.address)
        self._started.set()
        await self._stop.wait()
        server.close()

    async def _answer(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            kind, name, state, seconds = await _receive(reader)
            reply = await self._reply(kind, name, state, seconds, reader)
            await _send(writer, reply)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    async def _reply(
        self, kind: str, name: str, state: int, seconds: float, reader: asyncio.StreamReader
    ) -> tuple[str, object, int]:
        from tablebase import games

        async def gone() -> bool:
            return reader.at_eof()

        try:
            game = games.get(name)
            if kind == "known":
                found = self.analysis.known(game, state, search=False)
                return "ok", found if found is not None else await self.pool.lookup(game, state), 0
            return "ok", await self.pool.solve(game, state, seconds, gone, kind=kind), 0
        except BusyError as exc:
            return "error", exc, self.pool.retry_after()
        except TablebaseError as exc:
            return "error", exc, 0

    def cancel(self) -> None:
        """Stop the running searches and refuse new ones (the server is stopping)."""
        if self._thread.is_alive() and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self.pool.cancel)

    def close(self) -> None:
        """Stop listening, stop every worker, close the file and remove the socket."""
        if self._stop is not None and self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._stop.set)
            self._thread.join(10)
        self.pool.close()
        self.tb.close()
        shutil.rmtree(self.folder, ignore_errors=True)


class RemoteSolvers(SolverPool):
    """The pool of a :class:`SolverHub` at ``address``, as an HTTP process sees it: the methods of
    :class:`~tablebase.serve.workers.Solvers` a server calls, each search run by the hub's pool."""

    def __init__(self, address: str):
        self.address = address
        self.closed = False

    async def _request(
        self, kind: str, game: Game, state: int, seconds: float, gone: Callable[[], Awaitable[bool]] | None
    ) -> Any:
        reader, writer = await asyncio.open_unix_connection(self.address)
        try:
            await _send(writer, (kind, game.name, state, seconds))
            reply = asyncio.ensure_future(_receive(reader))
            while True:
                done, _ = await asyncio.wait({reply}, timeout=CHECK)
                if done:
                    break
                if gone is not None and await gone():
                    reply.cancel()
                    shown = game.format_position(state)
                    raise NotProvedError(f"the request for position {shown!r} of {game.name} was closed")
            status, value, retry = reply.result()
        except (asyncio.IncompleteReadError, ConnectionError) as exc:
            shown = game.format_position(state)
            raise TablebaseError(f"the solvers of position {shown!r} of {game.name} are gone ({exc})") from exc
        finally:
            writer.close()
        if status == "error":
            if retry:
                value.retry_after = retry
            raise value
        return value

    async def lookup(self, game: Game, state: int) -> Probe | None:
        """What the hub's searches proved of ``state``, without a search (``None``: nothing)."""
        found: Probe | None = await self._request("known", game, state, 0, None)
        return found

    def retry_after(self) -> int:
        """Seconds a busy reply without the hub's own figure asks the client to wait."""
        return 1

    def cancel(self) -> None:
        """Nothing to stop here: the hub stops the searches of a stopping server."""

    def close(self) -> None:
        self.closed = True


__all__ = ["RemoteSolvers", "SolverHub"]
