"""Build planning: which solver and which storage a build uses, and running it.

A build names a storage or leaves the choice here. Without a name, a game
whose size bound allows more than :data:`LARGE_ABOVE` classes and which
numbers its positions densely (:meth:`~tablebase.games.base.Game.dense_index`)
is solved and stored by the ``dense`` storage itself; one that has
layered array kernels is solved out of core (:mod:`tablebase.solve.chunked`),
and stored with :data:`LARGE_STORAGE` when the count confirms it is that
large; everything else is solved in memory and stored with
:data:`DEFAULT_STORAGE`, or with :data:`LARGE_STORAGE` when it has more than
:data:`LARGE_MOVES` moves. A named storage that can keep an out-of-core build
(:attr:`~tablebase.store.storage.Storage.out_of_core`) gets one when the
game has layered kernels, and an in-memory solve otherwise. A build on a
Dask cluster (``scheduler``) is the out-of-core one whatever the size, stored
with the storage named or else :data:`LARGE_STORAGE`. A game that some
symmetry moves the start of is built with symmetry in memory only: the
out-of-core and dense builds count a class as its whole orbit.
"""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tablebase.errors import BuildError
from tablebase.progress import report_where
from tablebase.store.storage import Storage, storage_class

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

    from tablebase.games.base import Game
    from tablebase.solve import Progress

#: Above this many classes a build that names no storage is solved out of core and stored with
#: :data:`LARGE_STORAGE` (games with layered array kernels only).
LARGE_ABOVE = 20_000_000
#: The storage of builds that name none.
DEFAULT_STORAGE = "moves"
#: The storage of large out-of-core builds that name none.
LARGE_STORAGE = "packed"
#: The storage of large builds that name none, for games with a dense index of their positions.
DENSE_STORAGE = "dense"
#: Above this many moves an in-memory build that names no storage is stored with :data:`LARGE_STORAGE`
#: when that storage accepts the game (the rows of every move would take gigabytes).
LARGE_MOVES = 12_000_000


def _dense_by_default(game: Game, symmetry: bool) -> bool:
    """Whether a build that names no storage is stored with :data:`DENSE_STORAGE`: the size bound is
    above :data:`LARGE_ABOVE` and that storage accepts the game."""
    bound = game.size_bound(symmetry)
    if bound is None or bound <= LARGE_ABOVE:
        return False
    try:
        storage_class(DENSE_STORAGE).check_game(game)
    except BuildError:
        return False
    return True


def _check_start(game: Game, symmetry: bool) -> None:
    """Raise unless a build out of core (or dense) can count ``game``'s positions: it counts a class
    as its whole orbit, which holds when every symmetry fixes the start (:func:`tablebase.solve.reached`)."""
    from tablebase.solve import moves_start

    if symmetry and moves_start(game):
        raise BuildError(
            f"variant {game.name!r}: a symmetry moves its start, so only a build in memory counts its positions;"
            " build it with --storage moves or states (no --scheduler), or with --no-symmetry"
        )


@dataclass(frozen=True)
class Plan:
    """How one variant will be built."""

    game: Game
    symmetry: bool
    #: The storage to keep the variant in; ``None``: decided by the size the out-of-core solve finds.
    storage: type[Storage] | None
    #: Whether the states are solved out of core, in layer files.
    out_of_core: bool
    #: The Dask scheduler the out-of-core build runs on (an address or ``local:N``); ``None``: local processes.
    scheduler: str | None = None
    #: The memory limit of each worker of a ``local:N`` scheduler (Dask's notation: ``"1GB"``).
    worker_memory: str | None = None
    #: Build tier by tier, the tiers of at most this (the game's measure: Morris, stones a side); ``None``: whole.
    tiers: int | None = None


def plan(
    name: str, *, symmetry: bool, storage: str | None, path_known: bool, scheduler: str | None = None,
    worker_memory: str | None = None, tiers: int | None = None,
) -> Plan:
    """The plan of a build of the variant ``name``; raises when it cannot be built so.

    ``path_known`` is false when the tablebase wraps an engine it was given
    (out-of-core builds write next to a database path). ``scheduler`` asks
    for the out-of-core build on that Dask cluster (the dense one for a
    variant stored dense), ``worker_memory`` the memory of each worker of a
    ``local:N`` one. ``tiers`` asks for the build tier by tier of the tiers of at most that
    (:mod:`tablebase.solve.tier_build`), into the storage it keeps them in.
    """
    from tablebase import games
    from tablebase.games.base import Game

    chosen = None if storage is None else storage_class(storage)
    game = games.get(name)
    if worker_memory is not None and not (scheduler or "").startswith("local:"):
        raise BuildError("--worker-memory sets the workers of --scheduler local:N; a cluster's workers take dask worker --memory-limit")
    if tiers is not None:
        return _tier_plan(game, symmetry, chosen, path_known, scheduler, worker_memory, tiers)
    if not game.enumerable:
        tiered = type(game).tiering is not Game.tiering
        raise BuildError(
            f"variant {game.name!r} is too large to enumerate; "
            + ("build its tiers with --stones K, or " if tiered else "")
            + f"solve positions with: tablebase solve {game.name} POSITION"
        )
    if chosen is None and symmetry and _dense_by_default(game, symmetry):
        chosen = storage_class(DENSE_STORAGE)
    if chosen is None and scheduler:
        chosen = storage_class(LARGE_STORAGE)
    if chosen is not None:
        chosen.check_game(game)
    if chosen is not None and chosen.solves:
        _check_start(game, symmetry)
        if not symmetry:
            raise BuildError(f"storage {chosen.name!r} keeps one position of each symmetry class; build with symmetry")
        if not path_known:
            raise BuildError(f"storage {chosen.name!r} builds need a database path, not an engine")
        return Plan(game, symmetry, chosen, False, scheduler or None, worker_memory)
    kernels = game.vector
    if chosen is not None:
        wanted = chosen.out_of_core
    else:
        bound = game.size_bound(symmetry)
        wanted = bound is not None and bound > LARGE_ABOVE
    out_of_core = wanted and kernels is not None and kernels.layered and path_known
    if out_of_core:
        _check_start(game, symmetry)
    if scheduler and not out_of_core:
        raise BuildError(
            f"variant {game.name!r} cannot be built on a cluster: that takes a layered game,"
            " a database file and a storage written from layer files"
        )
    return Plan(game, symmetry, chosen, out_of_core, scheduler or None, worker_memory)


