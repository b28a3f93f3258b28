"""Seed 004's strategy LBS for O and the check of its lower bound (lemmas 4 and 5)."""

from __future__ import annotations

import json
import random

from typer.testing import CliRunner

from cli.main import app
from tablebase.games.base import LOSS
from tablebase.games.ultimate import Ultimate, move_name
from tablebase.games.ultimate.lower_bound import (
    check_funnel,
    check_lower_bound,
    funnel_invariant,
    lbs_moves,
    win_bound,
    x_counts,
)

GAME = Ultimate(classic=False)
#: Seed 004, Lemma 4: against LBS, X cannot win before turn 29.
PAPER_TURN = 29


def reference_lbs(state: int) -> set[int]:
    """LBS written again from seed 004's text, on a grid of (field, spot) cells."""
    text = GAME.format_position(state).split()
    rows = text[0].split("/")
    cell = {}
    for r in range(9):
        for c in range(9):
            cell[(3 * (r // 3) + c // 3, 3 * (r % 3) + c % 3)] = rows[r][c]
    sent = text[2]

    def full(f: int) -> bool:
        return all(cell[(f, s)] != "." for s in range(9))

    def has_x(f: int) -> bool:
        return any(cell[(f, s)] == "x" for s in range(9))

    def in_field(f: int) -> set[int]:
        if all(cell[(f, s)] == "." for s in range(9)):  # O is the first to play here
            return {9 * f + f}
        free = [s for s in range(9) if cell[(f, s)] == "."]
        toward_empty = [s for s in free if not has_x(s)]
        return {9 * f + s for s in (toward_empty or free)}

    if sent != "*":
        return in_field(int(sent))
    return set().union(*(in_field(f) for f in range(9) if not full(f)))


def random_lbs_line(rng: random.Random, plies: int) -> list[int]:
    """Random X moves, random LBS choices; stops early at the end of the game."""
    state = GAME.initial_state()
    states = [state]
    for ply in range(plies):
        if GAME.outcome(state) is not None:
            break
        moves = GAME.legal_moves(state) if ply % 2 == 0 else lbs_moves(state)
        state = GAME.apply(state, rng.choice(moves))
        states.append(state)
    return states


def test_lbs_is_legal_and_matches_the_text_on_random_games() -> None:
    rng = random.Random(4)
    checked = 0
    for _ in range(60):
        for state in random_lbs_line(rng, 81):
            if GAME.to_move(state) != "o" or GAME.outcome(state) is not None:
                continue
            allowed = lbs_moves(state)
            assert allowed, GAME.format_position(state)
            assert set(allowed) <= set(GAME.legal_moves(state))
            assert set(allowed) == reference_lbs(state)
            checked += 1
    assert checked > 1000


def test_lbs_sends_x_back_to_a_fresh_field() -> None:
    # x e5 (field 4, spot 4) sends O to the centre field, where X is already: O sends X to a field without X
    state = GAME.apply(GAME.initial_state(), 40)
    assert sorted(lbs_moves(state)) == [36, 37, 38, 39, 41, 42, 43, 44]
    # x a1 (field 0, spot 0) then o in field 0 ... x sends O to an empty field 5: she plays (5, 5)
    state = GAME.apply(GAME.apply(GAME.initial_state(), 0), 1)  # o (0, 1) sends X to field 1
    state = GAME.apply(state, 9 + 5)  # x (1, 5)
    assert lbs_moves(state) == [9 * 5 + 5]


def test_lemma5_on_sampled_lines() -> None:
    # seed 004, Lemma 5: after turn 18 every field holds exactly one X
    rng = random.Random(5)
    for _ in range(300):
        states = random_lbs_line(rng, 18)
        assert len(states) == 19
        assert x_counts(states[18]) == (1,) * 9
        for state in states[:18:2]:  # x to move with fields still without X: inside the funnel
            assert funnel_invariant(state), GAME.format_position(state)


def test_funnel_checked_exhaustively_on_the_first_turns() -> None:
    report = check_funnel(5)
    assert report.x_positions > 300 and report.outside_funnel == 0


def earliest_win(state: int, last_turn: int) -> int | None:
    """The earliest turn <= last_turn at which X can have won, by plain exhaustive search."""
    turn = GAME.plies_played(state) + 1  # type: ignore[operator]
    if turn > last_turn:
        return None
    best = None
    for move in GAME.legal_moves(state):
        child = GAME.apply(state, move)
        if GAME.outcome(child) == LOSS:
            return turn
        if GAME.outcome(child) is not None:
            continue
        for reply in lbs_moves(child):
            grand = GAME.apply(child, reply)
            if GAME.outcome(grand) is not None:
                continue
            w = earliest_win(grand, last_turn if best is None else best - 2)
            if w is not None:
                best = w
    return best


def test_bound_never_exceeds_the_true_earliest_win() -> None:
    rng = random.Random(6)
    compared = 0
    for _ in range(600):
        states = random_lbs_line(rng, rng.choice([34, 38, 42, 46]))
        state = states[-1]
        if GAME.to_move(state) != "x" or GAME.outcome(state) is not None:
            continue
        turn = len(states)
        truth = earliest_win(state, turn + 2)
        if truth is None:
            continue
        assert win_bound(state) <= truth
        compared += 1
    assert compared >= 30


def test_bound_is_exact_on_simple_positions() -> None:
    # x has won fields 0 and 1 (top rows) and holds two of field 2's top row: the bound is this turn
    rows = ["xxxxxxxx.", ".........", ".........", ".........", ".........", ".........", "o.oo.oo.o", ".........", ".o..o...."]
    state = GAME.parse_position("/".join(rows) + " x 2")
    assert win_bound(state) == GAME.plies_played(state) + 1  # type: ignore[operator]
    assert win_bound(GAME.initial_state()) == PAPER_TURN


def test_lower_bound_check_finds_a_line_and_replays() -> None:
    report = check_lower_bound()
    assert report.holds and report.earliest_x_win is not None and report.earliest_x_win >= PAPER_TURN
    assert report.lemma5_holds
    state = GAME.initial_state()
    names = {move_name(m): m for m in range(81)}
    for ply, name in enumerate(report.line):
        move = names[name]
        assert move in (GAME.legal_moves(state) if ply % 2 == 0 else lbs_moves(state))
        state = GAME.apply(state, move)
    assert len(report.line) == report.earliest_x_win
    assert GAME.outcome(state) == LOSS and GAME.to_move(state) == "o"  # x has just won


def test_cli_json_shape() -> None:
    result = CliRunner().invoke(app, ["strategy", "ultimate", "--lower-bound", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert isinstance(data["holds"], bool)
    assert isinstance(data["earliest_x_win"], int)
    assert isinstance(data["line"], list) and all(isinstance(c, str) for c in data["line"])
    assert isinstance(data["positions"], int) and data["positions"] > 0
    assert isinstance(data["seconds"], float)
    bad = CliRunner().invoke(app, ["strategy", "connect4", "--lower-bound"])
    assert bad.exit_code == 1 and "'connect4'" in bad.output


def test_cli_upper_bound_strategy() -> None:
    # seed 004, Lemma 3: X's strategy wins in at most 43 moves
    result = CliRunner().invoke(app, ["strategy", "ultimate", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["all_x_wins"] and data["always_defined"] and data["longest_game"] == 43
    text = CliRunner().invoke(app, ["strategy", "ultimate", "--lower-bound"])
    assert text.exit_code == 0 and ": holds" in text.output


def test_cli_walk_to() -> None:
    result = CliRunner().invoke(app, ["strategy", "ultimate", "--lower-bound", "--walk-to", "5", "--json"])
    assert result.exit_code == 0, result.output
    walk = json.loads(result.output)["funnel_walk"]
    assert walk["last_turn"] == 5 and walk["x_positions"] > 300 and walk["outside_funnel"] == 0
