"""The build of a game tier by tier: each unit of tiers a task, on local processes or a Dask cluster, stored as it is finished.

The game gives its tiers in units (:class:`~tablebase.games.tiering.DenseTiers`):
tiers solved together, each unit reading tiers of units before it. The
units fall into waves: a unit's wave is one past the highest wave of the
units it reads, so the units of one wave are solved side by side. A task
(:func:`solve_task`) reads the tiers its unit reads from the database file,
has the game solve the unit on the threads it is given, and stores the
unit's tiers in one transaction (:func:`tablebase.store.tiers.write_unit`),
returning only their numbers and classes. The units stored already are
skipped, so the same command goes on with a stopped build; a worker that
dies has its task run again by the scheduler (the unit is stored whole or
not at all, and storing it again replaces it).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

from tablebase.errors import BuildError

if TYPE_CHECKING:
    from tablebase.games.base import Game
    from tablebase.games.tiering import DenseTiers, TierUnit
    from tablebase.solve import Progress
    from tablebase.solve.executor import Executor


def tiering_of(game: Game, limit: int) -> DenseTiers:
    """``game``'s tiers of at most ``limit``; :class:`BuildError` when it has none or ``limit`` is out of range."""
    try:
        tiering = game.tiering(limit)
    except ValueError as exc:
        raise BuildError(f"variant {game.name!r}: {exc}") from None
    if tiering is None:
        raise BuildError(f"variant {game.name!r} is not built tier by tier; build it without a tier limit")
    return tiering


def waves(tiering: DenseTiers) -> list[list[TierUnit]]:
    """The units in waves: each wave's units read only the tiers of the waves before it."""
    wave_of: dict[int, int] = {}
    out: list[list[TierUnit]] = []
    for unit in tiering.units():
        wave = 1 + max((wave_of[t] for t in unit.reads), default=-1)
        for t in unit.tiers:
            wave_of[t] = wave
        while len(out) <= wave:
            out.append([])
        out[wave].append(unit)
    return out


def solve_task(path: str, name: str, limit: int, variant_id: int, unit: TierUnit, threads: int | None) -> dict[int, int]:
    """Solve and store one unit of variant ``name`` (its tiers of at most ``limit``), reading the tiers
    below it from ``path``, on ``threads`` threads (``None``: one a core); the classes of each tier stored."""
    from tablebase import games
    from tablebase.store.tiers import read_values, write_unit

    started = time.perf_counter()
    game = games.get(name)
    tiering = tiering_of(game, limit)
    below = {n: read_values(Path(path), variant_id, n, tiering.size(n)) for n in unit.reads}
    solved = tiering.solve(unit, below, threads or os.cpu_count() or 1)
    del below
    write_unit(Path(path), game, tiering, variant_id, solved, time.perf_counter() - started)
    return {n: int((v != 0xFFFF).sum()) for n, v in solved.items()}


def _threads(executor: Executor, tasks: int) -> int | None:
    """The threads each of ``tasks`` tasks run side by side is given: the cores shared among the tasks
    running at once on this machine; ``None`` on a cluster's workers (one a core of theirs)."""
    local = executor.local_workers
    if local is None:
        return None
    return max(1, (os.cpu_count() or 1) // max(1, min(local, tasks)))


def build_tiers(
    game: Game, limit: int, path: Path, executor: Executor, progress: Progress | None = None
) -> tuple[int, int]:
    """Solve and store every tier of ``game`` of at most ``limit`` not stored in ``path`` yet; returns
    the tiers solved now and the tiers stored in all."""
    from tablebase.store.tiers import open_tiered, stored_tiers

    tiering = tiering_of(game, limit)
    variant_id = open_tiered(path, game)
    done = stored_tiers(path, variant_id)
    todo = sum(1 for unit in tiering.units() for t in unit.tiers if t not in done)
    solved = 0
    if progress is not None:
        progress("tiers", 0, todo)
    for wave in waves(tiering):
        units = [unit for unit in wave if not all(t in done for t in unit.tiers)]
        threads = _threads(executor, len(units))
        tasks = [(str(path), game.name, limit, variant_id, unit, threads) for unit in units]
        for result in executor.map(solve_task, tasks):
            solved += len(result)
            if progress is not None:
                progress("tiers", solved, todo)
    return solved, len(done) + solved
