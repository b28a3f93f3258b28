"""Rota, the Roman wheel game (seed 001): rules, notation, solved figures."""

from __future__ import annotations

import itertools
import math

import pytest

from game_checks import (
    check_colouring,
    check_illegal_move,
    check_shut_in,
    illegal_moves_test,
    index_of,
    malformed_positions_test,
    three_token_colouring,
)
from tablebase.games import get, names
from tablebase.games.layout import board_cells, split_move
from tablebase.games.rota import RotaGame
from tablebase.solve import LOSS_CODE, WIN_CODE

VARIANTS = ("rota", "rota-circle")
#: Seed 001's winning combinations: three in a line through the centre.
SEED_LINES = [{0, 4, 8}, {1, 5, 8}, {2, 6, 8}, {3, 7, 8}]
RIM_LINES = [{i, (i + 1) % 8, (i + 2) % 8} for i in range(8)]


def joined(a: int, b: int) -> bool:
    """Seed 001's adjacency: rim neighbours, and every rim spot with the centre."""
    if 8 in (a, b):
        return a != b
    return (a - b) % 8 in (1, 7)


def spots(text: str) -> str:
    """The nine spots of a position string, rim then centre."""
    return text.partition(" ")[0].replace("/", "")


# -- an independent solver ---------------------------------------------------------


def colouring(lines: list[set[int]]) -> dict[tuple[str, str], str]:
    """Who wins each reachable (board, side) of Rota, by repeated colouring (seed 000's method).

    Boards are 9-character strings over spots 0..8; shares no code with the package.
    """
    return three_token_colouring(lines, joined)


# -- registry and board ---------------------------------------------------------------


def test_registered():
    for name in VARIANTS:
        assert name in names()
        game = get(name)
        assert game.family == "rota" and game.cyclic and game.num_symmetries == 16
    assert get("rota").parameters() == {"circle": False}
    assert get("rota-circle").parameters() == {"circle": True}


def test_winning_lines_are_the_seeds():
    """rota: exactly seed 001's combinations {0,4,8} {1,5,8} {2,6,8} {3,7,8}; rota-circle adds rim triples."""
    for name, wanted in (("rota", SEED_LINES), ("rota-circle", SEED_LINES + RIM_LINES)):
        game = get(name)
        found = [set(c) for c in itertools.combinations(range(9), 3) if game.has_line(sum(1 << s for s in c))]
        assert sorted(map(sorted, found)) == sorted(map(sorted, wanted))


def test_symmetries_are_the_wheels():
    """16 distinct spot permutations, a group, each preserving the joining lines and the centre."""
    game = get("rota")
    perms = [game.cell_permutation(s) for s in range(16)]
    assert len(set(perms)) == 16 and perms[0] == tuple(range(9))
    for p, q in itertools.product(perms, repeat=2):
        assert tuple(q[p[c]] for c in range(9)) in perms
    for p in perms:
        assert p[8] == 8
        assert all(joined(a, b) == joined(p[a], p[b]) for a, b in itertools.permutations(range(9), 2))


# -- solved figures ---------------------------------------------------------------


def test_start_is_a_draw(solved):
    """Neither side can force a win from the start: perpetual play, no distance.

    Seed 001 does not state the result; its author notes that the centre is
    not decisive because the second player can set up zugzwang, and the
    Praetorian Rota challenge says strong players can keep the game going
    for ever. Both agree with a draw; the colouring test confirms it.
    """
    for name in VARIANTS:
        assert solved[name][0].result() == ("draw", None)


def test_state_counts(solved):
    reduced, full = solved["rota"]
    assert (reduced.num_states, full.num_states) == (392, 5550)
    reduced, full = solved["rota-circle"]
    assert (reduced.num_states, full.num_states) == (368, 5230)


