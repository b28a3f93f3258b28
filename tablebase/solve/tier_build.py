"""The build of a game tier by tier: each tier a task, on local processes or a Dask cluster, stored as it is finished.

The tiers fall into waves: a tier's wave is one past the highest wave of the
tiers its moves lead to, so the tiers of one wave read only tiers finished
before it and are solved side by side. A task (:func:`solve_task`) reads the
tiers below its own from the database file, labels its tier
(:func:`tablebase.solve.tiers.solve_tier`) and returns the values; the build
writes each tier as it comes back (:func:`tablebase.store.tiers.write_tier`).
The tiers stored already are skipped, so the same command goes on with a
stopped build; a worker that dies has its task run again by the scheduler.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Hashable

from tablebase.errors import BuildError

if TYPE_CHECKING:
    import numpy as np

    from tablebase.games.base import Game
    from tablebase.games.tiering import Tiering
    from tablebase.solve import Progress
    from tablebase.solve.executor import Executor


@dataclass(frozen=True)
class TierResult:
    """What a task returns: one tier's number, sorted states, outcome codes and distances, moves and seconds."""

    number: int
    states: np.ndarray
    outcome: np.ndarray
    distance: np.ndarray
    moves: int
    seconds: float


def tiering_of(game: Game, limit: int) -> Tiering[Any]:
    """``game``'s tiers of at most ``limit``; :class:`BuildError` when it has none or ``limit`` is out of range."""
    try:
        tiering = game.tiering(limit)
    except ValueError as exc:
        raise BuildError(f"variant {game.name!r}: {exc}") from None
    if tiering is None:
        raise BuildError(f"variant {game.name!r} is not built tier by tier; build it without a tier limit")
    return tiering


def waves(tiering: Tiering[Any]) -> list[list[Hashable]]:
    """The tiers in waves: each wave's tiers read only the tiers of the waves before it."""
    wave: dict[Hashable, int] = {}
    for tier in tiering.tiers():
        wave[tier] = 1 + max((wave[child] for child in tiering.child_tiers(tier)), default=-1)
    out: list[list[Hashable]] = [[] for _ in range(1 + max(wave.values(), default=-1))]
    for tier, w in wave.items():
        out[w].append(tier)
    return out


def solve_task(path: str, name: str, limit: int, variant_id: int, tier: Hashable) -> TierResult:
    """Solve one tier of variant ``name`` (its tiers of at most ``limit``), reading the tiers below it from ``path``."""
    from tablebase import games
    from tablebase.solve.tiers import SolvedTier, solve_tier
    from tablebase.store.tiers import read_tier

    started = time.perf_counter()
    game = games.get(name)
    tiering = tiering_of(game, limit)
    below = [
        SolvedTier(child, *read_tier(Path(path), game, variant_id, tiering.number(child)))
        for child in tiering.child_tiers(tier)
    ]
    kernels = game.vector
    if kernels is None:
        raise BuildError(f"variant {name!r} has no array kernels to solve tiers with")
    solved = solve_tier(tiering, kernels, tier, below)
    return TierResult(
        tiering.number(tier), solved.states, solved.outcome, solved.distance, solved.moves, time.perf_counter() - started
    )


def build_tiers(
    game: Game, limit: int, path: Path, executor: Executor, progress: Progress | None = None
) -> tuple[int, int]:
    """Solve and store every tier of ``game`` of at most ``limit`` not stored in ``path`` yet;
    returns the tiers solved now and the tiers stored in all."""
    from tablebase.store.tiers import open_tiered, stored_tiers, write_tier

    tiering = tiering_of(game, limit)
    variant_id = open_tiered(path, game)
    done = stored_tiers(path, variant_id)
    all_tiers = list(tiering.tiers())
    todo = sum(1 for t in all_tiers if tiering.number(t) not in done)
    solved = 0
    if progress is not None:
        progress("tiers", 0, todo)
    for wave in waves(tiering):
        tasks = [(str(path), game.name, limit, variant_id, t) for t in wave if tiering.number(t) not in done]
        for result in executor.map(solve_task, tasks):
            write_tier(
                path, game, variant_id, result.number, result.states, result.outcome, result.distance,
                result.moves, result.seconds,
            )  # fmt: skip
            solved += 1
            if progress is not None:
                progress("tiers", solved, todo)
    return solved, len(done) + solved
