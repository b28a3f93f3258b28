"""Ultimate tic-tac-toe: rules against OpenSpiel and an independent model, notation, symmetry, seed 004's strategy."""

from __future__ import annotations

import random
import re

import pytest

from tablebase.errors import IllegalMoveError, MalformedPositionError
from tablebase.games import get
from tablebase.games.bitboard import grid_symmetries
from tablebase.games.playouts import playout
from tablebase.games.ultimate import Ultimate, UltimateStrategy, check_strategy
from tablebase.solve import solve

pyspiel = pytest.importorskip("pyspiel")

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def name(row: int, col: int) -> str:
    return f"{'abcdefghi'[col]}{row + 1}"


class Reference:
    """A deliberately plain model of both rule sets, on grid coordinates, written from the rule text."""

    def __init__(self, classic: bool):
        self.classic = classic
        self.grid = [["."] * 9 for _ in range(9)]
        self.owner = ["."] * 9  # who won each field first
        self.target: int | None = None  # field the side to move is sent to, None = free
        self.player = "x"
        self.winner: str | None = None
        self.over = False

    @staticmethod
    def field_cells(f: int) -> list[tuple[int, int]]:
        return [(3 * (f // 3) + s // 3, 3 * (f % 3) + s % 3) for s in range(9)]

    def field_full(self, f: int) -> bool:
        return all(self.grid[r][c] != "." for r, c in self.field_cells(f))

    def field_open(self, f: int) -> bool:
        if self.field_full(f):
            return False
        return not (self.classic and self.owner[f] != ".")

    def legal(self) -> list[str]:
        if self.over:
            return []
        fields = [self.target] if self.target is not None else [f for f in range(9) if self.field_open(f)]
        return sorted(name(r, c) for f in fields for r, c in self.field_cells(f) if self.grid[r][c] == ".")

    def play(self, cell: str) -> None:
        assert cell in self.legal()
        col, row = "abcdefghi".index(cell[0]), int(cell[1:]) - 1
        self.grid[row][col] = self.player
        f, s = 3 * (row // 3) + col // 3, 3 * (row % 3) + col % 3
        marks = [self.grid[r][c] for r, c in self.field_cells(f)]
        if self.owner[f] == "." and any(all(marks[i] == self.player for i in ln) for ln in LINES):
            self.owner[f] = self.player
        if any(all(self.owner[i] == self.player for i in ln) for ln in LINES):
            self.winner, self.over = self.player, True
        elif not any(self.field_open(g) for g in range(9)):
            self.over = True
        self.target = s if self.field_open(s) else None
        self.player = "o" if self.player == "x" else "x"

    def board(self) -> str:
        return "/".join("".join(row) for row in self.grid)


def random_states(game: Ultimate, count: int, seed: int = 0) -> list[int]:
    rng = random.Random(seed)
    out: list[int] = []
    while len(out) < count:
        out += playout(game, rng)
    return out[:count]


# -- rules ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("variant", "seed", "playouts"),
    [
        ("ultimate", 7, 100),
        ("ultimate-classic", 7, 100),
        pytest.param("ultimate", 8, 300, marks=pytest.mark.slow),
        pytest.param("ultimate-classic", 8, 300, marks=pytest.mark.slow),
    ],
)
def test_rules_agree_with_a_plain_model(variant: str, seed: int, playouts: int) -> None:
    """Random games: the board, the legal moves and the end agree with a plain model at every step
    (100 games a variant in the quick set, 300 more in the slow set)."""
    game = get(variant)
    rng = random.Random(seed)
    for _ in range(playouts):
        ref = Reference(classic=variant == "ultimate-classic")
        state = game.initial_state()
        while True:
            assert game.format_position(state).split(" ")[0] == ref.board()
            moves = sorted(game.format_move(m) for m in game.legal_moves(state)) if game.outcome(state) is None else []
            assert moves == ref.legal()
            assert (game.outcome(state) is not None) == ref.over
            if ref.over:
                if ref.winner is None:
                    assert game.outcome(state) == "draw"
                else:
                    assert game.outcome(state) == "loss" and game.to_move(state) != ref.winner
                break
            cell = rng.choice(moves)
            ref.play(cell)
            state = game.apply(state, game.parse_move(state, cell))


def _spiel_view(ps_state) -> tuple[str, int | None]:
    """Board (our notation) and forced board of an OpenSpiel state, from its string form."""
    text = str(ps_state)
    rows = [ln.replace(" ", "") for ln in text.splitlines() if re.fullmatch(r"[xo.]{3} [xo.]{3} [xo.]{3}", ln)]
    forced = re.search(r"Forced board: (\w+)", text).group(1)
    return "/".join(rows), (None if forced == "any" else int(forced))


@pytest.mark.slow
def test_classic_agrees_with_openspiel() -> None:
    """Random playouts: legal moves, board, active field, terminal status and winner agree at every step.

    OpenSpiel takes a free choice as two actions, the board (0..8) then the
    cell in it (0..8, row-major); a forced move is one action, the cell.
    """
    game = get("ultimate-classic")
    spiel = pyspiel.load_game("ultimate_tic_tac_toe")
    rng = random.Random(2024)
    steps = games = 0
    wins = {"x": 0, "o": 0, "draw": 0}
    for _ in range(2500):
        games += 1
        ps = spiel.new_initial_state()
        state = game.initial_state()
        while True:
            board, forced = _spiel_view(ps)
            assert board == game.format_position(state).split(" ")[0]
            over = game.outcome(state) is not None
            assert ps.is_terminal() == over
            if over:
                returns = ps.returns()
                if game.outcome(state) == "draw":
                    assert returns == [0.0, 0.0]
                    wins["draw"] += 1
                else:
                    winner = "o" if game.to_move(state) == "x" else "x"
                    assert returns == ([1.0, -1.0] if winner == "x" else [-1.0, 1.0])
                    wins[winner] += 1
                break
            ours = sorted(game.legal_moves(state))
            assert ps.current_player() == (0 if game.to_move(state) == "x" else 1)
            assert forced == game.active_field(state)
            if forced is None:
                assert sorted(ps.legal_actions()) == sorted({m // 9 for m in ours})
            else:
                assert sorted(9 * forced + a for a in ps.legal_actions()) == ours
            move = rng.choice(ours)
            if forced is None:
                ps.apply_action(move // 9)
                assert sorted(9 * (move // 9) + a for a in ps.legal_actions()) == [m for m in ours if m // 9 == move // 9]
            ps.apply_action(move % 9)
            state = game.apply(state, move)
            steps += 1
    assert steps > 50_000
    assert min(wins.values()) > 0


def test_won_field_stays_playable_only_under_seed_rules() -> None:
    seed_rules, classic = get("ultimate"), get("ultimate-classic")
    # x has won field 0 (a1 b1 c1), o holds d1 and b2; o was sent to field 0 by x's a1
    pos = "xxxo...../.o......./" + "/".join(["." * 9] * 7) + " o 0"
    state = seed_rules.parse_position(pos)
    assert seed_rules.won_fields(state) == (0b1, 0)
    assert sorted(seed_rules.format_move(m) for m in seed_rules.legal_moves(state)) == ["a2", "a3", "b3", "c2", "c3"]
    with pytest.raises(MalformedPositionError, match="closed"):
        classic.parse_position(pos)
    state = classic.parse_position(pos.replace(" 0", " *"))
    moves = classic.legal_moves(state)
    assert len(moves) == 81 - 9 - 1 and all(m // 9 != 0 for m in moves)


@pytest.mark.parametrize("variant", ["ultimate", "ultimate-classic", "ultimate-strategy"])
def test_fast_paths_agree_with_apply(variant: str) -> None:
    game = get(variant)
    for state in random_states(game, 2000, seed=8):
        if game.outcome(state) is None:
            moves = game.legal_moves(state)
            assert game.children(state) == [(m, game.apply(state, m)) for m in moves]
            assert game.move_count(state) == len(moves)
            assert game.successors(state) == [
                (m, c, game.outcome(c), 0 if game.outcome(c) else len(game.legal_moves(c)))
                for m, c in game.children(state)
            ]
        else:
            assert game.children(state) == []


# -- notation -------------------------------------------------------------------------


@pytest.mark.parametrize("variant", ["ultimate", "ultimate-classic", "ultimate-strategy"])
def test_positions_round_trip(variant: str) -> None:
    game = get(variant)
    for state in random_states(game, 3000, seed=3):
        text = game.format_position(state)
        assert game.parse_position(text) == state, text
        for move in game.legal_moves(state) if game.outcome(state) is None else []:
            assert game.parse_move(state, game.format_move(move)) == move


def test_notation_examples() -> None:
    game = get("ultimate")
    start = game.initial_state()
    assert game.format_position(start) == "/".join(["." * 9] * 9) + " x *"
    after = game.apply(start, game.parse_move(start, "e5"))
    assert game.format_position(after) == "/".join(["." * 9] * 4 + ["....x...."] + ["." * 9] * 4) + " o 4"
    assert game.parse_move(start, "a1") == 0 and game.parse_move(start, "i9") == 80
    assert game.format_move(9 * 2 + 3) == "g2"  # field 2 (top right), spot 3 (middle row, left)
    assert "x to move, any field" in game.format_board(start)


def test_owner_token_when_both_sides_have_a_line() -> None:
    game = get("ultimate")
    rng = random.Random(11)
    found = 0
    for _ in range(3000):
        state = game.initial_state()
        while game.outcome(state) is None:
            state = game.apply(state, rng.choice(game.legal_moves(state)))
            text = game.format_position(state)
            if " won=" in text:
                found += 1
                assert game.parse_position(text) == state
                bare = text.split(" won=")[0]
                with pytest.raises(MalformedPositionError, match="won="):
                    game.parse_position(bare)
                break
        if found >= 5:
            break
    assert found >= 5


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("", "expected the 9x9 board"),
        ("/".join(["." * 9] * 8) + " x *", "8 rows"),
        ("/".join(["." * 9] * 8 + ["." * 8]) + " x *", "row 9 has 8 cells"),
        ("/".join(["." * 9] * 8 + ["........q"]) + " x *", "bad character 'q'"),
        ("/".join(["." * 9] * 9) + " o *", "wrong side to move"),
        ("/".join(["." * 9] * 9) + " x 4", "first move is free"),
        ("/".join(["." * 9] * 9) + " x 9", "digit 0..8"),
        ("/".join(["." * 9] * 9) + " y *", "'x' or 'o'"),
        ("/".join(["oo......."] + ["." * 9] * 8) + " x *", "2 o"),
        ("/".join(["." * 9] * 4 + ["....x...."] + ["." * 9] * 4) + " o 3", "field 3"),
        ("/".join(["." * 9] * 4 + ["....x...."] + ["." * 9] * 4) + " o *", "'*'"),
    ],
)
def test_malformed_positions(text: str, fragment: str) -> None:
    with pytest.raises(MalformedPositionError) as err:
        get("ultimate").parse_position(text)
    message = str(err.value)
    assert fragment in message and repr(text) in message and "\n" not in message


def test_illegal_moves() -> None:
    game = get("ultimate")
    state = game.parse_position("/".join(["." * 9] * 4 + ["....x...."] + ["." * 9] * 4) + " o 4")
    for text, fragment in [("e5", "occupied"), ("a1", "field 4 (d4-f6)"), ("j1", "expected a cell"), ("E5", "expected a cell")]:
        with pytest.raises(IllegalMoveError, match=re.escape(fragment)) as err:
            game.parse_move(state, text)
        assert repr(text) in str(err.value)


# -- symmetry -------------------------------------------------------------------------


@pytest.mark.parametrize("variant", ["ultimate", "ultimate-classic", "ultimate-strategy"])
def test_symmetries_act_on_the_whole_grid(variant: str) -> None:
    game = get(variant)
    grid_perms = grid_symmetries(9, 9)
    assert game.num_symmetries == 8
    for state in random_states(game, 400, seed=5):
        board = game.format_position(state).split(" ")[0].replace("/", "")
        images = set()
        for s in range(8):
            image = game.transform(state, s)
            images.add(image)
            # the image's board is the grid permutation applied to the board
            moved = ["."] * 81
            for cell, ch in enumerate(board):
                moved[grid_perms[s][cell]] = ch
            assert game.format_position(image).split(" ")[0].replace("/", "") == "".join(moved)
            active = game.active_field(state)
            if active is not None:
                spot_perm = grid_symmetries(3, 3)[s]
                assert game.active_field(image) == spot_perm[active]
            assert game.transform(image, game.inverse_symmetry(s)) == state
            assert game.outcome(image) == game.outcome(state)
            if game.outcome(state) is None:
                assert sorted(game.legal_moves(image)) == sorted(game.transform_move(m, s) for m in game.legal_moves(state))
                move = game.legal_moves(state)[0]
                assert game.apply(image, game.transform_move(move, s)) == game.transform(game.apply(state, move), s)
        canon, sym = game.canonical(state)
        assert canon == min(images) == game.transform(state, sym)


# -- seed 004's strategy ------------------------------------------------------------------


def test_strategy_opening_is_forced() -> None:
    game = get("ultimate-strategy")
    state = game.initial_state()
    assert [game.format_move(m) for m in game.legal_moves(state)] == ["e5"]
    state = game.apply(state, game.parse_move(state, "e5"))
    assert len(game.legal_moves(state)) == 8  # o anywhere in the centre field
    state = game.apply(state, game.parse_move(state, "d4"))  # o plays (4,0): x answers (0,4)
    assert [game.format_move(m) for m in game.legal_moves(state)] == ["b2"]
    with pytest.raises(IllegalMoveError, match="strategy, which plays b2"):
        game.parse_move(state, "a1")


def test_seed_strategy_wins_within_43_plies() -> None:
    report = check_strategy(solve, symmetry=True)
    assert report.always_defined and report.first_failure is None
    assert report.all_x_wins and report.terminals["o wins"] == report.terminals["draw"] == 0
    assert report.root_outcome == "win"
    assert report.longest_game == 43  # seed 004: "at most 43 moves", and its line reaching 43


def test_strategy_check_reports_a_broken_strategy() -> None:
    """A strategy without the endgame's fallback (i, 8-b) is caught, not patched."""

    class Broken(UltimateStrategy):
        @staticmethod
        def _prescribe(state, o_move, phase, b):  # type: ignore[override]
            move, phase2, b2 = UltimateStrategy._prescribe(state, o_move, phase, b)
            if phase == 2:
                move = 9 * (o_move % 9) + b
            return move, phase2, b2

    report = check_strategy(solve, game=Broken())
    assert not report.always_defined and report.terminals["failure"] > 0
    assert report.first_failure is not None and "next=" in report.first_failure
    assert not report.all_x_wins
    assert report.root_outcome == "loss"  # o steers into the failure: x cannot move, and forfeits
