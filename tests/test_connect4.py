"""Connect Four: the rules, both notations, the state encoding, bad input, and the 4x4 board
built through the library against an independent solver and a published count."""

from __future__ import annotations

import random
from functools import lru_cache
from pathlib import Path

import pytest

import tablebase
from game_checks import (
    check_message,
    check_random_play,
    check_random_symmetries,
    illegal_moves_test,
    malformed_positions_test,
    random_states,
)
from serve_support import build_database
from tablebase.errors import MalformedPositionError, UnknownVariantError
from tablebase.games import catalog, get, names
from tablebase.games.layout import board_cells
from tablebase.games.connect4 import to_bitboards

#: Legal positions of Connect Four on 4 columns x 4 rows, John Tromp's table of
#: legal position counts per board size (https://tromp.github.io/c4/c4.html).
LEGAL_POSITIONS_4X4 = 161_029


# -- an independent solver: columns as strings of 'x'/'o' from the bottom -------------------


def four_in_a_row(columns: tuple[str, ...], rows: int, player: str) -> bool:
    """Whether ``player`` has four in a row, by looking at every cell and direction."""

    def at(c: int, r: int) -> str:
        return columns[c][r] if 0 <= c < len(columns) and 0 <= r < len(columns[c]) else "."

    return any(
        all(at(c + i * dc, r + i * dr) == player for i in range(4))
        for c in range(len(columns))
        for r in range(rows)
        for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1))
    )


def makes_four(columns: tuple[str, ...], rows: int, c: int) -> bool:
    """Whether the top disc of column ``c`` is one of four in a row, by walking each direction from it."""
    r = len(columns[c]) - 1
    player = columns[c][r]

    def run(dc: int, dr: int) -> int:
        n, x, y = 0, c + dc, r + dr
        while 0 <= x < len(columns) and 0 <= y < len(columns[x]) and columns[x][y] == player:
            n, x, y = n + 1, x + dc, y + dr
        return n

    return any(1 + run(dc, dr) + run(-dc, -dr) >= 4 for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)))


@lru_cache(maxsize=None)
def negamax(columns: tuple[str, ...], rows: int) -> int:
    """1, 0 or -1: win, draw or loss for the side to move, by plain search."""
    discs = sum(len(c) for c in columns)
    mover, last = ("x", "o") if discs % 2 == 0 else ("o", "x")
    if four_in_a_row(columns, rows, last):
        return -1
    if discs == len(columns) * rows:
        return 0
    best = -1
    for c, column in enumerate(columns):
        if len(column) < rows:
            child = columns[:c] + (column + mover,) + columns[c + 1 :]
            best = max(best, -negamax(child, rows))
            if best == 1:
                break
    return best


def columns_of(grid: str) -> tuple[str, ...]:
    """The columns (bottom first) of grid text."""
    lines = grid.split("/")[::-1]
    return tuple("".join(line[c] for line in lines).rstrip(".") for c in range(len(lines[0])))


# -- registry, encoding, rules --------------------------------------------------------------


def test_registry() -> None:
    assert "connect4" in names() and "connect4-4-4" in catalog()
    game = get("connect4")
    assert game.parameters() == {"columns": 7, "rows": 6} and not game.enumerable
    assert get("connect4-4-4").enumerable and get("connect4-5-5").enumerable
    assert get("connect4-6-5").enumerable and not get("connect4-7-5").enumerable
    assert get("connect4-7-6").num_symmetries == 2
    for bad in ("connect4-3-4", "connect4-4-8", "connect4-8-6"):
        with pytest.raises(UnknownVariantError) as err:
            get(bad)
        assert "4..7" in str(err.value)


def test_state_encoding() -> None:
    game = get("connect4-4-4")
    empty = 1 | 1 << 5 | 1 << 10 | 1 << 15
    assert game.initial_state() == empty
    # x on column 1: disc bit 0 is 1, sentinel at bit 1; o on column 2: disc bit 5 is 0, sentinel at bit 6
    assert game.parse_position("1") == empty ^ 1 | 0b11
    assert game.parse_position("12") == (empty ^ (1 | 1 << 5)) | 0b11 | 0b10 << 5
    state = game.parse_position("4432")
    assert game.format_position(state) == "..../..../...o/.oxx"
    x_bits, mask = to_bitboards(state, 4, 4)
    assert mask == 1 << 5 | 1 << 10 | 0b11 << 15
    assert x_bits == 1 << 10 | 1 << 15
    mirror = game.transform(state, 1)
    assert game.format_position(mirror) == "..../..../o.../xxo."
    assert game.canonical(state) == (min(state, mirror), 0 if state < mirror else 1)
    assert [game.transform_move(m, 1) for m in range(4)] == [3, 2, 1, 0]


