"""Every reachable position and its value against OpenSpiel's tic_tac_toe and mnk games."""

from __future__ import annotations

import pytest

from tablebase import games
from tablebase.solve import DRAW_CODE, LOSS_CODE, WIN_CODE, solve

pyspiel = pytest.importorskip("pyspiel")

VALUE = {1: WIN_CODE, 0: DRAW_CODE, -1: LOSS_CODE}


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
    [("tictactoe", "tic_tac_toe"), pytest.param("mnk-4-3-3", "mnk(m=4,n=3,k=3)", marks=pytest.mark.slow)],
)
def test_positions_and_values_match_openspiel(name: str, spiel_name: str) -> None:
    game = games.get(name)
    spiel = openspiel_values(pyspiel.load_game(spiel_name))
    solution = solve(game, symmetry=False)
    ours = {to_spiel_string(game, s): int(o) for s, o in zip(solution.states, solution.outcome.tolist())}
    assert set(ours) == set(spiel)
    mismatches = [k for k, v in spiel.items() if VALUE[v] != ours[k]]
    assert mismatches == []


def spiel_value(ps_state, memo: dict[str, float]) -> float:
    """Value for x (player 0) of an OpenSpiel state under perfect play, by plain minimax."""
    if ps_state.is_terminal():
        return ps_state.returns()[0]
    key = str(ps_state) + f"|{ps_state.current_player()}|{len(ps_state.history())}"
    if key not in memo:
        values = [spiel_value(ps_state.child(a), memo) for a in ps_state.legal_actions()]
        memo[key] = max(values) if ps_state.current_player() == 0 else min(values)
    return memo[key]


def spiel_apply(ps_state, move: int, free: bool) -> None:
    """Play our move ``9 * field + spot``: OpenSpiel takes a free choice as the field, then the spot."""
    if free:
        ps_state.apply_action(move // 9)
    ps_state.apply_action(move % 9)


@pytest.mark.slow
def test_solved_ultimate_classic_positions_match_openspiel(tmp_path) -> None:
    """Late positions of random games: `solve` and `probe` give the outcome of OpenSpiel's
    ultimate_tic_tac_toe under perfect play, for the position and after every move."""
    import random

    import tablebase

    game = games.get("ultimate-classic")
    spiel = pyspiel.load_game("ultimate_tic_tac_toe")
    rng = random.Random(81)
    memo: dict[str, float] = {}
    name = {1: "win", 0: "draw", -1: "loss"}
    seen = set()
    with tablebase.open(tmp_path / "u.db") as tb:
        for k in range(60):
            state, ps = game.initial_state(), spiel.new_initial_state()
            while game.outcome(state) is None and game.max_plies(state) > 6 + k % 6:
                move = rng.choice(game.legal_moves(state))
                spiel_apply(ps, move, game.active_field(state) is None)
                state = game.apply(state, move)
            if game.outcome(state) is not None:
                continue
            position = game.format_position(state)
            x_to_move = game.to_move(state) == "x"
            report = tb.solve("ultimate-classic", position)
            assert name[round(spiel_value(ps, memo) * (1 if x_to_move else -1))] == report.outcome
            probe = tb.variant("ultimate-classic").probe(position)
            assert len(probe.moves) == len(game.legal_moves(state))
            for m in probe.moves:
                child = ps.clone()
                spiel_apply(child, game.parse_move(state, m.move), game.active_field(state) is None)
                assert name[round(spiel_value(child, memo) * (1 if x_to_move else -1))] == m.outcome
            seen.add(report.outcome)
    assert seen == {"win", "loss", "draw"}
