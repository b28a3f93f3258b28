"""Searches in worker processes, so that a search never stalls the server's other requests.

A compiled search holds the interpreter for as long as it runs, and what it
proves can take hundreds of megabytes. :class:`Solvers` runs each search of
``/api/{variant}/solve`` in one of at most ``size`` worker processes (started
on first use, with the ``spawn`` method): the server process only waits for a
small reply. A request that finds every worker busy is refused at once
(:class:`~tablebase.serve.analysis.BusyError`, ``503 busy`` with
``Retry-After``); a request whose client goes away, or that outlives its time
limit, has its worker killed (and replaced) within a second. A worker whose
memory grows past ``memory_cap`` bytes after a search exits and is replaced,
and a worker left idle for :data:`IDLE_SECONDS` exits, so the memory of its
searches goes back to the system (the next search starts a new one).
:meth:`Solvers.cancel` stops every running search at once (a server that is
shutting down).

Each worker opens the tablebase file read-only and keeps what it proved in its
own memory (:class:`~tablebase.serve.analysis.Analysis`); once started it
searches only on processor time no other process wants and, on two or more cores, off the
first one, which is left to the server's probes. The server keeps the
last answers it relayed (small probe replies) and the positions its workers'
searches proved (at most :data:`KEPT_POSITIONS`), so asking again, or asking
for a position a search proved on the way, costs no search.
"""

from __future__ import annotations

import abc
import asyncio
import math
import multiprocessing
import os
import signal
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

from tablebase.errors import TablebaseError
from tablebase.games.base import Game
from tablebase.games.tiering import TierSearch
from tablebase.results import Probe
from tablebase.serve.analysis import MAX_SECONDS, BusyError, NotProvedError

#: Memory a worker may keep after a search before it is replaced, in bytes.
MEMORY_CAP = 1 << 30
#: Proved positions the server keeps from its workers' searches (about 130 bytes each: 300,000 take
#: about 40 MB), so that with :data:`MAX_ANSWERS` what it keeps stays well under 100 MB.
KEPT_POSITIONS = 300_000
#: Answers the server keeps (most recently used first out of the way last; a few KB each).
MAX_ANSWERS = 5_000
#: Seconds a worker gets beyond the request's time limit (its start-up, the reply) before it is killed.
GRACE = 10.0
#: Scheduling priority of a worker where ``SCHED_IDLE`` is not available (Unix ``nice``, the lowest).
NICENESS = 19
#: How often a waiting request checks its worker and its client, in seconds.
POLL = 0.02
#: Seconds an idle worker waits for its next search before it exits.
IDLE_SECONDS = 10.0
#: Share of a worker's memory cap its kept search table may take (the rest: the interpreter, the
#: compiled code, what a search keeps besides): 512 MiB under the default cap.
TABLE_SHARE = 0.5


def default_size() -> int:
    """One worker per core but one, at least one."""
    return max(1, (os.cpu_count() or 1) - 1)


