"""Rules, notation and symmetry of the m,n,k family."""

from __future__ import annotations

import random

import pytest

from tablebase import games
from tablebase.errors import IllegalMoveError, MalformedPositionError, UnknownVariantError
from tablebase.games.mnk import MNKGame
from tablebase.games.playouts import playout


@pytest.fixture
def ttt() -> MNKGame:
    return games.get("tictactoe")


def test_names_and_parameters() -> None:
    assert games.get("mnk-3-3-3").parameters() == {"m": 3, "n": 3, "k": 3, "misere": False}
    assert games.get("mnk-4-3-3").num_symmetries == 4
    assert games.get("mnk-4-4-4").num_symmetries == 8
    assert games.get("tictactoe-misere").misere
    assert games.get("mnk-4-4-4-misere").name == "mnk-4-4-4-misere"


@pytest.mark.parametrize("name", ["mnk-0-0-0", "mnk-9-9-9", "mnk-3-3-4", "mnk-5-5-4", "mnk-3-3-0"])
def test_absurd_parameters_are_refused_with_the_range(name: str) -> None:
    with pytest.raises(UnknownVariantError) as err:
        games.get(name)
    assert "must be" in str(err.value)


def test_unknown_name_quotes_input() -> None:
    with pytest.raises(UnknownVariantError, match="'chess'"):
        games.get("chess")


@pytest.mark.parametrize(
    "text, problem",
    [
        ("xo./...", "2 rows"),
        ("xo/.../...", "row 1 has 2 cells"),
        ("xq./.../...", "bad character 'q'"),
        ("xx./.../...", "2 x and 0 o"),
        ("oo./x../...", "1 x and 2 o"),
        ("xxx/ooo/x..", "both sides"),
        ("xxx/oo./o..", "x has 3 in a row but o moved last"),
        ("ooo/xx./xx.", "o has 3 in a row but x moved last"),
        ("x../.../... x", "wrong side to move"),
        ("x../.../... z", "side to move"),
    ],
)
def test_malformed_positions_name_the_problem(ttt: MNKGame, text: str, problem: str) -> None:
    with pytest.raises(MalformedPositionError) as err:
        ttt.parse_position(text)
    assert problem in str(err.value)
    assert repr(text) in str(err.value)


def test_moves_parse_and_errors(ttt: MNKGame) -> None:
    state = ttt.parse_position("x../.../...")
    assert ttt.parse_move(state, "b2") == 4
    assert ttt.format_move(8) == "c3"
    with pytest.raises(IllegalMoveError, match="occupied"):
        ttt.parse_move(state, "a1")
    for bad in ("d1", "a4", "B2", "b02", "", "b", "22"):
        with pytest.raises(IllegalMoveError):
            ttt.parse_move(state, bad)
    over = ttt.parse_position("xxx/oo./...")
    with pytest.raises(IllegalMoveError, match="over"):
        ttt.parse_move(over, "c3")


def test_terminal_outcomes(ttt: MNKGame) -> None:
    assert ttt.outcome(ttt.parse_position("xxx/oo./...")) == "loss"
    assert ttt.outcome(ttt.parse_position("xox/xoo/oxx")) == "draw"
    assert ttt.outcome(ttt.parse_position("xo./.../...")) is None
    misere = games.get("tictactoe-misere")
    assert misere.outcome(misere.parse_position("xxx/oo./...")) == "win"


def random_states(game: MNKGame, count: int, seed: int = 1) -> list[int]:
    rng = random.Random(seed)
    out: list[int] = []
    while len(out) < count:
        out += playout(game, rng)
    return out


@pytest.mark.parametrize("name", ["tictactoe", "mnk-4-3-3", "mnk-4-4-4", "mnk-3-4-3", "mnk-5-4-4"])
def test_round_trip_and_symmetry_commutes_with_moves(name: str) -> None:
    game = games.get(name)
    for state in random_states(game, 200):
        text = game.format_position(state)
        assert game.parse_position(text) == state
        assert game.format_position(game.parse_position(text)) == text
        canon, sym = game.canonical(state)
        assert game.transform(state, sym) == canon
        assert game.transform(canon, game.inverse_symmetry(sym)) == state
        if game.outcome(state) is not None:
            continue
        for move in game.legal_moves(state):
            assert game.format_move(game.parse_move(state, game.format_move(move))) == game.format_move(move)
            for g in range(game.num_symmetries):
                moved = game.apply(game.transform(state, g), game.transform_move(move, g))
                assert moved == game.transform(game.apply(state, move), g)


def test_canonical_is_smallest_image(ttt: MNKGame) -> None:
    corner = ttt.parse_position("..x/.../...")
    images = {ttt.transform(corner, s) for s in range(8)}
    assert len(images) == 4
    assert ttt.canonical(corner)[0] == min(images)
    assert ttt.orbit_size(corner) == 4
    assert ttt.orbit_size(ttt.parse_position(".../.x./...")) == 1


@pytest.mark.parametrize(
    ("variant", "position", "line"),
    [
        ("tictactoe", "xxx/oo./...", ["a1", "b1", "c1"]),
        ("tictactoe", "xo./ox./..x", ["a1", "b2", "c3"]),
        ("tictactoe", "x.o/xo./o.x", ["c1", "b2", "a3"]),
        ("mnk-4-3-3", "...o/.xxx/o...", ["b2", "c2", "d2"]),
        ("tictactoe", "xx./oo./...", None),
        ("tictactoe", "xox/xoo/oxx", None),
    ],
)
def test_board_marks_name_the_line_that_ended_the_game(variant: str, position: str, line: list[str] | None) -> None:
    game = games.get(variant)
    marks = game.board_marks(game.parse_position(position))
    assert marks.get("line") == line
    assert (marks["active"], marks["owners"]) == ([], {})
