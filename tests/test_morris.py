"""The Morris family: the boards, the rules of placement, sliding, flying and mills, the notation,
the compiled kernels, and builds checked against a solver written here from the rules alone."""

from __future__ import annotations

import numpy as np
import pytest

import tablebase
from tablebase import games, testing
from tablebase.errors import IllegalMoveError, MalformedPositionError
from tablebase.games.layout import board_cells, split_move
from tablebase.games.morris.board import NINE, SIX
from tablebase.games.morris.rules import MorrisGame

#: Six Men's Morris: positions reachable from the start (board, side to move and hands), the
#: published count quoted in the tracker's Morris issue (issue 58).
SIX_MENS_REACHABLE = 42_372_745

#: The point order of position strings, as issue 58 writes it (by rank, then file).
NINE_POINTS = "a1 d1 g1 b2 d2 f2 c3 d3 e3 a4 b4 c4 e4 f4 g4 c5 d5 e5 b6 d6 f6 a7 d7 g7".split()
SIX_POINTS = "a1 c1 e1 b2 c2 d2 a3 b3 d3 e3 b4 c4 d4 a5 c5 e5".split()


def nine() -> MorrisGame:
    game = games.get("morris-9")
    assert isinstance(game, MorrisGame)
    return game


def six() -> MorrisGame:
    game = games.get("morris-6")
    assert isinstance(game, MorrisGame)
    return game


def position(game: MorrisGame, stones: dict[str, str], side: str = "x", hands: tuple[int, int] = (0, 0)) -> int:
    """The state with ``stones`` (point -> ``x``/``o``) on the board."""
    board = "".join(stones.get(name, ".") for name in game.names)
    return game.parse_position(f"{board} {side} {hands[0]} {hands[1]}")


def moves(game: MorrisGame, state: int) -> set[str]:
    return {game.format_move(m) for m in game.legal_moves(state)}


# -- the boards ------------------------------------------------------------------


def test_the_points_are_named_and_ordered_as_the_field_does() -> None:
    assert list(NINE.names) == NINE_POINTS
    assert list(SIX.names) == SIX_POINTS


def test_nine_mens_morris_has_sixteen_mills_and_thirty_two_lines_between_points() -> None:
    names = NINE.names
    mills = {" ".join(names[i] for i in range(24) if m >> i & 1) for m in NINE.mills}
    assert len(mills) == 16
    assert {"a1 d1 g1", "d1 d2 d3", "a4 b4 c4", "e4 f4 g4", "d5 d6 d7", "c3 c4 c5", "a1 a4 a7"} <= mills
    assert sum(bin(m).count("1") for m in NINE.neighbours) == 2 * 32
    steps = {names[j] for j in range(24) if NINE.neighbours[names.index("d2")] >> j & 1}
    assert steps == {"b2", "f2", "d1", "d3"}


def test_six_mens_morris_has_mills_only_along_the_sides() -> None:
    names = SIX.names
    mills = {" ".join(names[i] for i in range(16) if m >> i & 1) for m in SIX.mills}
    assert len(mills) == 8
    assert "c1 c2" not in " ".join(mills) and "a1 c1 e1" in mills and "b2 b3 b4" in mills
    assert sum(bin(m).count("1") for m in SIX.neighbours) == 2 * 20


@pytest.mark.parametrize("board", [NINE, SIX])
def test_sixteen_symmetries_keep_steps_and_mills(board: object) -> None:
    perms = board.symmetries  # type: ignore[attr-defined]
    assert len(perms) == len(set(perms)) == 16
    assert perms[0] == tuple(range(board.cells))  # type: ignore[attr-defined]


# -- the rules --------------------------------------------------------------------


def test_the_start_and_its_placements() -> None:
    game = nine()
    start = game.initial_state()
    assert game.format_position(start) == "........................ x 9 9"
    assert moves(game, start) == set(NINE_POINTS)
    after = game.apply(start, game.parse_move(start, "d2"))
    assert game.format_position(after) == "....x................... o 8 9"


def test_a_mill_removes_a_stone_not_in_a_mill_unless_all_are() -> None:
    game = nine()
    state = position(game, {"a1": "x", "d1": "x", "a4": "o", "b4": "o", "c4": "o", "g7": "o"}, "x", (5, 5))
    found = moves(game, state)
    assert "g1xg7" in found and "g1" not in found
    assert not {"g1xa4", "g1xb4", "g1xc4"} & found
    every = position(game, {"a1": "x", "d1": "x", "a4": "o", "b4": "o", "c4": "o"}, "x", (5, 5))
    assert {"g1xa4", "g1xb4", "g1xc4"} <= moves(game, every)


