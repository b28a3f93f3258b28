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
from functools import lru_cache
from typing import Callable

import numpy as np

from tablebase.games.base import Game
from tablebase.progress import Progress
from tablebase.solve.retrograde import (
    DRAW_CODE,
    LOSS_CODE,
    NO_DISTANCE,
    OUTCOME_CODES,
    OUTCOME_NAMES,
    UNKNOWN_CODE,
    WIN_CODE,
    label,
    label_layered,
)

__all__ = [
    "DRAW_CODE",
    "LOSS_CODE",
    "NO_DISTANCE",
    "OUTCOME_NAMES",
    "ReachCounts",
    "Reached",
    "UNKNOWN_CODE",
    "WIN_CODE",
    "Progress",
    "Solution",
    "count",
    "enumerate_arrays",
    "enumerate_states",
    "label",
    "moves_start",
    "reached",
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
            terminal.append(UNKNOWN_CODE)
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
class ReachCounts:
    """How many positions and symmetry classes are reachable after ``ply`` moves, and how many are terminal."""

    ply: int
    positions: int
    classes: int
    terminal: int


@dataclass(frozen=True, eq=False)
class Reached:
    """The positions the rules reach from the start of a game that some symmetry moves the start of,
    each with the ply it is first reached at.

    There the image of a reachable position need not be reachable, so a
    symmetry class stands for those of its positions that are, not for its
    whole orbit.
    """

    game: Game
    plies: dict[int, int]

    def _members(self, state: int) -> list[tuple[int, int]]:
        """``(ply, position)`` of the reachable positions of the class of ``state``, first reached first."""
        images = {self.game.transform(state, s) for s in range(self.game.num_symmetries)}
        return sorted((self.plies[image], image) for image in images if image in self.plies)

    def positions(self, state: int) -> int:
        """How many positions of the class of ``state`` are reachable."""
        return len(self._members(state))

    def counts_class(self, state: int) -> bool:
        """Whether ``state`` is the position that counts its class in a walk over every position: of the
        class's reachable positions, the first reached (the smallest of those)."""
        members = self._members(state)
        return bool(members) and members[0][1] == state


def moves_start(game: Game) -> bool:
    """Whether some symmetry of ``game`` maps its start onto another position."""
    start = game.initial_state()
    return any(game.transform(start, s) != start for s in range(game.num_symmetries))


@lru_cache(maxsize=8)
def reached(game: Game) -> Reached | None:
    """``None`` when every symmetry of ``game`` fixes its start: then every image of a reachable
    position is reachable in as many moves, and a class stands for its whole orbit
    (:meth:`~tablebase.games.base.Game.orbit_size`); else the positions the rules reach (a walk
    over every position)."""
    if not moves_start(game):
        return None
    walk = enumerate_states(game, symmetry=False)
    return Reached(game, dict(zip((int(s) for s in walk.states), walk.ply.tolist())))


def count(
    game: Game, symmetry: bool = True, progress: Progress | None = None, vector: bool | None = None
) -> list[ReachCounts]:
    """Per-ply counts of reachable positions and symmetry classes, without labelling or storing.

    With ``symmetry`` the walk visits one state per class, counted at the
    ply its class is first reached, and counts the positions as orbit sizes
    (the reachable positions of the class when a symmetry moves the start:
    :func:`reached`); without, it visits every position and counts a class
    at the first of its positions reached. Both give the same table (a check
    of the symmetry code) but for a cyclic game whose start a symmetry
    moves, where positions of one class may be first reached at different
    plies. The array kernels count (``vector``) only where every symmetry
    fixes the start.
    """
    reach = reached(game)
    use_vector = (game.vector is not None if vector is None else vector) and reach is None
    if use_vector:
        from tablebase.solve.vector import count_layers

        kernels = game.vector
        if kernels is None:
            raise ValueError(f"{game.name} has no array kernels")
        layers = count_layers(kernels, game.initial_state(), symmetry, progress)
        return [ReachCounts(c.depth, c.positions, c.classes, c.terminal) for c in layers]
    solution = enumerate_states(game, symmetry=symmetry, progress=progress)
    plies = int(solution.ply.max()) + 1
    states = solution.states
    if symmetry:
        orbits = [game.orbit_size(s) if reach is None else reach.positions(s) for s in states]
        positions = np.bincount(solution.ply, weights=orbits, minlength=plies)
        classes = np.bincount(solution.ply, minlength=plies)
    else:
        counted = [game.canonical(s)[0] == s if reach is None else reach.counts_class(s) for s in states]
        positions = np.bincount(solution.ply, minlength=plies)
        classes = np.bincount(solution.ply, weights=counted, minlength=plies)
    terminal = np.bincount(solution.ply[solution.terminal != UNKNOWN_CODE], minlength=plies)
    return [ReachCounts(p, int(positions[p]), int(classes[p]), int(terminal[p])) for p in range(plies)]
