"""One simulation test over every registered variant, through the public API.

Random playouts check that position strings round-trip, that playing a move
leaves the old position as it was, that terminal positions have no moves,
that the probed moves are exactly the legal ones, and that symmetric
positions have equal values.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import tablebase
from tablebase import games
from game_checks import check_random_play, check_random_symmetries, random_states
from serve_support import build_database

VARIANTS = [name for name in games.names() if games.get(name).enumerable]


@pytest.fixture(scope="module")
def every_variant(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_database(tmp_path_factory.mktemp("sim") / "all.db", VARIANTS)


def test_registry_is_not_empty() -> None:
    assert {"tictactoe", "roman", "rota", "wild"} <= set(VARIANTS)


@pytest.mark.parametrize("name", VARIANTS)
def test_random_playouts(every_variant: Path, name: str) -> None:
    rng = random.Random(name)
    with tablebase.open(every_variant) as tb:
        table = tb.variant(name)
        game = table.game
        assert tb.verify(name).ok
        for _ in range(30):
            position = table.probe().position
            for _ply in range(60):
                state = game.parse_position(position)
                assert game.format_position(state) == position
                probe = table.probe(position)
                assert probe.position == position
                legal = {game.format_move(m) for m in game.legal_moves(state)} if not probe.terminal else set()
                assert {m.move for m in probe.moves} == legal
                for sym in range(game.num_symmetries):
                    image = game.format_position(game.transform(state, sym))
                    other = table.probe(image)
                    assert (other.outcome, other.distance) == (probe.outcome, probe.distance)
                if probe.terminal:
                    assert probe.moves == () and probe.distance == 0
                    break
                move = rng.choice(probe.moves)
                after = table.play(position, move.move)
                assert after == move.position
                assert table.probe(position) == probe
                position = after


@pytest.mark.parametrize("name", games.names())
def test_search_hints_hold_on_random_playouts(name: str) -> None:
    game = games.get(name)
    rng = random.Random(name)
    for _ in range(20):
        state = game.initial_state()
        bounds = []
        for _ply in range(200):
            assert game.move_count(state) == len(game.legal_moves(state))
            bounds.append(game.max_plies(state))
            if game.outcome(state) is not None:
                break
            state = game.apply(state, rng.choice(game.legal_moves(state)))
        else:
            continue
        for played_before, bound in enumerate(bounds):
            assert bound is None or bound >= len(bounds) - 1 - played_before


@pytest.mark.parametrize("name", [name for name in games.names() if games.get(name).has_unmoves])
def test_unmoves_invert_moves(name: str) -> None:
    game = games.get(name)
    for state in random_states(game, 40, seed=7):
        for move, child in game.children(state):
            assert (state, move) in game.unmoves(child), (game.format_position(state), game.format_move(move))
        for parent, move in game.unmoves(state):
            assert game.outcome(parent) is None
            assert move in game.legal_moves(parent) and game.apply(parent, move) == state


def test_games_that_list_unmoves() -> None:
    assert {"tictactoe", "mnk-5-4-4", "roman", "roman-lines", "rota", "wild"} <= {
        name for name in [*games.names(), "mnk-5-4-4"] if games.get(name).has_unmoves
    }
    assert not games.get("ultimate-strategy").has_unmoves


@pytest.mark.parametrize("name", ["roman", "roman-adjacent", "roman-lines", "rota", "rota-circle", "wild", "wild-misere"])
def test_rules_hold_on_random_playouts(name: str) -> None:
    """Every state of random playouts passes the generic checks, and symmetries map moves with states."""
    game = games.get(name)
    check_random_play(game, playouts=60, seed=2)
    check_random_symmetries(game, playouts=10, seed=3, step=3)
