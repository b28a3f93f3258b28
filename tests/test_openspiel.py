"""Every reachable position and its value against OpenSpiel's tic_tac_toe and mnk games."""

from __future__ import annotations

import pytest

from tablebase import games
from tablebase.solve import DRAW, LOSS, WIN, solve

pyspiel = pytest.importorskip("pyspiel")

VALUE = {1: WIN, 0: DRAW, -1: LOSS}


def openspiel_values(spiel_game) -> dict[str, int]:
    """Value for the side to move (+1/0/-1) of every reachable state, by memoised negamax."""
    memo: dict[str, int] = {}

    def value(state) -> int:
        key = str(state)
        cached = memo.get(key)
        if cached is not None:
            return cached
        if state.is_terminal():
            to_move = len(state.history()) % 2
            result = int(round(state.returns()[to_move]))
        else:
            result = max(-value(state.child(action)) for action in state.legal_actions())
        memo[key] = result
        return result

    value(spiel_game.new_initial_state())
    return memo


def to_spiel_string(game, state: int) -> str:
    return "\n".join(game.format_position(state).split("/"))


@pytest.mark.parametrize(
    "name, spiel_name",
    [("tictactoe", "tic_tac_toe"), ("mnk-4-3-3", "mnk(m=4,n=3,k=3)")],
)
def test_positions_and_values_match_openspiel(name: str, spiel_name: str) -> None:
    game = games.get(name)
    spiel = openspiel_values(pyspiel.load_game(spiel_name))
    solution = solve(game, symmetry=False)
    ours = {to_spiel_string(game, s): int(o) for s, o in zip(solution.states, solution.outcome.tolist())}
    assert set(ours) == set(spiel)
    mismatches = [k for k, v in spiel.items() if VALUE[v] != ours[k]]
    assert mismatches == []
