"""Wild tic-tac-toe (seed 002) and its misère form: rules, notation, solved figures."""

from __future__ import annotations

import itertools
from functools import lru_cache

import pytest

from game_checks import (
    illegal_moves_test,
    index_of,
    malformed_positions_test,
)
from tablebase.errors import MalformedPositionError
from tablebase.games import get, names
from tablebase.games.layout import board_cells, grid_layout, split_move
from tablebase.solve import DRAW_CODE, LOSS_CODE, WIN_CODE

VARIANTS = ("wild", "wild-misere")
LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
CODE = {"win": WIN_CODE, "loss": LOSS_CODE, "draw": DRAW_CODE}


# -- seed 002's encoding and an independent solver ------------------------------------------


def seed_board(code: int) -> str:
    """Seed 002's situation code: cell ``pos`` (0..8, row by row) is ``code // 3**pos % 3``; 1 = x, 2 = o."""
    cells = "".join(".xo"[code // 3**pos % 3] for pos in range(9))
    return "/".join(cells[r : r + 3] for r in (0, 3, 6))


def seed_code(board: str) -> int:
    return sum(".xo".index(ch) * 3**pos for pos, ch in enumerate(board.replace("/", "")))


def has_line(cells: str) -> bool:
    return any(cells[a] != "." and cells[a] == cells[b] == cells[c] for a, b, c in LINES)


def independent_solver(misere: bool):
    """Plain recursion over 9-character boards, written from the rules and DESIGN.md's distance rules.

    Returns ``value(cells) -> (outcome, distance)`` for the side to move.
    """

    @lru_cache(maxsize=None)
    def value(cells: str) -> tuple[str, int]:
        if has_line(cells):
            return ("win" if misere else "loss"), 0
        if "." not in cells:
            return "draw", 0
        kids = [value(cells[:c] + m + cells[c + 1 :]) for c in range(9) if cells[c] == "." for m in "xo"]
        lost = [d for o, d in kids if o == "loss"]
        if lost:
            return "win", 1 + min(lost)
        drawn = [d for o, d in kids if o == "draw"]
        if drawn:
            return "draw", 1 + max(drawn)
        return "loss", 1 + max(d for _, d in kids)

    return value


# -- registry ----------------------------------------------------------------------------


def test_registered():
    for name in VARIANTS:
        assert name in names()
        game = get(name)
        assert game.family == "wild" and not game.cyclic
        assert game.players == ("first", "second")
        assert game.num_symmetries == 16
    assert get("wild").parameters() == {"misere": False}
    assert get("wild-misere").parameters() == {"misere": True}


# -- seed 002 --------------------------------------------------------------------------------


def test_seed_002_counts(solved):
    """18,752 situations reached besides the empty board, and 80,150 moves between them.

    The seed's "referenced" flag marks situations reached by some move, so
    the empty board is not among its 18,752 (hence its 931 = 19,683 - 18,752
    "unreachable"). Its 80,150 "unique move sequences" is the number of
    (situation, move) pairs in the unreduced graph.
    """
    reduced, full = solved["wild"]
    assert full.num_states == 18752 + 1
    assert full.num_moves == 80150
    assert 3**9 - (full.num_states - 1) == 931
    # with the 16 symmetries (square x colour swap) the orbits still count distinct boards
    assert reduced.num_states == 1359
    assert sum(get("wild").orbit_size(s) for s in reduced.states) == 18753


def test_seed_002_situation_9371(solved):
    """Seed 002's dump of situation 9371: the three moves it marks "win" are those that win at once."""
    game = get("wild")
    text = seed_board(9371)
    assert text == "o../oxo/.xx"
    state = game.parse_position(text)
    # the seed's moves, as (mark, cell number), with the codes it gives for the results
    seed_moves = {("x", 1): 9374, ("o", 1): 9377, ("x", 2): 9380, ("o", 2): 9389, ("x", 6): 10100, ("o", 6): 10829}
    seed_wins = {("x", 1), ("x", 6), ("o", 6)}
    ours = {}
    for move in game.legal_moves(state):
        notation = game.format_move(move)
        cell = "abc".index(notation[1]) + 3 * (int(notation[2]) - 1)
        ours[(notation[0], cell)] = game.apply(state, move)
    assert set(ours) == set(seed_moves)
    for key, child in ours.items():
        assert seed_code(game.format_position(child)) == seed_moves[key]
    wins_at_once = {key for key, child in ours.items() if game.outcome(child) is not None}
    assert wins_at_once == seed_wins
    assert {game.format_move(m) for m in game.legal_moves(state) if game.outcome(game.apply(state, m))} == {
        "xb1",
        "xa3",
        "oa3",
    }
    reduced, _ = solved["wild"]
    i = index_of(reduced)[game.canonical(state)[0]]
    assert (reduced.outcome[i], reduced.distance[i]) == (WIN_CODE, 1)


def test_first_player_wins_only_through_the_centre(solved):
    """The first player wins; of the 18 openings only xb2 and ob2 win, the other 16 draw.

    Seed 002 marks all 18 openings "win"; exact solving (here and in the
    independent solver below) disagrees for the 16 off-centre ones.
    """
    game = get("wild")
    reduced, _ = solved["wild"]
    index = index_of(reduced)
    assert reduced.result() == ("win", 7)
    start = game.initial_state()
    results = {}
    for move in game.legal_moves(start):
        j = index[game.canonical(game.apply(start, move))[0]]
        results[game.format_move(move)] = int(reduced.outcome[j])
    assert len(results) == 18
    assert {m for m, o in results.items() if o == LOSS_CODE} == {"xb2", "ob2"}  # lost for the opponent
    assert {m for m, o in results.items() if o == DRAW_CODE} == set(results) - {"xb2", "ob2"}
    value = independent_solver(misere=False)
    assert value("." * 9) == ("win", 7)
    assert value("....x....") == ("loss", 6)
    assert value("x........") == ("draw", 8)


@pytest.mark.parametrize("name", VARIANTS)
def test_independent_solver_agrees(solved, name):
    game = get(name)
    _, full = solved[name]
    value = independent_solver(misere=name.endswith("misere"))
    for i, state in enumerate(full.states):
        outcome, distance = value(game.format_position(state).replace("/", ""))
        assert (full.outcome[i], full.distance[i]) == (CODE[outcome], distance), game.format_position(state)


def test_misere_start(solved):
    """Misère wild tic-tac-toe is a draw, played out to a full board."""
    assert solved["wild-misere"][0].result() == ("draw", 9)


def test_colour_swap_is_a_symmetry(solved):
    """Exchanging every x and o keeps the result: either player may place either mark."""
    game = get("wild")
    _, full = solved["wild"]
    index = index_of(full)
    swap = str.maketrans("xo", "ox")
    for i, state in enumerate(full.states[::7]):
        text = game.format_position(state)
        j = index[game.parse_position(text.translate(swap))]
        k = index[state]
        assert (full.outcome[j], full.distance[j]) == (full.outcome[k], full.distance[k])
    assert game.transform(game.parse_position("xo./.../..."), 8) == game.parse_position("ox./.../...")
    assert game.format_move(game.transform_move(game.parse_move(0, "xa1"), 8)) == "oa1"


# -- rules ------------------------------------------------------------------------------------


def test_rules():
    game = get("wild")
    state = game.parse_position("xx./o../...")
    assert game.to_move(state) == "second"
    assert len(game.legal_moves(state)) == 2 * 6
    # either mark completes a line, for whoever moves
    after = game.apply(state, game.parse_move(state, "xc1"))
    assert game.outcome(after) == "loss" and game.legal_moves(after) == []
    assert game.format_board(after).splitlines()[-1] == "second completed a line: second wins"
    after = game.apply(state, game.parse_move(state, "oc1"))
    assert game.outcome(after) is None
    misere = get("wild-misere")
    assert misere.outcome(misere.apply(state, misere.parse_move(state, "xc1"))) == "win"
    # a full board without a line is a draw
    full = game.parse_position("xxo/oox/xxo")
    assert game.outcome(full) == "draw" and game.legal_moves(full) == []
    # any mix of marks is a position; the side to move follows from their number
    assert game.to_move(game.parse_position("xxx/x../...")) == "first"
    assert game.to_move(game.parse_position("ooo/.o./o..")) == "second"


def test_reachable_boards_match_the_rules():
    """A board is a position exactly when its lines, if any, are of one mark and share a cell."""
    game = get("wild")
    accepted = 0
    for cells in itertools.product(".xo", repeat=9):
        text = "/".join("".join(cells[r : r + 3]) for r in (0, 3, 6))
        try:
            game.parse_position(text)
        except MalformedPositionError:
            continue
        accepted += 1
    assert accepted == 18753


# -- notation and errors --------------------------------------------------------------------


def test_notation():
    game = get("wild")
    for text in (".../.../...", "o../oxo/.xx", "xxo/oox/xxo"):
        assert game.format_position(game.parse_position(text)) == text
    assert game.parse_position("o../oxo/.xx first") == game.parse_position("o../oxo/.xx")
    assert [game.format_move(m) for m in game.legal_moves(game.parse_position("xox/oxo/o.x"))] == []
    assert [game.format_move(m) for m in game.legal_moves(game.parse_position("xox/oox/.xo"))] == ["xa3", "oa3"]


test_malformed_positions = malformed_positions_test(
    """
    wild | x.o/.x.            | 2 rows
    wild | xo./..../...       | row 2 has 4 cells
    wild | xo./.X./...        | bad character 'X'
    wild | xxx/xxx/ooo        | both x and o have three in a row
    wild | xxx/.o./xxx        | separate lines of x
    wild | o../o../oo.x       | row 3 has 4 cells
    wild | xo./.../... second | wrong side to move, the number of marks says 'first'
    wild | xo./.../... x      | side to move must be 'first' or 'second'
    """
)


test_illegal_moves = illegal_moves_test(
    """
    wild | xo./.../... | b2  | expected a mark and a cell
    wild | xo./.../... | xd1 | expected a mark and a cell
    wild | xo./.../... | zb2 | expected a mark and a cell
    wild | xo./.../... | Xb2 | expected a mark and a cell
    wild | xo./.../... | ob1 | b1 is occupied
    wild | xxx/o../... | oc3 | the game is over
    """
)


# -- board layout (the generic contract is tests/test_layout.py) --------------


@pytest.mark.parametrize("name", VARIANTS)
def test_layout_is_the_grid_with_the_mark_as_label(name):
    layout = get(name).layout()
    assert layout == grid_layout(3, 3)
    # the marks belong to neither player (first, second): the board shows the mark itself
    assert layout["pieces"] == {"x": "x", "o": "o"}
    cells = board_cells(layout, "o../oxo/.xx")
    assert (cells["a1"], cells["b2"], cells["c3"], cells["a3"]) == ("o", "x", "x", None)
    assert split_move(layout, "xb2") == ("x", ("b2",))
    assert split_move(layout, "ob2") == ("o", ("b2",))


def test_board_marks_name_the_line_that_ended_the_game() -> None:
    wild = get("wild")
    # x placed o's three down column c (either player may place either mark)
    assert wild.board_marks(wild.parse_position("x.o/x.o/..o"))["line"] == ["c1", "c2", "c3"]
    assert "line" not in wild.board_marks(wild.parse_position("x.o/x.o/..."))