@pytest.mark.parametrize("name, lines", [("rota", SEED_LINES), ("rota-circle", SEED_LINES + RIM_LINES)])
def test_independent_colouring_agrees(solved, name, lines):
    game = get(name)
    check_colouring(solved[name][1], colouring(lines), lambda s: spots(game.format_position(s)))


def test_seed_zugzwang(solved):
    """Seed 001's example: x's two rim tokens are shut in, so the centre token must leave and o takes it.

    x on 0, 1 and the centre, o on 2, 6, 7, x to move: every move leaves the
    centre, then o slides 7-8 and has 2-8-6. A loss in 2 plies.
    """
    game = get("rota")
    reduced, _ = solved["rota"]
    index = index_of(reduced)
    state = game.parse_position("xxo...oo/x x")

    def label(s: int) -> tuple[int, int]:
        i = index[game.canonical(s)[0]]
        return int(reduced.outcome[i]), int(reduced.distance[i])

    assert label(state) == (LOSS_CODE, 2)
    moves = [game.format_move(m) for m in game.legal_moves(state)]
    assert sorted(moves) == ["8-3", "8-4", "8-5"]
    for move in moves:
        after = game.apply(state, game.parse_move(state, move))
        assert label(after) == (WIN_CODE, 1)
        final = game.apply(after, game.parse_move(after, "7-8"))
        assert game.outcome(final) == "loss"
    # the position arises in play: x 8, o 2, x 0, o 7, x 1, o 6
    state = game.initial_state()
    for move in ("8", "2", "0", "7", "1", "6"):
        state = game.apply(state, game.parse_move(state, move))
    assert game.format_position(state) == "xxo...oo/x x"


# -- rules ----------------------------------------------------------------------------


def moves_of(game, text: str) -> list[str]:
    return sorted(game.format_move(m) for m in game.legal_moves(game.parse_position(text)))


def test_placement_on_any_empty_spot():
    game = get("rota")
    assert moves_of(game, "x...o.../.") == ["1", "2", "3", "5", "6", "7", "8"]
    assert game.to_move(game.parse_position("x...o.../.")) == "x"
    assert game.to_move(game.parse_position("x......./.")) == "o"


def test_slides_follow_the_joining_lines():
    game = get("rota")
    # x on 0, 3 and the centre; o on 1, 5, 6
    text = "xo.x.oo./x x"
    assert moves_of(game, text) == ["0-7", "3-2", "3-4", "8-2", "8-4", "8-7"]
    for move in moves_of(game, text):
        a, b = map(int, move.split("-"))
        assert joined(a, b)
    for bad, problem in (("0-2", "2 is not next to 0"), ("3-7", "7 is not next to 3"), ("0-1", "1 is occupied")):
        check_illegal_move(game, text, bad, problem)


def test_a_player_with_no_move_loses():
    """Passing is not allowed: with every token shut in, the side to move has lost.

    On the real wheel a player can only be shut in by an opponent holding a
    line already (checked below), so the rule is tried on a wheel without
    winning lines.
    """
    game = RotaGame()
    game.lines = ()
    state = game.parse_position("xxxo...o/o x")  # x on 0 1 2; o on 3, 7 and the centre
    assert game.legal_moves(state) == []
    assert game.outcome(state) == "loss"
    assert game.format_board(state).splitlines()[-1] == "x to move has no move: o wins"
    assert game.outcome(game.parse_position("xxxo...o/o o")) is None


@pytest.mark.parametrize("name, lines", [("rota", SEED_LINES), ("rota-circle", SEED_LINES + RIM_LINES)])
def test_blocked_players_face_a_line(name, lines):
    blocked = check_shut_in(get(name), lines, joined, lambda board, side: f"{board[:8]}/{board[8]} {side}")
    assert blocked == (16 if name == "rota" else 0)


def test_rim_lines_only_in_rota_circle():
    text = "xxx.o.../o"  # x on 0 1 2, o on 4 and the centre; o to place
    assert get("rota").outcome(get("rota").parse_position(text)) is None
    assert get("rota-circle").outcome(get("rota-circle").parse_position(text)) == "loss"