def test_rules() -> None:
    game = get("connect4-4-4")
    start = game.initial_state()
    assert game.to_move(start) == "x" and game.legal_moves(start) == [0, 1, 2, 3]
    assert game.plies_played(start) == 0 and game.max_plies(start) == 16
    # x stacks four in column 1 while o plays column 2
    won = game.parse_position("1212121")
    assert game.format_position(won) == "x.../xo../xo../xo.."
    assert game.outcome(won) == "loss" and game.legal_moves(won) == []
    assert game.board_marks(won)["line"] == ["a4", "a3", "a2", "a1"]
    across = game.parse_position("1122334")
    assert game.format_position(across) == "..../..../ooo./xxxx" and game.outcome(across) == "loss"
    assert sorted(game.board_marks(across)["line"]) == ["a4", "b4", "c4", "d4"]
    diagonal = game.parse_position("12233434414")
    assert game.outcome(diagonal) == "loss"
    assert sorted(game.board_marks(diagonal)["line"]) == ["a4", "b3", "c2", "d1"]
    assert "line" not in game.board_marks(game.parse_position("4432"))
    full = game.parse_position("1234123421434312")
    assert game.format_position(full) == "xoox/oxox/xoxo/xoxo"
    assert game.outcome(full) == "draw" and game.legal_moves(full) == []
    column_full = game.parse_position("1111")
    assert game.legal_moves(column_full) == [1, 2, 3] and game.outcome(column_full) is None


def test_both_notations_round_trip() -> None:
    game = get("connect4-5-4")
    for state in random_states(game, playouts=30, seed=4):
        grid = game.format_position(state)
        assert game.parse_position(grid) == state
    rng = random.Random(5)
    for _ in range(30):
        state, digits = game.initial_state(), ""
        while game.outcome(state) is None:
            move = rng.choice(game.legal_moves(state))
            digits += game.format_move(move)
            state = game.apply(state, move)
            assert game.parse_position(digits) == state
            assert game.parse_position(game.format_position(state)) == state
            assert game.parse_position(f"{digits} {game.to_move(state)}") == state


@pytest.mark.parametrize("name", ["connect4-4-4", "connect4-5-4", "connect4"])
def test_random_play_and_symmetries(name: str) -> None:
    game = get(name)
    check_random_play(game, playouts=20, seed=1)
    check_random_symmetries(game, playouts=10, seed=2, step=2)


def test_unmoves_on_4x4() -> None:
    game = get("connect4-4-4")
    for state in random_states(game, 60, seed=9):
        for move, child in game.children(state):
            assert (state, move) in game.unmoves(child)
        for parent, move in game.unmoves(state):
            assert game.apply(parent, move) == state and game.outcome(parent) is None


def test_layout_clicks_play_columns() -> None:
    game = get("connect4-5-4")
    layout = game.layout()
    clicks = layout["click_moves"]
    assert [c["name"] for c in layout["cells"]][:5] == ["a1", "b1", "c1", "d1", "e1"]
    assert clicks["a1"] == clicks["a4"] == "1" and clicks["e2"] == "5"
    cells = board_cells(layout, "...../...../...../..xo.")
    assert cells["c4"] == "x" and cells["d4"] == "o" and cells["c3"] is None
    assert game.format_board(game.parse_position("34")).splitlines()[-2:] == [". . x o .", "1 2 3 4 5"]


# -- bad input ------------------------------------------------------------------------------

