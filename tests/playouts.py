"""Positions from random play, for tests that sample what a game reaches."""

from __future__ import annotations

import random

from tablebase.games.base import Game


def walk(game: Game, rng: random.Random) -> list[int]:
    """The states of one random game from the start, the last one over."""
    state = game.initial_state()
    states = [state]
    while game.outcome(state) is None:
        state = game.apply(state, rng.choice(game.legal_moves(state)))
        states.append(state)
    return states


def random_position(game: Game, plies: int, rng: random.Random) -> int:
    """A state ``plies`` random plies from the start with the game not over (games that end
    sooner are played again)."""
    while True:
        state = game.initial_state()
        for _ in range(plies):
            if game.outcome(state) is not None:
                break
            state = game.apply(state, rng.choice(game.legal_moves(state)))
        if game.outcome(state) is None:
            return state
