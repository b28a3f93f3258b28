"""Roman tic-tac-toe (terni lapilli), three men's morris and tapatan: rules, notation, solved figures."""

from __future__ import annotations

import pytest

from game_checks import (
    check_colouring,
    check_illegal_move,
    check_shut_in,
    illegal_moves_test,
    malformed_positions_test,
    three_token_colouring,
)
from tablebase.games import get, names
from tablebase.games.layout import board_cells, grid_layout, split_move
from tablebase.solve import DRAW_CODE, LOSS_CODE

VARIANTS = ("roman", "roman-adjacent", "roman-lines")
LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


# -- an independent solver: seed 000's colouring ------------------------------


def may_step(rule: str, a: int, b: int) -> bool:
    """Whether a token may go from cell a to cell b, from grid coordinates."""
    dc, dr = abs(a % 3 - b % 3), abs(a // 3 - b // 3)
    if rule == "any":
        return a != b
    if rule == "adjacent":
        return dc + dr == 1
    return dc + dr == 1 or (dc == dr == 1 and 4 in (a, b))


def seed_colouring(rule: str) -> dict[tuple[str, str], str]:
    """Seed 000's method: colour (board, side) red when x wins, blue when o wins, repeat to a fixpoint.

    Written from the rules text with string boards; shares no code with the
    package. Returns ``"x"``, ``"o"`` or ``"-"`` (uncoloured: a draw) for
    every reachable position.
    """
    return three_token_colouring(LINES, lambda a, b: may_step(rule, a, b))


# -- registry -------------------------------------------------------------------


def test_registered():
    for name in VARIANTS:
        assert name in names()
        game = get(name)
        assert game.name == name and game.family == "roman" and game.cyclic
        assert game.num_symmetries == 8
    assert get("roman").parameters() == {"move": "any"}
    assert get("roman-lines").parameters() == {"move": "lines"}


# -- seed 000 ------------------------------------------------------------------


def test_seed_000_figures(solved):
    """744 states up to symmetry, 42 won by x, 21 by o (terminal), 137 draws; the game is a draw.

    The seed's states include the side to move: the same board with x and
    with o to move (movement phase) are two states. Without it there would be
    561. Its "won by x" are terminal positions where x has three in a row:
    labelled ``loss`` here, since labels are from the side to move (o).
    """
    game = get("roman")
    reduced, _ = solved["roman"]
    assert reduced.num_states == 744
    x_wins = o_wins = 0
    for i, state in enumerate(reduced.states):
        if reduced.terminal[i]:
            assert reduced.outcome[i] == LOSS_CODE and reduced.distance[i] == 0
            x_wins += game.to_move(state) == "o"
            o_wins += game.to_move(state) == "x"
    assert (x_wins, o_wins) == (42, 21)
    assert int((reduced.outcome == DRAW_CODE).sum()) == 137
    assert reduced.result() == ("draw", None)
    boards = {game.canonical(s & ~game.side_bit)[0] for s in reduced.states}
    assert len(boards) == 561


def test_seed_000_colouring_agrees(solved):
    """The seed's colouring algorithm, run independently, gives every position the same result."""
    for name, rule in zip(VARIANTS, ("any", "adjacent", "lines")):
        game = get(name)
        check_colouring(solved[name][1], seed_colouring(rule), lambda s: game.format_board_text(s).replace("/", ""))


def test_results_of_the_start(solved):
    """roman is a draw; with one-step moves the first player wins in 9 plies (placement, then 3 moves)."""
    assert solved["roman"][0].result() == ("draw", None)
    assert solved["roman-adjacent"][0].result() == ("win", 9)
    assert solved["roman-lines"][0].result() == ("win", 9)


@pytest.mark.parametrize("name", VARIANTS)
def test_state_counts(solved, name):
    reduced, full = solved[name]
    assert (reduced.num_states, full.num_states) == (744, 5390)


# -- rules -------------------------------------------------------------------


def moves_of(game, text: str) -> list[str]:
    state = game.parse_position(text)
    return sorted(game.format_move(m) for m in game.legal_moves(state))


def test_placement_phase():
    game = get("roman-adjacent")
    assert moves_of(game, "xo./.x./...") == ["a2", "a3", "b3", "c1", "c2", "c3"]
    assert moves_of(game, "xo./.x./..o") == ["a2", "a3", "b3", "c1", "c2"]


def test_movement_rules():
    # x: a1 c1 b3, o: b1 a2 c2, empty: b2 a3 c3; x to move
    text = "xox/o.o/.x. x"
    anywhere = moves_of(get("roman"), text)
    assert anywhere == sorted(f"{a}-{b}" for a in ("a1", "c1", "b3") for b in ("b2", "a3", "c3"))
    # orthogonal steps: a1 and c1 are shut in by o
    assert moves_of(get("roman-adjacent"), text) == ["b3-a3", "b3-b2", "b3-c3"]
    # along the lines: the corners may also step to the centre
    assert moves_of(get("roman-lines"), text) == ["a1-b2", "b3-a3", "b3-b2", "b3-c3", "c1-b2"]


def test_lines_steps_only_along_the_drawn_lines():
    game = get("roman-lines")
    text = "ox./.xo/x.o x"
    assert moves_of(game, text) == ["a3-a2", "a3-b3", "b1-c1", "b2-a2", "b2-b3", "b2-c1"]
    # b1 -> a2 is a diagonal step that does not pass through the centre: no line joins them
    check_illegal_move(game, text, "b1-a2", "a2 is not next to b1")


def test_three_in_a_row_wins_at_once():
    game = get("roman")
    # x completes a line with its third placement: o to move has lost, no moves
    state = game.parse_position("xx./oo./...")
    child = game.apply(state, game.parse_move(state, "c1"))
    assert game.format_position(child) == "xxx/oo./..."
    assert game.outcome(child) == "loss" and game.legal_moves(child) == []
    # and in the movement phase, by moving
    state = game.parse_position("xx./oo./o.x x")
    child = game.apply(state, game.parse_move(state, "c3-c1"))
    assert game.format_position(child) == "xxx/oo./o.. o"
    assert game.outcome(child) == "loss"


def test_symmetries_preserve_steps():
    """Each of the 8 symmetries maps a legal step onto a legal step (checked from coordinates)."""
    for name, rule in zip(VARIANTS, ("any", "adjacent", "lines")):
        game = get(name)
        perms = {game.cell_permutation(s) for s in range(game.num_symmetries)}
        assert len(perms) == 8
        for p in perms:
            for a in range(9):
                for b in range(9):
                    assert may_step(rule, a, b) == may_step(rule, p[a], p[b])


# -- notation and errors --------------------------------------------------------


def test_side_suffix_policy():
    game = get("roman")
    # placement phase: the counts tell; the suffix is accepted when right, never printed
    assert game.format_position(game.parse_position("xo./.../... x")) == "xo./.../..."
    assert game.parse_position("x../.../... o") == game.parse_position("x../.../...")
    assert game.to_move(game.parse_position("x../.../...")) == "o"
    # movement phase: required and printed
    for text in ("xox/o.o/.x. x", "xox/o.o/.x. o"):
        assert game.format_position(game.parse_position(text)) == text
    assert game.parse_position("xox/o.o/.x. x") != game.parse_position("xox/o.o/.x. o")


test_malformed_positions = malformed_positions_test(
    """
    roman | xo./...        | 2 rows
    roman | xo./..../...   | row 2 has 4 cells
    roman | xo./.X./...    | bad character 'X'
    roman | xo./.x./..- x  | bad character '-'
    roman | xx./.../...    | 2 x and 0 o
    roman | xo./o../...    | 1 x and 2 o
    roman | xxx/x.o/ooo x  | x has 4 tokens
    roman | xo./.../... o  | wrong side to move, the counts say 'x'
    roman | xox/o.o/.x.    | side to move missing
    roman | xox/o.o/.x. z  | side to move must be 'x' or 'o'
    roman | xox/o.o/.x.  x | side to move must be 'x' or 'o'
    roman | xxx/ooo/... o  | both sides have three in a row
    roman | xxx/oo./o.. x  | x has three in a row, so the game ended before it was x's turn
    roman | xxx/oo./... x  | wrong side to move
    """
)


test_illegal_moves = illegal_moves_test(
    """
    roman          | xo./.x./...   | b1    | b1 is occupied
    roman          | xo./.x./...   | d1    | expected a cell a1..c3
    roman          | xo./.x./...   | B2    | expected a cell
    roman          | xo./.x./...   | a1-b3 | still has tokens to place
    roman          | xox/o.o/.x. x | b2    | has placed all 3 tokens and must move one
    roman          | xox/o.o/.x. x | b1-b2 | b1 holds a token of o, not a token of x
    roman          | xox/o.o/.x. x | b2-a3 | b2 is empty
    roman          | xox/o.o/.x. x | a1-c1 | c1 is occupied
    roman          | xox/o.o/.x. x | a1-   | expected a cell
    roman-adjacent | xox/o.o/.x. x | a1-b2 | b2 is not next to a1
    roman          | xxx/oo./... o | c3    | the game is over
    """
)


def test_format_board():
    game = get("roman")
    picture = game.format_board(game.parse_position("xox/o.o/.x. o"))
    assert picture.splitlines() == ["   a b c", " 1 x o x", " 2 o . o", " 3 . x .", "o moves"]
    assert game.format_board(game.parse_position("xo./.../...")).endswith("x places")
    assert game.format_board(game.parse_position("xxx/oo./...")).endswith("x has three in a row: x wins")


def test_blocked_positions_already_have_a_line():
    """With one-step moves a player can be shut in, but only by an opponent who already has a line.

    So "no legal move loses" never decides a game of these variants on its
    own; such positions are terminal losses either way.
    """
    for name, rule in (("roman-adjacent", "adjacent"), ("roman-lines", "lines")):
        blocked = check_shut_in(
            get(name),
            LINES,
            lambda a, b: may_step(rule, a, b),
            lambda board, side: "/".join(board[r : r + 3] for r in (0, 3, 6)) + " " + side,
        )
        assert blocked == 8


# -- board layout (the generic contract is tests/test_layout.py) --------------


@pytest.mark.parametrize("name", VARIANTS)
def test_layout_is_the_grid(name):
    layout = get(name).layout()
    assert layout == grid_layout(3, 3)
    cells = board_cells(layout, "xo./.xo/o.x x")
    assert [cells[c] for c in ("a1", "b1", "c1", "b2", "c2", "a3", "c3")] == ["x", "o", None, "x", "o", "o", "x"]
    assert split_move(layout, "a1-b2") == ("", ("a1", "b2"))
