"""Solving a game: forward enumeration of its state graph, then retrograde labelling.

:func:`solve` is the entry point. Enumeration walks every state reachable
from the start (one representative per symmetry class when symmetry reduction
is on) breadth first, so each state's ``ply`` is its distance in moves from
the start; the edges keep the move in the representative's orientation.
Labelling is :func:`tablebase.solve.retrograde.label`, shared by every game.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from tablebase.games.base import Game
from tablebase.solve.retrograde import DRAW, LOSS, NO_DISTANCE, OUTCOME_CODES, OUTCOME_NAMES, UNKNOWN, WIN, label

__all__ = [
    "DRAW",
    "LOSS",
    "NO_DISTANCE",
    "OUTCOME_NAMES",
    "UNKNOWN",
    "WIN",
    "Progress",
    "Solution",
    "enumerate_states",
    "label",
    "solve",
]

#: ``progress(phase, done, total)``; ``total`` is ``None`` when unknown.
Progress = Callable[[str, int, "int | None"], None]


@dataclass
class Solution:
    """A solved variant: states in breadth-first order and the moves between them."""

    game: Game
    symmetry: bool
    states: list[int]
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


def enumerate_states(game: Game, symmetry: bool = True, progress: Progress | None = None) -> Solution:
    """Every state reachable from the start, breadth first, with its edges (unlabelled)."""
    canon = game.canonical if symmetry else (lambda s: (s, 0))
    start = canon(game.initial_state())[0]
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


def solve(game: Game, symmetry: bool = True, progress: Progress | None = None) -> Solution:
    """Enumerate and label every reachable state of ``game``."""
    t0 = time.perf_counter()
    solution = enumerate_states(game, symmetry=symmetry, progress=progress)
    t1 = time.perf_counter()
    n = solution.num_states
    levels = [0]

    def level_done(size: int) -> None:
        levels[0] += 1
        if progress is not None:
            progress("label", levels[0], None)

    solution.outcome, solution.distance = label(n, solution.src, solution.dst, solution.terminal, level_done)
    t2 = time.perf_counter()
    solution.seconds = {"enumerate": t1 - t0, "label": t2 - t1}
    return solution