# -- notation and errors --------------------------------------------------------------


def test_notation_round_trips():
    game = get("rota")
    for text in ("......../.", "x...o.../x", "xxo...oo/x x", "xxo...oo/x o"):
        assert game.format_position(game.parse_position(text)) == text
    assert game.format_position(game.parse_position("x...o.../x o")) == "x...o.../x"
    state = game.parse_position("xxo...oo/x x")
    assert game.format_board(state).splitlines() == [
        "    x               0",
        "o   |   x       7   |   1",
        "  \\ | /           \\ | /",
        "o - x - o       6 - 8 - 2",
        "  / | \\           / | \\",
        ".   |   .       5   |   3",
        "    .               4",
        "x moves",
    ]


test_malformed_positions = malformed_positions_test(
    """
    rota        | x...o.../    | 8 rim spots and 0 centre spots
    rota        | x...o..../x  | 9 rim spots and 1 centre spots
    rota        | x...o...x    | 0 '/' separators
    rota        | x..q..../.   | bad character 'q'
    rota        | xx.xx.../o   | x has 4 tokens
    rota        | xx....../.   | 2 x and 0 o
    rota        | x...o.../x x | wrong side to move, the counts say 'o'
    rota        | xxo...oo/x   | side to move missing
    rota        | xxo...oo/x - | side to move must be 'x' or 'o'
    rota        | x...xooo/x x | x has three in a line, so the game ended
    rota-circle | xxxooo../. x | both sides have three in a line
    """
)


test_illegal_moves = illegal_moves_test(
    """
    rota | x...o.../.   | 9   | expected a cell 0..8
    rota | x...o.../.   | 08  | expected a cell
    rota | x...o.../.   | b2  | expected a cell
    rota | x...o.../.   | 4   | 4 is occupied
    rota | x...o.../.   | 0-1 | still has tokens to place
    rota | xxo...oo/x x | 3   | has placed all 3 tokens
    rota | xxo...oo/x x | 2-3 | 2 holds a token of o, not a token of x
    rota | xxo...oo/x x | 3-4 | 3 is empty
    rota | xxo...oo/x x | 8-  | expected a cell
    rota | x...xooo/x o | 5-6 | the game is over
    """
)


# -- board layout (the generic contract is tests/test_layout.py) ---------------------


@pytest.mark.parametrize("name", VARIANTS)
def test_layout_is_the_wheel(name):
    layout = get(name).layout()
    assert layout["shape"] == "circle"
    assert [c["name"] for c in layout["cells"]] == [str(i) for i in range(9)]
    at = {c["name"]: (c["x"], c["y"]) for c in layout["cells"]}
    assert at["8"] == (0, 0)
    # clockwise from the top, y growing downwards
    assert at["0"][1] < 0 and at["2"][0] > 0 and at["4"][1] > 0 and at["6"][0] < 0
    for i in range(8):
        angle = math.atan2(at[str(i)][0], -at[str(i)][1]) % (2 * math.pi)
        assert angle == pytest.approx(2 * math.pi * i / 8, abs=1e-3)
        assert math.hypot(*at[str(i)]) == pytest.approx(math.hypot(*at["0"]), abs=1e-3)
    # the drawn lines are seed 001's joining lines: the rim and the spokes
    edges = {frozenset(map(int, e)) for e in layout["edges"]}
    assert len(edges) == len(layout["edges"]) == 16
    assert edges == {frozenset((a, b)) for a, b in itertools.combinations(range(9), 2) if joined(a, b)}


def test_layout_reads_positions_and_moves():
    layout = get("rota").layout()
    assert board_cells(layout, "x...o.../x o") == {str(i): {0: "x", 4: "o", 8: "x"}.get(i) for i in range(9)}
    assert split_move(layout, "3") == ("", ("3",))
    assert split_move(layout, "3-8") == ("", ("3", "8"))