def _tier_plan(
    game: Game, symmetry: bool, chosen: type[Storage] | None, path_known: bool, scheduler: str | None,
    worker_memory: str | None, tiers: int,
) -> Plan:
    """The plan of a build of ``game``'s tiers of at most ``tiers``; raises when it cannot be built so."""
    from tablebase.solve.tier_build import tiering_of
    from tablebase.store.tier_blocks import STORAGE

    tiering_of(game, tiers)
    if chosen is not None and chosen.name != STORAGE:
        raise BuildError(f"a build tier by tier is stored {STORAGE!r}, not {chosen.name!r}")
    if not symmetry:
        raise BuildError("a build tier by tier keeps one position of each symmetry class; build it with symmetry")
    if not path_known:
        raise BuildError("a build tier by tier needs a database path, not an engine")
    return Plan(game, True, storage_class(STORAGE), False, scheduler or None, worker_memory, tiers)


def _in_memory_storage(game: Game, moves: int) -> type[Storage]:
    """The storage of an in-memory build that names none: :data:`DEFAULT_STORAGE`, or
    :data:`LARGE_STORAGE` past :data:`LARGE_MOVES` moves when it accepts the game."""
    if moves > LARGE_MOVES:
        large = storage_class(LARGE_STORAGE)
        try:
            large.check_game(game)
        except BuildError:
            pass
        else:
            return large
    return storage_class(DEFAULT_STORAGE)


def run(
    build: Plan,
    *,
    engine: Engine,
    path: Path | None,
    progress: Progress | None = None,
    build_dir: str | os.PathLike[str] | None = None,
    workers: int | None = None,
) -> None:
    """Solve and store the variant as planned, replacing an earlier build atomically.

    An out-of-core build keeps its layer files in ``build_dir`` (default: a
    folder next to the database, removed after the write; on a cluster, a
    folder or fsspec URL every worker reaches), which an interrupted build
    resumes from, and runs ``workers`` processes (default: one per core) or
    the tasks on the plan's Dask scheduler.
    """
    from tablebase.solve import solve

    if build.scheduler and build_dir is not None and os.fspath(build_dir).startswith("memory://"):
        raise BuildError(
            f"build directory {os.fspath(build_dir)[:80]!r} lives in one process; the workers of a cluster need"
            " a folder or a URL they all reach"
        )
    game = build.game
    chosen = build.storage
    if build.tiers is not None and path is not None:
        from tablebase.solve.executor import executor_for
        from tablebase.solve.tier_build import build_tiers

        # the tasks run numba's threads, which a forked copy of a process that ran them cannot start
        with executor_for(
            build.scheduler, workers or os.cpu_count() or 1, memory_limit=build.worker_memory, start="spawn"
        ) as executor:
            report_where(progress, executor.description)
            build_tiers(game, build.tiers, path, executor, progress)
        return
    if chosen is not None and chosen.solves and path is not None:
        if build.scheduler is None:
            chosen.build(game, path=path, progress=progress)
            return
        from tablebase.solve.executor import executor_for

        folder = build_dir if build_dir is not None else path.with_name(f"{path.name}.build-{game.name}")
        with executor_for(build.scheduler, memory_limit=build.worker_memory) as executor:
            report_where(progress, executor.description)
            chosen.build(game, path=path, progress=progress, executor=executor, build_dir=folder)
        if build_dir is None:
            shutil.rmtree(folder, ignore_errors=True)
        return
    start = time.perf_counter()
    if build.out_of_core and path is not None:
        from tablebase.solve.chunked import solve_chunked

        folder = build_dir if build_dir is not None else path.with_name(f"{path.name}.build-{game.name}")
        if workers is None:
            workers = os.cpu_count() or 1
        layered = solve_chunked(
            game, folder, symmetry=build.symmetry, progress=progress, workers=workers, scheduler=build.scheduler,
            memory_limit=build.worker_memory,
        )
        if chosen is None and layered.num_states > LARGE_ABOVE:
            chosen = storage_class(LARGE_STORAGE)
        if chosen is not None:
            chosen.write_layers(layered, path=path, seconds=time.perf_counter() - start, progress=progress)
        if build_dir is None:
            shutil.rmtree(folder, ignore_errors=True)
        if chosen is not None:
            return
        start = time.perf_counter()
    solution = solve(game, symmetry=build.symmetry, progress=progress)
    writer = chosen if chosen is not None else _in_memory_storage(game, len(solution.src))
    writer.write_solution(
        solution, engine=engine, path=path, seconds=time.perf_counter() - start, progress=progress
    )


__all__ = ["DENSE_STORAGE", "DEFAULT_STORAGE", "LARGE_ABOVE", "LARGE_MOVES", "LARGE_STORAGE", "Plan", "plan", "run"]