def rss() -> int:
    """Resident memory of this process in bytes (its peak where the current figure is unavailable)."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if os.uname().sysname == "Darwin" else peak * 1024


def leave_first_core() -> None:
    """Move this process off the first core, which is left to the server, where there are two or more."""
    if hasattr(os, "sched_getaffinity"):
        cores = sorted(os.sched_getaffinity(0))
        if len(cores) >= 2:
            os.sched_setaffinity(0, cores[1:])


def yield_to_server() -> None:
    """Make this process give way to the server: run only on time no other process wants (Linux
    ``SCHED_IDLE``: a search keeps every core, and the server takes one back the moment it wakes);
    elsewhere at the lowest ``nice`` and off the first core (:func:`leave_first_core`)."""
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))  # type: ignore[attr-defined,unused-ignore]
    except (AttributeError, OSError):
        leave_first_core()
        if hasattr(os, "nice"):
            os.nice(NICENESS - os.nice(0))


def _work(
    conn: Connection, path: str, max_seconds: float, memory_cap: int, write: bool = False, warm: bool = False
) -> None:
    """A worker's life: answer ``(kind, variant, state, seconds)`` jobs until the pipe closes or memory is
    full; ``kind`` is ``"solve"`` (prove within ``seconds``) or ``"probe"`` (the file's probe, which proves
    the moves of a position stored with its value only). The searches of a game go on from one compiled
    table (:class:`~tablebase.serve.analysis.Searches`), in at most a :data:`TABLE_SHARE` of
    ``memory_cap``, that starts with what the tablebase file's solves kept; with ``warm``, the search of
    each game explored by search is prepared before it says it is ready."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the server shuts its workers down itself
    import tablebase
    from tablebase import games
    from tablebase.serve.analysis import Analysis, Searches, load_rules

    found: list[dict[int, tuple[str, int | None]]] = []
    searches = Searches(int(memory_cap * TABLE_SHARE))
    tiers: dict[str, TierSearch | None] = {}

    def prover(game: Game, state: int, seconds: float) -> tuple[bool, dict[int, tuple[str, int | None]]]:
        if game.name not in tiers:
            table = tb.get_variant(game.name)
            tiers[game.name] = None if table is None else table.tier_search()
        search = tiers[game.name]
        if search is not None and search.covers(state):
            proof = search.prove(state, time.perf_counter() + seconds)
            proved = proof.complete
            positions: dict[int, tuple[str, int | None]] = dict(proof.positions(lambda s: game.canonical(s)[0]))
        else:
            proved, positions = searches(game, state, seconds)
        found.append(positions)
        return proved, positions

    with tablebase.open(path) as tb:
        analysis = Analysis(tb, max_seconds=max_seconds, prover=prover)
        searches.kept = tb.kept_table_path
        for game in load_rules() if warm else []:
            if not game.enumerable:
                searches.prepare(game)  # at the usual priority: a server that waits for it serves nothing yet
        yield_to_server()
        conn.send(("ready", None, rss()))  # after start-up, which a request waits for
        while True:
            try:
                kind, name, state, seconds = conn.recv()
            except (EOFError, OSError):
                return
            reply: tuple[str, Any]
            found.clear()
            try:
                game = games.get(name)
                if kind == "probe":
                    reply = ("ok", tb.variant(name).probe(game.format_position(state), search=True))
                elif kind == "known":
                    reply = ("ok", analysis.known(game, state, search=True) or analysis.solve(game, state, 0))
                else:
                    probe = analysis.known(game, state, search=True)
                    if probe is None and write:
                        probe = _solve_and_store(tb, game, state, seconds)
                    reply = ("ok", probe if probe is not None else analysis.solve(game, state, seconds))
            except TablebaseError as exc:
                reply = ("error", exc)
            memory = rss()
            conn.send((*reply, memory, found[0] if found and len(found[0]) <= KEPT_POSITIONS else {}))
            if memory > memory_cap:
                return


def _solve_and_store(tb: Any, game: Game, state: int, seconds: float) -> Probe:
    """Prove ``state`` as ``tablebase solve`` does, storing what was proved in the file (one transaction)."""
    shown = game.format_position(state)
    report = tb.solve(game.name, shown, time_limit=seconds)
    if not report.proved:
        raise NotProvedError(
            f"position {shown!r} of {game.name} not proved within {seconds:g} s;"
            " try a later position or a longer time limit"
        )
    probe: Probe = tb.variant(game.name).probe(shown)
    return probe


@dataclass
class Worker:
    """One worker process and the server's end of its pipe."""

    process: BaseProcess
    conn: Connection
    #: When the job it runs must be over (``time.monotonic``), ``None`` while idle.
    deadline: float | None = None
    #: Resident memory it reported last, in bytes.
    memory: int = 0
    jobs: int = 0
    ready: bool = field(default=False)
    #: When it last finished a job (``time.monotonic``).
    idle_since: float = 0.0

    def stop(self) -> None:
        """Kill the process at once and reap it."""
        if self.process.is_alive():
            self.process.kill()
        self.process.join(5)
        self.conn.close()


class SolverPool(abc.ABC):
    """What a server asks of its searches, whether their workers are its own (:class:`Solvers`)
    or a hub's that several HTTP processes share (:class:`~tablebase.serve.hub.RemoteSolvers`)."""

    async def solve(
        self,
        game: Game,
        state: int,
        seconds: float,
        gone: Callable[[], Awaitable[bool]] | None = None,
        kind: str = "solve",
    ) -> Probe:
        """The probe of ``state`` proved by a worker within ``seconds``; raises what the search raised.

        ``gone()`` tells whether the client has left; then the worker is killed
        and :class:`NotProvedError` raised (nobody reads it). ``seconds=0``
        asks an idle worker for what it proved earlier, without a search. ``kind="probe"``:
        the file's probe of ``state``, its unstored moves proved by the worker.
        """
        probe: Probe = await self._request(kind, game, state, seconds, gone)
        return probe

    @abc.abstractmethod
    async def _request(
        self, kind: str, game: Game, state: int, seconds: float, gone: Callable[[], Awaitable[bool]] | None
    ) -> Any:
        """The reply to one request of ``kind`` (``solve``, ``probe`` or ``known``) for ``state``."""