def test_two_mills_at_once_still_remove_one_stone() -> None:
    game = nine()
    stones = {"a1": "x", "d1": "x", "g4": "x", "g7": "x", "d7": "o", "a7": "o", "b6": "o"}
    state = position(game, stones, "x", (3, 3))
    after = game.apply(state, game.parse_move(state, "g1xb6"))
    assert game.format_position(after).split(" ")[0].count("o") == 2


def test_sliding_flying_and_blocked() -> None:
    game = nine()
    slide = position(game, {"a1": "x", "d1": "x", "b2": "x", "g4": "x", "a7": "o", "d7": "o", "g7": "o", "d5": "o"})
    assert "a1-a4" in moves(game, slide) and "a1-c3" not in moves(game, slide)
    flying = position(game, {"a1": "x", "d2": "x", "g7": "x", "a7": "o", "b6": "o", "c5": "o", "d7": "o"}, "x")
    assert "a1-e5" in moves(game, flying)
    six_men = six()
    no_flying = position(six_men, {"a1": "x", "c1": "x", "e5": "x", "a5": "o", "c5": "o", "b4": "o"}, "x")
    assert "a1-d4" not in moves(six_men, no_flying)
    blocked = position(six_men, {"a1": "x", "c1": "x", "e1": "x", "a3": "o", "c2": "o", "e3": "o"})
    assert six_men.outcome(blocked) == "loss" and six_men.legal_moves(blocked) == []
    assert six_men.status_line(blocked) == "x to move has no move: o wins"


def test_fewer_than_three_stones_lose() -> None:
    game = nine()
    state = position(game, {"a1": "x", "d1": "x", "a7": "o", "d7": "o", "g7": "o"}, "x")
    assert game.outcome(state) == "loss"
    assert game.status_line(state) == "x has fewer than three stones: o wins"
    in_hand = position(game, {"a1": "x", "a7": "o", "d7": "o"}, "x", (1, 1))
    assert game.outcome(in_hand) == "loss"


@pytest.mark.parametrize("text, problem", [
    ("........................ x 9", "separated by spaces"),
    ("......................... x 9 9", "25 points"),
    ("...........q............ x 9 9", "bad character 'q'"),
    ("........................ y 9 9", "side to move"),
    ("........................ o 9 9", "wrong side to move"),
    ("xxxxxxxxxx.............. o 0 0", "more than 9"),
    ("........................ x 9 7", "holds as many as x or one more"),
])
def test_malformed_positions_are_named(text: str, problem: str) -> None:
    with pytest.raises(MalformedPositionError, match=problem):
        nine().parse_position(text)


def test_a_movement_position_may_leave_out_the_empty_hands() -> None:
    game = nine()
    state = game.parse_position("xxx" + "." * 18 + "ooo o")
    assert game.format_position(state) == "xxx" + "." * 18 + "ooo o 0 0"


@pytest.mark.parametrize("move, problem", [
    ("z9", "expected a point"),
    ("a1-d1", "still has stones in hand"),
    ("d1", "occupied"),
    ("g1", "closes a mill"),
    ("g1xa4", "stands in a mill"),
])
def test_illegal_moves_are_named(move: str, problem: str) -> None:
    game = nine()
    state = position(game, {"a1": "x", "d1": "x", "a4": "o", "b4": "o", "c4": "o", "g7": "o"}, "x", (5, 5))
    with pytest.raises(IllegalMoveError, match=problem):
        game.parse_move(state, move)


def test_moves_round_trip_and_the_layout_reads_them() -> None:
    game = nine()
    layout = game.layout()
    seen_removal = False
    for state in testing.random_states(game, 20, seed=5, max_plies=80):
        cells = board_cells(layout, game.format_position(state))
        assert sum(v is not None for v in cells.values()) == bin(state & ((1 << 48) - 1)).count("1")
        for move in game.legal_moves(state):
            text = game.format_move(move)
            assert game.parse_move(state, text) == move
            label, named = split_move(layout, text)
            assert label == "" and 1 <= len(named) <= 3
            seen_removal |= "x" in text
    assert seen_removal


