"""Enumeration and retrograde labelling, against seed figures and an independent oracle."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablebase import games
from tablebase.solve import DRAW_CODE, LOSS_CODE, NO_DISTANCE, WIN_CODE, solve
from tablebase.solve.retrograde import label
from graph_game import GraphGame

# Seed 003 (TicTacToeStateCounter), positions per ply without symmetry and
# classes up to symmetry, for k = N on an N x N board.
SEED_003 = {
    1: ([1, 1], [1, 1]),
    2: ([1, 4, 12, 12], [1, 1, 2, 2]),
    3: ([1, 9, 72, 252, 756, 1260, 1520, 1140, 390, 78], [1, 3, 12, 38, 108, 174, 204, 153, 57, 15]),
}


@pytest.mark.parametrize("size", [1, 2, 3])
def test_state_counts_match_seed_003(size: int) -> None:
    game = games.get(f"mnk-{size}-{size}-{size}")
    positions, classes = SEED_003[size]
    assert np.bincount(solve(game, symmetry=False).ply).tolist() == positions
    assert np.bincount(solve(game, symmetry=True).ply).tolist() == classes


def horizon_oracle(n: int, children: list[list[int]], terminal: list[int]) -> tuple[list[int], list[int]]:
    """Outcome and distance by value iteration over growing horizons (independent of the solver).

    ``V_k(s)`` is WIN_CODE/LOSS_CODE when the side to move can force (or cannot avoid)
    the end within ``k`` plies; a state's distance is the first ``k`` at which
    its value is decided.
    """
    value = [t if t in (WIN_CODE, LOSS_CODE) else 0 for t in terminal]
    dist = [0 if t in (WIN_CODE, LOSS_CODE) else NO_DISTANCE for t in terminal]
    k = 0
    while True:
        k += 1
        new = list(value)
        for s in range(n):
            if value[s] or terminal[s]:
                continue
            kids = [value[c] for c in children[s]]
            if LOSS_CODE in kids:
                new[s] = WIN_CODE
            elif kids and all(v == WIN_CODE for v in kids):
                new[s] = LOSS_CODE
        changed = [s for s in range(n) if new[s] != value[s]]
        if not changed:
            break
        for s in changed:
            dist[s] = k
        value = new
    for s in range(n):
        if not value[s]:
            value[s] = DRAW_CODE
    return value, dist


@given(st.integers(min_value=2, max_value=40), st.integers(min_value=0, max_value=2**32 - 1))
@settings(max_examples=200, deadline=None)
def test_label_agrees_with_horizon_oracle_on_random_cyclic_graphs(n: int, seed: int) -> None:
    rng = random.Random(seed)
    children: list[list[int]] = []
    terminal: list[int] = []
    for s in range(n):
        if rng.random() < 0.2:
            children.append([])
            terminal.append(rng.choice([WIN_CODE, LOSS_CODE, LOSS_CODE]))
        else:
            children.append([rng.randrange(n) for _ in range(rng.randint(1, 3))])
            terminal.append(0)
    src = [s for s in range(n) for _ in children[s]]
    dst = [c for s in range(n) for c in children[s]]
    outcome, distance = label(n, np.array(src), np.array(dst), np.array(terminal))
    value, dist = horizon_oracle(n, children, terminal)
    assert outcome.tolist() == value
    won_or_lost = [v in (WIN_CODE, LOSS_CODE) for v in value]
    assert [d for d, w in zip(distance.tolist(), won_or_lost) if w] == [d for d, w in zip(dist, won_or_lost) if w]


def test_cyclic_game_draws_have_no_distance() -> None:
    # 0 <-> 1 is a cycle both players can stay in; 2 leads to a dead end (3);
    # from 4, moving to 2 loses, so the mover stays in the 4 <-> 5 cycle.
    game = GraphGame({0: [1, 2], 1: [0], 2: [3], 3: [], 4: [2, 5], 5: [4]}, start=0)
    solution = solve(game)
    by_state = dict(zip(solution.states, zip(solution.outcome.tolist(), solution.distance.tolist())))
    assert by_state[3] == (LOSS_CODE, 0)
    assert by_state[2] == (WIN_CODE, 1)
    assert by_state[0] == (DRAW_CODE, NO_DISTANCE)
    assert by_state[1] == (DRAW_CODE, NO_DISTANCE)
    assert 4 not in by_state
    game.start = 4
    solution = solve(game)
    by_state = dict(zip(solution.states, zip(solution.outcome.tolist(), solution.distance.tolist())))
    assert by_state[4] == (DRAW_CODE, NO_DISTANCE)
    assert by_state[5] == (DRAW_CODE, NO_DISTANCE)


def test_cycle_escaped_only_by_losing_is_a_loss_with_slowest_distance() -> None:
    # From 0 the mover must go to 1 or 2; 1 -> 3 (terminal) means the mover at 1 wins;
    # 2 -> 4 -> 5 -> 6 (terminal) is longer. Every branch loses for the side at 0.
    game = GraphGame({0: [1, 2], 1: [3], 2: [4], 3: [], 4: [5], 5: [6], 6: []})
    solution = solve(game)
    result = dict(zip(solution.states, zip(solution.outcome.tolist(), solution.distance.tolist())))
    assert result[6] == (LOSS_CODE, 0)
    assert result[5] == (WIN_CODE, 1)
    assert result[4] == (LOSS_CODE, 2)
    assert result[2] == (WIN_CODE, 3)
    assert result[1] == (WIN_CODE, 1)
    assert result[0] == (LOSS_CODE, 4)


def test_tictactoe_start_is_a_draw_in_nine() -> None:
    solution = solve(games.get("tictactoe"))
    assert solution.result() == ("draw", 9)
    assert solution.num_states == 765


@pytest.mark.parametrize("name", ["tictactoe", "mnk-3-3-2", "mnk-4-3-3", "tictactoe-misere"])
def test_symmetry_does_not_change_values(name: str) -> None:
    game = games.get(name)
    full = solve(game, symmetry=False)
    reduced = solve(game, symmetry=True)
    index = {s: i for i, s in enumerate(reduced.states)}
    for i, state in enumerate(full.states):
        j = index[game.canonical(state)[0]]
        assert full.outcome[i] == reduced.outcome[j]
        assert full.distance[i] == reduced.distance[j]
    assert full.result() == reduced.result()


def test_placement_draw_distance_is_plies_to_a_full_board() -> None:
    solution = solve(games.get("tictactoe"), symmetry=False)
    draws = (solution.outcome == DRAW_CODE)
    assert np.all(solution.distance[draws] == 9 - solution.ply[draws])
