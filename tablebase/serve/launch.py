"""Starting the server: :func:`run` (what ``tablebase serve`` calls) and the app factory of one
HTTP process, :func:`from_environment` (what ``run`` starts in each of several processes, and what
``uvicorn --factory tablebase.serve:from_environment`` serves)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from starlette.types import ASGIApp

import tablebase
from tablebase.errors import TablebaseError
from tablebase.serve.app import create_app
from tablebase.serve.caching import MAX_AGE
from tablebase.serve.workers import MEMORY_CAP, Solvers


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
            if pool is not None:
                _prepare(pool)
            Server(config(app, **options), pool.cancel if pool is not None else lambda: None).run(sockets=sockets)
        else:
            _run_processes(db, sockets, workers, options, solvers, memory_cap, write, max_age)
    finally:
        for sock in sockets:
            sock.close()


def _prepare(pool: Solvers) -> None:
    """Have a search worker ready before the server answers (:meth:`Solvers.prepare`), saying so."""
    print("preparing the search (compiled code, kept tables)...", file=sys.stderr, flush=True)
    seconds = pool.prepare()
    print(f"search ready in {seconds:.1f} s", file=sys.stderr, flush=True)


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

    hub = None
    if solvers != 0:
        pool = Solvers(db, solvers, memory_cap, write=write)
        _prepare(pool)
        hub = SolverHub(pool).start()
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
        setup = config("tablebase.serve:from_environment", factory=True, **options)
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
    addresses up to 1 MB reach the application (which answers those over :data:`~tablebase.serve.middleware.MAX_ADDRESS` with
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
