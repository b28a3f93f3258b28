"""Solving a game: forward enumeration of its state graph, then retrograde labelling.

:func:`solve` is the entry point. Enumeration walks every state reachable
from the start (one representative per symmetry class when symmetry reduction
is on) breadth first, so each state's ``ply`` is its distance in moves from
the start; the edges keep the move in the representative's orientation.

There are two enumerations and one labeller. Games with array kernels
(``game.vector``) are enumerated layer by layer on numpy arrays
(:mod:`tablebase.solve.vector`); the others state by state in Python
(:func:`enumerate_states`). Both produce the same graph, and labelling is
:func:`tablebase.solve.retrograde.label` for every game: on the whole graph,
or, for layered games on the vector path, one layer at a time from the last
(:func:`tablebase.solve.retrograde.label_layered`), which keeps the
labeller's memory to two layers.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from tablebase.games.base import Game
from tablebase.progress import Progress
from tablebase.solve.retrograde import (
    DRAW,
    LOSS,
    NO_DISTANCE,
    OUTCOME_CODES,
    OUTCOME_NAMES,
    UNKNOWN,
    WIN,
    label,
    label_layered,
)

__all__ = [
    "DRAW",
    "LOSS",
    "NO_DISTANCE",
    "OUTCOME_NAMES",
    "PlyCounts",
    "UNKNOWN",
    "WIN",
    "Progress",
    "Solution",
    "count",
    "enumerate_arrays",
    "enumerate_states",
    "label",
    "solve",
]



@dataclass
class Solution:
    """A solved variant: states in breadth-first order and the moves between them.

    ``states`` is a list of Python integers on the scalar path and an
    ``np.uint64`` array on the vector path; the other columns are arrays
    either way (``src``/``dst`` index into ``states``, sorted by ``src``).
    """

    game: Game
    symmetry: bool
    states: list[int] | np.ndarray
    ply: np.ndarray
    terminal: np.ndarray
    src: np.ndarray
    move: np.ndarray
    dst: np.ndarray
    outcome: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int8))
    distance: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int32))
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def num_states(self) -> int:
        return len(self.states)

    @property
    def num_moves(self) -> int:
        return int(self.src.size)

    def result(self) -> tuple[str, int | None]:
        """Outcome and distance of the start position."""
        d = int(self.distance[0])
        return OUTCOME_NAMES[int(self.outcome[0])], (None if d == NO_DISTANCE else d)


def enumerate_states(
    game: Game,
    symmetry: bool = True,
    progress: Progress | None = None,
    start: int | None = None,
    stop: Callable[[int, int], bool] | None = None,
) -> Solution:
    """Every state reachable from the start (or from the state ``start``), breadth first, with its
    edges (unlabelled).

    ``stop(i, found)`` is asked after the ``i``-th state (from 0) is looked at, with ``found``
    states known by then; when it answers true the walk ends there and the solution is partial:
    ``states`` holds every state found, ``terminal`` and the edges only those of the states looked at.
    """
    canon = game.canonical if symmetry else (lambda s: (s, 0))
    start = canon(game.initial_state() if start is None else start)[0]
    index: dict[int, int] = {start: 0}
    states = [start]
    ply = [0]
    terminal: list[int] = []
    src: list[int] = []
    moves: list[int] = []
    dst: list[int] = []
    i = 0
    while i < len(states):
        state = states[i]
        result = game.outcome(state)
        if result is not None:
            terminal.append(OUTCOME_CODES[result])
        else:
            terminal.append(UNKNOWN)
            depth = ply[i] + 1
            for move, child in game.children(state):
                child = canon(child)[0]
                j = index.get(child)
                if j is None:
                    j = index[child] = len(states)
                    states.append(child)
                    ply.append(depth)
                src.append(i)
                moves.append(move)
                dst.append(j)
        if stop is not None and stop(i, len(states)):
            break
        i += 1
        if progress is not None and i % 4096 == 0:
            progress("enumerate", i, None)
    if progress is not None:
        progress("enumerate", len(states), len(states))
    return Solution(
        game=game,
        symmetry=symmetry,
        states=states,
        ply=np.asarray(ply, dtype=np.int32),
        terminal=np.asarray(terminal, dtype=np.int8),
        src=np.asarray(src, dtype=np.int64),
        move=np.asarray(moves, dtype=np.int64),
        dst=np.asarray(dst, dtype=np.int64),
    )


def enumerate_arrays(game: Game, symmetry: bool = True, progress: Progress | None = None) -> Solution:
    """Like :func:`enumerate_states`, on the game's array kernels (``game.vector`` must be set)."""
    from tablebase.solve.vector import enumerate_vector

    kernels = game.vector
    if kernels is None:
        raise ValueError(f"{game.name} has no array kernels")
    states, ply, terminal, src, move, dst = enumerate_vector(kernels, game.initial_state(), symmetry, progress)
    if progress is not None:
        progress("enumerate", len(states), len(states))
    return Solution(
        game=game, symmetry=symmetry, states=states, ply=ply, terminal=terminal, src=src, move=move, dst=dst
    )


