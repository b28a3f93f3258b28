"""Where the tasks of an out-of-core build run: local worker processes, or a Dask cluster.

An executor maps a module-level function over a list of argument tuples and
yields the results in the order of the tasks. The tasks of
:mod:`tablebase.solve.chunked` read and write their own files in the build
directory and return only counts, so the same layer loop runs on either
backend:

* :class:`ProcessPool` (the default): forked worker processes on this
  machine, or the calling process itself for one worker. No dependency.
* :class:`DaskExecutor`: the workers of a ``dask.distributed`` scheduler
  (``pip install 'tablebase[cluster]'``). A task lost with its worker is
  run again by the scheduler on another worker.

>>> with executor_for("local:2") as ex:          # doctest: +SKIP
...     list(ex.map(pow, [(2, 3), (3, 2)]))
[8, 9]
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from multiprocessing import get_context
from multiprocessing.pool import Pool
from typing import Any, Callable, Iterator, Sequence

from typing_extensions import Self

from tablebase.errors import BuildError


class Executor(ABC):
    """Runs ``fn(*task)`` for each task, anywhere; results come back in task order. ``with`` closes it."""

    #: One line naming where the tasks run (shown by the build's progress).
    description: str
    #: The workers running on this machine, sharing its cores (``None``: the workers of a cluster).
    local_workers: int | None = None

    @abstractmethod
    def map(self, fn: Callable[..., Any], tasks: Sequence[tuple[Any, ...]]) -> Iterator[Any]:
        """``fn(*task)`` of every task, in task order."""

    @abstractmethod
    def close(self) -> None:
        """Stop the workers (and a cluster started here)."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _star(call: tuple[Callable[..., Any], tuple[Any, ...]]) -> Any:
    fn, args = call
    return fn(*args)


class ProcessPool(Executor):
    """``workers`` processes of this machine (none for one worker: the tasks run here).

    ``initializer(*initargs)`` runs in every worker first (and here), so that
    objects which do not pickle reach the tasks through module globals.
    ``start`` is how the workers are started (``"spawn"``: fresh interpreters,
    for tasks whose compiled threads a forked copy of this process could not start).
    """

    def __init__(
        self, workers: int = 1, initializer: Callable[..., None] | None = None, initargs: tuple[Any, ...] = (),
        start: str = "fork",
    ):
        self.workers = self.local_workers = max(1, workers)
        self.start = start
        self.initializer, self.initargs = initializer, initargs
        self.pool: Pool | None = None
        self.description = f"{self.workers} local process{'es' if self.workers > 1 else ''}"
        if initializer is not None:
            initializer(*initargs)

    def map(self, fn: Callable[..., Any], tasks: Sequence[tuple[Any, ...]]) -> Iterator[Any]:
        if self.workers == 1:
            return (fn(*task) for task in tasks)
        if self.pool is None:
            self.pool = get_context(self.start).Pool(self.workers, initializer=self.initializer, initargs=self.initargs)
        return self.pool.imap(_star, [(fn, task) for task in tasks])

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()
            self.pool.join()
            self.pool = None


class DaskExecutor(Executor):
    """The workers of a Dask scheduler: ``tcp://host:8786``, or ``local:N`` for a
    :class:`~dask.distributed.LocalCluster` of ``N`` single-threaded worker processes
    started (and stopped) here, each with ``memory_limit`` (Dask's notation: ``"1GB"``; ``local:N`` only)."""

    def __init__(self, scheduler: str, memory_limit: str | None = None):
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError as exc:
            raise BuildError(
                f"scheduler {scheduler[:80]!r} needs dask.distributed: pip install 'tablebase[cluster]'"
            ) from exc
        self.cluster: Any = None
        if memory_limit is not None and not scheduler.startswith("local:"):
            raise BuildError(
                f"a worker memory limit sets the workers of local:N; give the workers of {scheduler[:80]!r}"
                " their own (dask worker --memory-limit)"
            )
        if scheduler.startswith("local:"):
            count = scheduler[len("local:") :]
            if not count.isdigit() or int(count) < 1:
                raise BuildError(f"invalid scheduler {scheduler[:80]!r}: use local:N (N workers) or an address like tcp://host:8786")
            self.local_workers = int(count)
            limit: dict[str, Any] = {} if memory_limit is None else {"memory_limit": memory_limit}
            try:
                self.cluster = LocalCluster(  # type: ignore[no-untyped-call]
                    n_workers=int(count), threads_per_worker=1, processes=True, **limit
                )
            except ValueError as exc:
                raise BuildError(f"invalid worker memory {memory_limit!r}: {exc}") from exc
            target: Any = self.cluster
        else:
            target = scheduler
            _listening(scheduler)
        try:
            self.client = Client(target, timeout="30s")  # type: ignore[no-untyped-call]
        except (OSError, TimeoutError) as exc:
            if self.cluster is not None:
                self.cluster.close()
            raise BuildError(f"cannot reach the dask scheduler {scheduler[:80]!r}: {exc}") from exc
        info = self.client.scheduler_info()
        workers = len(info.get("workers", {}))
        self.description = (
            f"dask scheduler {info['address']} ({workers} worker{'' if workers == 1 else 's'} connected),"
            f" dashboard {self.client.dashboard_link}"
        )

    def map(self, fn: Callable[..., Any], tasks: Sequence[tuple[Any, ...]]) -> Iterator[Any]:
        if not tasks:
            return iter(())
        futures: list[Any] = self.client.map(fn, *zip(*tasks), pure=False)
        return self._results(futures)

    @staticmethod
    def _results(futures: list[Any]) -> Iterator[Any]:
        from dask.distributed import KilledWorker

        try:
            for i, future in enumerate(futures):
                try:
                    yield future.result()
                except KilledWorker as exc:
                    raise BuildError(
                        f"a task ended every worker that ran it ({exc.args[0] if exc.args else future.key}):"
                        " a worker past its memory limit is restarted; give the workers more memory"
                    ) from exc
                futures[i] = None
        finally:
            for future in futures:
                if future is not None:
                    future.cancel()

    def close(self) -> None:
        self.client.close()  # type: ignore[no-untyped-call]
        if self.cluster is not None:
            self.cluster.close()


def _listening(scheduler: str) -> None:
    """Raise :class:`BuildError` at once when nothing listens at a ``tcp://host:port`` address (the
    client would retry a refused connection until its timeout)."""
    import socket
    from urllib.parse import urlsplit

    parts = urlsplit(scheduler)
    if parts.scheme != "tcp":
        return
    try:
        port = parts.port or 8786
    except ValueError:
        port = 0
    if not parts.hostname or not port:
        raise BuildError(f"invalid scheduler {scheduler[:80]!r}: use an address like tcp://host:8786, or local:N")
    try:
        socket.create_connection((parts.hostname, port), timeout=10).close()
    except OSError as exc:
        raise BuildError(f"cannot reach the dask scheduler {scheduler[:80]!r}: {exc}") from exc


def executor_for(
    scheduler: str | None = None,
    workers: int = 1,
    initializer: Callable[..., None] | None = None,
    initargs: tuple[Any, ...] = (),
    memory_limit: str | None = None,
    start: str = "fork",
) -> Executor:
    """A :class:`DaskExecutor` for ``scheduler`` (an address or ``local:N``, its workers with
    ``memory_limit``), else a :class:`ProcessPool` of ``workers`` processes started with ``initializer``
    (and by ``start``)."""
    if scheduler:
        return DaskExecutor(scheduler, memory_limit)
    return ProcessPool(workers, initializer, initargs, start)

