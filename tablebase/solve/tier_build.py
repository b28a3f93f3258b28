"""The build of a game tier by tier: each unit of tiers a task, on local processes or a Dask cluster, stored as it is finished.

The game gives its tiers in units (:class:`~tablebase.games.tiering.DenseTiers`):
tiers solved together, each unit reading tiers of units before it. The
units fall into waves: a unit's wave is one past the highest wave of the
units it reads, so the units of one wave are solved side by side (the
largest first). A task
(:func:`solve_task`) reads the tiers its unit reads from the database file,
has the game solve the unit on the cores it may use (:class:`CoreShare`:
this machine's cores shared among the tasks running on it, counted again
as tasks start and end, so that the last unit of a wave takes the cores
the others leave), and stores the
unit's tiers in one transaction (:func:`tablebase.store.tiers.write_unit`),
returning only their numbers and classes. The units stored already are
skipped, so the same command goes on with a stopped build; a worker that
dies has its task run again by the scheduler (the unit is stored whole or
not at all, and storing it again replaces it).
"""

from __future__ import annotations

import os
import tempfile
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator

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


@dataclass(frozen=True)
class CoreShare:
    """The cores of one machine shared among the tasks of a build running on it: a task holds a file
    in ``directory`` while it runs (:meth:`held`), and may use the machine's cores divided among the
    tasks holding one, at least one; without a directory (a cluster's worker), every core of its machine."""

    directory: str | None = None

    @contextmanager
    def held(self) -> Iterator[Callable[[], int]]:
        """While the block runs, this task holds its file; yields the cores it may use now."""
        cores = os.cpu_count() or 1
        if self.directory is None:
            yield lambda: cores
            return
        directory = Path(self.directory)
        mine = directory / f"{os.getpid()}-{uuid.uuid4().hex}"
        mine.touch()
        try:
            yield lambda: max(1, cores // max(1, _live(directory)))
        finally:
            mine.unlink(missing_ok=True)


def _live(directory: Path) -> int:
    """The files in ``directory`` of processes still running (those of dead ones are removed)."""
    live = 0
    for entry in directory.iterdir():
        try:
            os.kill(int(entry.name.split("-", 1)[0]), 0)
        except ProcessLookupError:
            entry.unlink(missing_ok=True)
            continue
        except (ValueError, PermissionError):
            pass
        live += 1
    return live


def solve_task(path: str, name: str, limit: int, variant_id: int, unit: TierUnit, cores: CoreShare) -> dict[int, int]:
    """Solve and store one unit of variant ``name`` (its tiers of at most ``limit``), reading the tiers
    below it from ``path``, on the cores of its machine ``cores`` leaves it; the classes of each tier stored."""
    from tablebase import games
    from tablebase.store.tiers import read_values, write_unit

    with cores.held() as threads:
        started = time.perf_counter()
        game = games.get(name)
        tiering = tiering_of(game, limit)
        below = {n: read_values(Path(path), variant_id, n, tiering.size(n)) for n in unit.reads}
        solved = tiering.solve(unit, below, threads)
        del below
        write_unit(Path(path), game, tiering, variant_id, solved, time.perf_counter() - started)
    return {n: int((v != 0xFFFF).sum()) for n, v in solved.items()}


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
    with tempfile.TemporaryDirectory(prefix="tablebase-cores-") as directory:
        cores = CoreShare(directory if executor.local_workers is not None else None)
        for wave in waves(tiering):
            units = [unit for unit in wave if not all(t in done for t in unit.tiers)]
            units.sort(key=lambda unit: -sum(tiering.size(t) for t in unit.tiers))
            tasks = [(str(path), game.name, limit, variant_id, unit, cores) for unit in units]
            for result in executor.map(solve_task, tasks):
                solved += len(result)
                if progress is not None:
                    progress("tiers", solved, todo)
    return solved, len(done) + solved