class Solvers(SolverPool):
    """A pool of at most ``size`` search workers over the tablebase file ``path``; with ``write``
    they store what they prove in the file, as ``tablebase solve`` does, so later probes read it."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        size: int | None = None,
        memory_cap: int = MEMORY_CAP,
        max_seconds: float = MAX_SECONDS,
        write: bool = False,
        learn: Callable[[Game, dict[int, tuple[str, int | None]]], None] | None = None,
        idle_seconds: float = IDLE_SECONDS,
    ):
        if size is not None and size < 1:
            raise ValueError(f"invalid number of solvers: {size!r} (at least 1)")
        self.path = Path(path)
        self.size = default_size() if size is None else size
        self.memory_cap = memory_cap
        self.max_seconds = max_seconds
        self.write = write
        self.idle_seconds = idle_seconds
        #: Called with the canonical states a worker's search proved, with their ``(outcome, distance)``.
        self.learn = learn
        self.idle: list[Worker] = []
        self.busy: list[Worker] = []
        #: Workers replaced: killed by a cancelled or overdue request, or past the memory cap.
        self.recycled = 0
        #: Workers that exited after :attr:`idle_seconds` without a search.
        self.released = 0
        self._answers: OrderedDict[tuple[str, str], Probe] = OrderedDict()
        self._context = multiprocessing.get_context("spawn")
        self.closed = False
        #: Set by :meth:`cancel`: running searches are stopped and no new one starts.
        self.stopping = False
        #: Workers kept however long they stay idle, ready with their compiled search (:meth:`prepare`).
        self.warm = 0

    def _start(self) -> Worker:
        mine, theirs = self._context.Pipe()
        process = self._context.Process(
            target=_work,
            args=(theirs, str(self.path), self.max_seconds, self.memory_cap, self.write, self.warm > 0),
            name="tablebase-solver",
            daemon=True,
        )
        process.start()
        theirs.close()
        return Worker(process, mine)

    def prepare(self, timeout: float = 600.0) -> float:
        """Start a worker and wait until it is ready (its compiled search loaded, or compiled, and the
        tablebase file's kept search table read: ``_work``), so that the first request finds it so;
        from then on one worker is kept ready, however long it stays idle, and one that exits is
        replaced at once. Returns the seconds it took; raises :class:`TablebaseError` if the worker
        stops or is not ready within ``timeout`` seconds."""
        began = time.monotonic()
        self.warm = 1
        worker = self._start()
        while not worker.ready:
            left = began + timeout - time.monotonic()
            try:
                if left <= 0 or not worker.conn.poll(min(1.0, left)):
                    if left <= 0 or not worker.process.is_alive():
                        raise EOFError
                    continue
                message = worker.conn.recv()
            except (EOFError, OSError):
                alive = worker.process.is_alive()
                worker.stop()
                if alive:
                    raise TablebaseError(f"the search worker was not ready within {timeout:g} s") from None
                raise TablebaseError(
                    f"the search worker stopped before it was ready (exit code {worker.process.exitcode})"
                ) from None
            worker.ready, worker.memory = message[0] == "ready", message[2]
        worker.idle_since = time.monotonic()
        self.idle.append(worker)
        return time.monotonic() - began

    def _keep_warm(self) -> None:
        """Start a worker where fewer than :attr:`warm` are left (it gets ready while idle)."""
        if self.warm and not self.closed and not self.stopping and len(self.workers()) < self.warm:
            worker = self._start()
            worker.idle_since = time.monotonic()
            self.idle.append(worker)

    def workers(self) -> list[Worker]:
        """Every live worker, idle ones first."""
        return [*self.idle, *self.busy]

    def retry_after(self) -> int:
        """Whole seconds until the first running search must be over (at least 1)."""
        now = time.monotonic()
        ends = [w.deadline - now for w in self.busy if w.deadline is not None]
        return max(1, math.ceil(min(ends, default=1.0)))

    def known(self, game: Game, position: str) -> Probe | None:
        """An answer relayed earlier for ``position`` of ``game``, if kept."""
        probe = self._answers.get((game.name, position))
        if probe is not None:
            self._answers.move_to_end((game.name, position))
        return probe

    async def lookup(self, game: Game, state: int) -> Probe | None:
        """:meth:`known` for ``state`` (the interface a server of several processes shares)."""
        return self.known(game, game.format_position(state))

    def _keep(self, game: Game, probe: Probe) -> None:
        self._answers[(game.name, probe.position)] = probe
        while len(self._answers) > MAX_ANSWERS:
            self._answers.popitem(last=False)

    def _take(self, shown: str, name: str) -> Worker:
        if self.stopping:
            raise NotProvedError(f"the server is stopping: position {shown!r} of {name} was not searched")
        while self.idle:
            worker = self.idle.pop()
            if worker.process.is_alive():
                return worker
            self._retire(worker)
        if len(self.busy) < self.size:
            return self._start()
        raise BusyError(
            f"all {self.size} solver{'s' if self.size > 1 else ''} are busy; try again in a moment"
            f" (searches last at most {self.max_seconds:g} s)"
        )

    def _retire(self, worker: Worker) -> None:
        self.recycled += 1
        worker.stop()

    async def _request(
        self, kind: str, game: Game, state: int, seconds: float, gone: Callable[[], Awaitable[bool]] | None
    ) -> Probe:
        shown = game.format_position(state)
        if seconds <= 0 and kind == "solve":
            if not self.idle:
                raise NotProvedError(f"position {shown!r} of {game.name} is not proved yet; solve it with a time limit")
            kind = "known"  # what the last worker used proved, without a search
        worker = self._take(shown, game.name)
        self.busy.append(worker)
        worker.deadline = time.monotonic() + seconds + GRACE
        keep = False
        try:
            worker.conn.send((kind, game.name, state, seconds))
            reply = await self._wait(worker, game, shown, gone)
            status, value, worker.memory, proved = reply
            worker.jobs += 1
            keep = worker.memory <= self.memory_cap
        finally:
            worker.deadline = None
            keep = keep and not self.closed and not self.stopping
            if not keep:
                self._retire(worker)  # still in busy, so a worker gone from busy is already counted
            if worker in self.busy:
                self.busy.remove(worker)
            if keep:
                worker.idle_since = time.monotonic()
                self.idle.append(worker)
                self._reap_later()
            else:
                self._keep_warm()
        if self.learn is not None and proved:
            self.learn(game, proved)
        if status == "error":
            raise value
        if kind != "probe":
            self._keep(game, value)
        return value  # type: ignore[no-any-return]

    async def _wait(
        self, worker: Worker, game: Game, shown: str, gone: Callable[[], Awaitable[bool]] | None
    ) -> tuple[str, Any, int, dict[int, tuple[str, int | None]]]:
        checked = time.monotonic()
        while True:
            while worker.conn.poll():
                message = worker.conn.recv()
                if message[0] == "ready":
                    worker.ready, worker.memory = True, message[2]
                    continue
                return message  # type: ignore[no-any-return]
            if self.stopping:
                raise NotProvedError(
                    f"the server is stopping: the search of position {shown!r} of {game.name} was stopped"
                )
            if not worker.process.is_alive():
                raise TablebaseError(f"the solver of position {shown!r} of {game.name} stopped unexpectedly")
            now = time.monotonic()
            assert worker.deadline is not None
            if now > worker.deadline:
                raise NotProvedError(f"position {shown!r} of {game.name} not proved in time; the search was stopped")
            if gone is not None and now - checked >= 0.1:
                checked = now
                if await gone():
                    raise NotProvedError(f"the request for position {shown!r} of {game.name} was closed")
            await asyncio.sleep(POLL)

    def _reap_later(self) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        loop.call_later(self.idle_seconds + POLL, self.release_idle)

    def release_idle(self) -> int:
        """Stop the workers idle for :attr:`idle_seconds` or more but the :attr:`warm` used last;
        returns how many were stopped."""
        now = time.monotonic()
        done = [w for w in self.idle[: len(self.idle) - self.warm] if now - w.idle_since >= self.idle_seconds]
        for worker in done:
            self.idle.remove(worker)
            worker.stop()
        self.released += len(done)
        return len(done)

    def cancel(self) -> None:
        """Stop the running searches (their requests get ``not_proved``) and refuse new ones."""
        self.stopping = True

    def close(self) -> None:
        """Stop every worker."""
        self.closed = True
        for worker in self.workers():
            worker.stop()
        self.idle.clear()
        self.busy.clear()


__all__ = ["GRACE", "IDLE_SECONDS", "MEMORY_CAP", "SolverPool", "Solvers", "default_size", "rss"]
