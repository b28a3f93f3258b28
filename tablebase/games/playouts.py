"""Random play over a game's rules: the games and positions that tests, checks and benchmarks sample.

Every move is drawn with the caller's ``random.Random`` among the legal ones, so
a seed gives the same games every time.
"""

from __future__ import annotations

import random
from typing import Callable

from tablebase.games.base import Game


def playout(game: Game, rng: random.Random, plies: int | None = None, stop: Callable[[int], bool] | None = None) -> list[int]:
    """The states of one random game from the start, the first included: play goes on until the
    game is over or has no legal move, ``plies`` moves were made, or ``stop`` holds for the state."""
    state = game.initial_state()
    states = [state]
    while plies is None or len(states) <= plies:
        if game.outcome(state) is not None or (stop is not None and stop(state)):
            break
        moves = game.legal_moves(state)
        if not moves:
            break
        state = game.apply(state, rng.choice(moves))
        states.append(state)
    return states


def _live(game: Game, rng: random.Random, plies: int | None = None, stop: Callable[[int], bool] | None = None) -> int:
    """The last state of a :func:`playout` that is not over (games that end first are played again)."""
    while True:
        state = playout(game, rng, plies, stop)[-1]
        if game.outcome(state) is None:
            return state


def random_position(game: Game, plies: int, rng: random.Random) -> int:
    """A state ``plies`` random moves from the start, the game not over (games that end sooner are
    played again)."""
    return _live(game, rng, plies)


def random_live_position(game: Game, remaining: int, rng: random.Random) -> int:
    """A state reached by random play from the start, not over, with at most ``remaining`` plies
    left by :meth:`Game.max_plies` (for sampling late positions to solve or test); the game must
    bound its plies."""
    return _live(game, rng, stop=lambda state: (game.max_plies(state) or 0) <= remaining)


def random_states(game: Game, playouts: int, seed: int, max_plies: int = 60) -> list[int]:
    """The states of ``playouts`` random games from the start (each stops at its end or after
    ``max_plies`` moves), the games drawn from ``seed``."""
    rng = random.Random(seed)
    return [state for _ in range(playouts) for state in playout(game, rng, max_plies)]


__all__ = ["playout", "random_live_position", "random_position", "random_states"]