def solve(
    game: Game, symmetry: bool = True, progress: Progress | None = None, vector: bool | None = None
) -> Solution:
    """Enumerate and label every reachable state of ``game``.

    ``vector`` chooses the enumeration: ``None`` uses the array kernels when
    the game has them, ``False`` forces the scalar path, ``True`` requires
    the kernels.
    """
    use_vector = game.vector is not None if vector is None else vector
    t0 = time.perf_counter()
    if use_vector:
        solution = enumerate_arrays(game, symmetry=symmetry, progress=progress)
    else:
        solution = enumerate_states(game, symmetry=symmetry, progress=progress)
    t1 = time.perf_counter()
    n = solution.num_states

    def labelled(done: int) -> None:
        if progress is not None:
            progress("label", done, n)

    if use_vector and game.vector is not None and game.vector.layered:
        solution.outcome, solution.distance = label_layered(
            solution.ply, solution.src, solution.dst, solution.terminal, labelled
        )
    else:
        solution.outcome, solution.distance = label(n, solution.src, solution.dst, solution.terminal, labelled)
    t2 = time.perf_counter()
    solution.seconds = {"enumerate": t1 - t0, "label": t2 - t1}
    return solution


@dataclass(frozen=True)
class PlyCounts:
    """How many positions and symmetry classes are reachable after ``ply`` moves, and how many are terminal."""

    ply: int
    positions: int
    classes: int
    terminal: int


def count(
    game: Game, symmetry: bool = True, progress: Progress | None = None, vector: bool | None = None
) -> list[PlyCounts]:
    """Per-ply counts of reachable positions and symmetry classes, without labelling or storing.

    With ``symmetry`` the walk visits one state per class and counts the
    positions as orbit sizes; without, it visits every position and counts
    the classes as the states that are their own canonical form. Both give
    the same table (a check of the symmetry code).
    """
    use_vector = game.vector is not None if vector is None else vector
    if use_vector:
        from tablebase.solve.vector import count_layers

        kernels = game.vector
        if kernels is None:
            raise ValueError(f"{game.name} has no array kernels")
        layers = count_layers(kernels, game.initial_state(), symmetry, progress)
        return [PlyCounts(c.depth, c.positions, c.classes, c.terminal) for c in layers]
    solution = enumerate_states(game, symmetry=symmetry, progress=progress)
    plies = int(solution.ply.max()) + 1
    states = solution.states
    if symmetry:
        positions = np.bincount(solution.ply, weights=[game.orbit_size(s) for s in states], minlength=plies)
        classes = np.bincount(solution.ply, minlength=plies)
    else:
        positions = np.bincount(solution.ply, minlength=plies)
        classes = np.bincount(solution.ply, weights=[game.canonical(s)[0] == s for s in states], minlength=plies)
    terminal = np.bincount(solution.ply[solution.terminal != UNKNOWN], minlength=plies)
    return [PlyCounts(p, int(positions[p]), int(classes[p]), int(terminal[p])) for p in range(plies)]