@pytest.mark.parametrize("name", ["morris-6", "morris-9", "morris-6-3"])
def test_the_family_passes_the_game_checks(name: str) -> None:
    game = games.get(name)
    testing.check_game(game, playouts=6)
    testing.check_unmoves(game, playouts=4)
    testing.check_board_layout(game, playouts=4)


@pytest.mark.parametrize("name", ["morris-6", "morris-9"])
def test_the_kernels_follow_the_rules(name: str) -> None:
    game = games.get(name)
    kernels = game.vector
    states = testing.random_states(game, 60, seed=11, max_plies=120)
    array = np.array(states, dtype=np.uint64)
    codes = kernels.outcome(array)
    for state, code in zip(states, codes):
        assert (code == 0) == (game.outcome(state) is None)
    live = [s for s, c in zip(states, codes) if c == 0]
    parent, move, child = kernels.children(np.array(live, dtype=np.uint64))
    for i, state in enumerate(live):
        mine = [(int(m), int(c)) for m, c in zip(move[parent == i], child[parent == i])]
        assert mine == game.children(state)
    assert [int(c) for c in kernels.canonical(array)] == [game.canonical(s)[0] for s in states]


def test_variant_names() -> None:
    assert games.get("morris-6-4").stones == 4  # type: ignore[attr-defined]
    assert games.get("morris-9").enumerable is False
    assert games.get("morris-6").enumerable is True
    assert any("morris-B-S" in line for line in games.naming())


# -- builds ------------------------------------------------------------------------


def fixpoint(game: MorrisGame) -> dict[int, tuple[str, int | None]]:
    """Every class reachable from the start solved by iterating the rules to a fixed point (no
    retrograde counters, no symmetry kernels): wins take the fastest win, losses the slowest loss."""
    start = game.canonical(game.initial_state())[0]
    children: dict[int, list[int]] = {}
    todo = [start]
    while todo:
        state = todo.pop()
        if state in children:
            continue
        kids = sorted({game.canonical(c)[0] for _, c in game.children(state)})
        children[state] = kids
        todo.extend(k for k in kids if k not in children)
    value: dict[int, tuple[str, int | None]] = {s: ("loss", 0) for s, kids in children.items() if not kids}
    changed = True
    while changed:
        changed = False
        for state, kids in children.items():
            if not kids:
                continue
            known = [value.get(k) for k in kids]
            wins = [v[1] for v in known if v is not None and v[0] == "loss"]
            if wins:
                new = ("win", 1 + min(w for w in wins if w is not None))
            elif all(v is not None and v[0] == "win" for v in known):
                new = ("loss", 1 + max(v[1] for v in known if v is not None and v[1] is not None))
            else:
                continue
            if value.get(state) != new:
                value[state] = new
                changed = True
    return {s: value.get(s, ("draw", None)) for s in children}


@pytest.mark.slow
def test_a_small_board_agrees_with_a_fixed_point_of_the_rules(tmp_path: object) -> None:
    game = games.get("morris-6-3")
    assert isinstance(game, MorrisGame)
    expected = fixpoint(game)
    with tablebase.open(tmp_path / "m.db") as tb:  # type: ignore[operator]
        tb.build("morris-6-3")
        table = tb.variant("morris-6-3")
        stored = {key: (outcome, distance) for _, key, _, _, outcome, distance in table.rows()}
        assert stored == {game.format_position(s): v for s, v in expected.items()}
        assert {"win", "loss", "draw"} <= {v[0] for v in stored.values()}
        probe = table.probe(game.format_position(next(s for s, v in expected.items() if v[0] == "win")))
        assert probe.outcome == "win" and probe.best_move is not None and probe.best_move.outcome == "win"
        assert tb.verify("morris-6-3").ok


@pytest.mark.slow
def test_six_mens_morris_is_stored_whole(tmp_path: object) -> None:
    path = tmp_path / "m6.db"  # type: ignore[operator]
    with tablebase.open(path) as tb:
        tb.build("morris-6")
        table = tb.variant("morris-6")
        start = table.probe()
        assert start.outcome == "draw" and len(start.moves) == 16
        stats = table.stats()
        assert (stats.positions, stats.classes) == (SIX_MENS_REACHABLE, 2_660_288)
        testing.check_probes(table, playouts=20)
        assert tb.verify("morris-6", sample=20_000).ok