test_malformed_positions = malformed_positions_test(
    """
    connect4-4-4 | ..../....                 | 2 rows
    connect4-4-4 | ..../..../..../.....      | row 4 has 5 cells
    connect4-4-4 | ..../..../..../..X.       | bad character 'X'
    connect4-4-4 | ..../..../.x../....       | floating disc in column 2
    connect4-4-4 | x.../..../..../x...       | floating disc in column 1
    connect4-4-4 | ..../..../..../ooo.       | 0 x and 3 o
    connect4-4-4 | ..../..../o.../xoo.       | 1 x and 3 o
    connect4-4-4 | ..../..../..../xx..       | 2 x and 0 o
    connect4-4-4 | ..../..../oooo/xxxx       | both sides have four
    connect4-4-4 | ..../o.../ooo./xxxx       | play went on after x had four
    connect4-4-4 | ..../o.../ooox/xxxx       | play went on after x had four
    connect4-4-4 | ..../..../xxo./oooo       | 2 x and 5 o
    connect4-4-4 | o.../o.../x.../x...       | no game reaches it
    connect4     | ......./......./o....../o....../x....../x...... | no game reaches it
    connect4-4-4 | 5                         | move 1 '5': expected a column 1..4
    connect4-4-4 | 120                       | move 3 '0': expected a column 1..4
    connect4-4-4 | 11111                     | move 5 '1': column 1 is full
    connect4-4-4 | 12121212                  | move 8 '2': the game is over
    connect4-4-4 | 12 o                      | wrong side to move
    connect4-4-4 | ..../..../..../.... z     | side to move must be 'x' or 'o'
    connect4     | 4458                      | move 4 '8': expected a column 1..7
    """
)

test_illegal_moves = illegal_moves_test(
    """
    connect4-4-4 | 12      | 5   | expected a column 1..4
    connect4-4-4 | 12      | 0   | expected a column 1..4
    connect4-4-4 | 12      | a1  | expected a column 1..4
    connect4-4-4 | 12      | 01  | expected a column 1..4
    connect4-4-4 | 1111    | 1   | column 1 is full
    connect4-4-4 | 1212121 | 3   | the game is over
    connect4     | 4       | 8   | expected a column 1..7
    """
)


def test_wins_that_may_be_the_last_move() -> None:
    game = get("connect4-4-4")
    # x's last disc may be d1 under o's discs elsewhere: a legal win, not play after it
    assert game.outcome(game.parse_position("x.../o.../ooo./xxxx")) == "loss"
    # o completed b1..b4 last
    assert game.outcome(game.parse_position(".o../.o../xo../xoxx")) == "loss"
    with pytest.raises(MalformedPositionError) as err:
        game.parse_position("..../xxx./oooo/xxox")
    check_message(err.value, "..../xxx./oooo/xxox", "play went on after o had four")


# -- the 4x4 board, built -------------------------------------------------------------------


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_database(tmp_path_factory.mktemp("connect4") / "t.db", ["connect4-4-4"])


def test_count_matches_tromp() -> None:
    assert tablebase.count("connect4-4-4", symmetry=False).positions == LEGAL_POSITIONS_4X4


def test_build(built: Path) -> None:
    with tablebase.open(built) as tb:
        assert tb.verify("connect4-4-4").ok
        table = tb.variant("connect4-4-4")
        start = table.probe()
        assert start.position == "..../..../..../...." and start.outcome == "draw"
        assert [m.move for m in start.moves] == ["1", "2", "3", "4"]
        by_digits, by_grid = table.probe("4432"), table.probe("..../..../...o/.oxx")
        assert by_digits == by_grid and by_digits.position == "..../..../...o/.oxx"
        assert table.play("4432", "1") == "..../..../...o/xoxx"


@pytest.mark.slow
def test_built_values_agree_with_plain_search(built: Path) -> None:
    game = get("connect4-4-4")
    rng = random.Random(11)
    result = {1: "win", 0: "draw", -1: "loss"}
    checked = 0
    with tablebase.open(built) as tb:
        table = tb.variant("connect4-4-4")
        while checked < 40:
            state = game.initial_state()
            for _ in range(rng.randint(4, 12)):
                if game.outcome(state) is not None:
                    break
                state = game.apply(state, rng.choice(game.legal_moves(state)))
            if game.outcome(state) is not None:
                continue
            probe = table.probe(game.format_position(state))
            assert probe.outcome == result[negamax(columns_of(probe.position), 4)]
            assert {m.move for m in probe.moves} == {game.format_move(m) for m in game.legal_moves(state)}
            for move in probe.moves:
                assert move.outcome == result[-negamax(columns_of(move.position), 4)], (probe.position, move.move)
            checked += 1


def test_states_only_build_takes_moves_and_predecessors_from_the_rules(tmp_path: Path) -> None:
    with tablebase.open(tmp_path / "s.db") as tb:
        tb.build("connect4-4-4", storage="states")
        table = tb.variant("connect4-4-4")
        assert table.probe().outcome == "draw"
        # 4432: o played last, on column 2 (b1) or on column 4 (d2)
        found = {(p.position, p.move) for p in table.predecessors("4432")}
        assert found == {("..../..../..../.oxx", "4"), ("..../..../...o/..xx", "2")}
