"""The proof-number outcome search of Ultimate tic-tac-toe against the alpha-beta and Python searches."""

from __future__ import annotations

import functools
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tablebase
from tablebase.games import get
from tablebase.games.base import LOSS
from tablebase.games.playouts import random_live_position
from tablebase.scores import M
from tablebase.solve.search import prove

#: Every test here runs the compiled searches: slow, for their compilation in a fresh checkout.
pytestmark = pytest.mark.slow


@functools.cache
def _jit() -> Any:
    """:mod:`tablebase.games.ultimate.search`, imported when a test here runs, not when the quick set
    is collected (once imported, every later Ultimate search of the session is compiled)."""
    return pytest.importorskip("tablebase.games.ultimate.search")


@functools.cache
def _fields() -> Any:
    """:mod:`tablebase.games.ultimate.fields`: what the compiled searches know of a position."""
    return pytest.importorskip("tablebase.games.ultimate.fields")


VALUE = {"win": 1, "draw": 0, "loss": -1}


def _table(variant: str) -> Any:
    return _jit().OutcomeTable(get(variant).classic, max_bits=20)


def _dfpn_value(table: Any, state: int, budget: int = 10**9) -> int:
    """The value for the side to move: a win?, then not a loss?, each in calls of ``budget`` nodes."""
    lo, hi = -1, 1
    while lo < hi:
        proved, _ = table.dfpn(state, hi, budget)
        if proved is None:
            continue
        if proved:
            lo = hi
        else:
            hi -= 1
    return lo


@pytest.mark.parametrize("variant", ["ultimate", "ultimate-classic"])
def test_proof_numbers_agree_with_alpha_beta(variant: str) -> None:
    """60 positions of 12 to 24 open spots: the same value as the compiled alpha-beta, each on a fresh table."""
    game = get(variant)
    rng = random.Random(f"dfpn-{variant}")
    values = []
    for k in range(60):
        state = random_live_position(game, 12 + k % 13, rng)
        expected, _ = _table(variant).search(state, -1, 1, 10**9)
        assert _dfpn_value(_table(variant), state) == expected, game.format_position(state)
        values.append(expected)
    assert set(values) == {-1, 0, 1}


@pytest.mark.parametrize("variant", ["ultimate", "ultimate-classic"])
def test_proof_numbers_agree_with_the_python_search(variant: str) -> None:
    """Positions of 10 to 16 open spots: the value the Python search proves, on one table shared by all."""
    game = get(variant)
    rng = random.Random(f"dfpn-python-{variant}")
    table = _table(variant)
    for k in range(30):
        state = random_live_position(game, 10 + k % 7, rng)
        python = prove(game, state, compiled=False)
        assert _dfpn_value(table, state) == VALUE[python.outcome or ""], game.format_position(state)


@pytest.mark.parametrize("variant", ["ultimate", "ultimate-classic"])
def test_small_budgets_resume_where_they_stopped(variant: str) -> None:
    """A proof run in calls of 50 nodes (its numbers kept between calls) gives the value of one call."""
    game = get(variant)
    rng = random.Random(f"dfpn-budget-{variant}")
    for k in range(8):
        state = random_live_position(game, 18 + k % 5, rng)
        assert _dfpn_value(_table(variant), state, budget=50) == _dfpn_value(_table(variant), state)


@pytest.mark.parametrize("variant", ["ultimate", "ultimate-classic"])
def test_bounds_left_in_the_outcome_table_are_proved(variant: str) -> None:
    """After a proof, the bounds the outcome table holds on positions two plies down contain their values."""
    game = get(variant)
    rng = random.Random(f"dfpn-bounds-{variant}")
    checked = 0
    for k in range(6):
        state = random_live_position(game, 14 + k % 3, rng)
        table = _table(variant)
        _dfpn_value(table, state)
        below = [child for _, child in game.children(state)]
        below += [grandchild for child in below if game.outcome(child) is None for _, grandchild in game.children(child)]
        for position in below:
            entry = table.get(position)
            if entry is None or game.outcome(position) is not None:
                continue
            value = VALUE[prove(game, position, compiled=False).outcome or ""]
            assert entry[0] <= value <= entry[1], game.format_position(position)
            checked += 1
    assert checked > 10


@pytest.mark.parametrize("variant", ["ultimate", "ultimate-classic"])
def test_solved_files_verify(tmp_path: Path, variant: str) -> None:
    """Positions of 20 to 22 open spots solved with their moves (two processes): the file verifies, and
    each start's outcome is the alpha-beta's."""
    game = get(variant)
    rng = random.Random(f"dfpn-solve-{variant}")
    with tablebase.open(tmp_path / "u.db") as tb:
        for k in range(3):
            state = random_live_position(game, 20 + k, rng)
            report = tb.solve(variant, game.format_position(state))
            assert report.proved
            expected, _ = _table(variant).search(state, -1, 1, 10**9)
            assert VALUE[report.outcome] == expected
        check = tb.verify(variant)
        assert check.ok, check.errors


def _plain_need(game: Any, state: int, side: int) -> int:
    """The fewest marks ``side`` (0 x, 1 o) still needs to make a line of fields, from the rule text;
    30 or more when it cannot make one."""
    lines = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
    won_x, won_o = game.won_fields(state)
    mine_won, other_won = (won_x, won_o) if side == 0 else (won_o, won_x)
    needs = []
    for f in range(9):
        x, o = game.field_bits(state, f)
        mine, other = (x, o) if side == 0 else (o, x)
        if mine_won >> f & 1:
            needs.append(0)
        elif other_won >> f & 1:
            needs.append(30)
        else:
            costs = [sum(1 for s in ln if not mine >> s & 1) for ln in lines if not any(other >> s & 1 for s in ln)]
            needs.append(min(costs, default=30))
    return min(sum(needs[f] for f in ln) for ln in lines)


@pytest.mark.parametrize("variant", ["ultimate", "ultimate-classic"])
def test_marks_needed_match_the_rules(variant: str) -> None:
    """The compiled count of marks each side still needs (starting proof numbers, distance bounds)
    against a plain count."""
    game = get(variant)
    rng = random.Random(f"dfpn-need-{variant}")
    table = _table(variant)
    for k in range(200):
        state = random_live_position(game, 10 + k % 50, rng)
        xf, of, wx, wo, _active, _w0, _w1, _w2, mover, _classic = table._start(state, 0)
        mine, theirs = _fields()._needs(xf, of, wx, wo, mover)
        assert (min(mine, 30), min(theirs, 30)) == (
            min(_plain_need(game, state, mover), 30),
            min(_plain_need(game, state, 1 - mover), 30),
        ), game.format_position(state)


def test_distance_tests_of_the_wrong_parity_cost_one_node() -> None:
    """A win comes after an odd number of plies: once "a win within d - 2 plies?" has failed,
    "within d - 1?" fails at the start position itself."""
    game = get("ultimate")
    rng = random.Random(33)
    while True:
        state = random_live_position(game, 24, rng)
        label = prove(game, state)
        if label.outcome == "win" and label.distance is not None and label.distance >= 7:
            break
    table = game.outcome_table(state)
    value, _ = table.search(state, -1, 1, 10**9)
    assert value == 1
    g = M - (label.distance - 2)
    score, nodes = table.distance_search(state, g - 1, g, 10**9)
    assert score < g and nodes > 1
    score, nodes = table.distance_search(state, g - 2, g - 1, 10**9)
    assert score < g - 1 and nodes == 1
    g = M - label.distance
    score, _ = table.distance_search(state, g - 1, g, 10**9)
    assert score >= g


def _wins_at_once(game: Any, state: int) -> bool:
    """Whether the side to move in ``state`` has a move that wins the game."""
    return any(game.outcome(game.apply(state, m)) == LOSS for m in game.legal_moves(state))


@pytest.mark.parametrize("variant", ["ultimate", "ultimate-classic"])
def test_replies_that_win_at_once_are_seen_before_the_child_is_searched(variant: str) -> None:
    """For every move of random positions: the compiled check that it hands the other side a win at
    once matches the rules, and a move it finds trapping (every reply hands the mover a win at
    once) does so by the rules."""
    game = get(variant)
    rng = random.Random(f"dfpn-threats-{variant}")
    table = _table(variant)
    out = np.empty(81, dtype=np.int64)
    threats, own_threats = np.empty(9, dtype=np.int64), np.empty(9, dtype=np.int64)
    handed = trapped = 0
    for k in range(400):
        state = random_live_position(game, 8 + k % 30, rng)
        xf, of, wx, wo, active, w0, w1, w2, mover, _classic = table._start(state, 0)
        won = wx | wo
        n, closed, free_open = _fields()._moves(xf, of, won, active, game.classic, out)
        fields = _fields()._threats(xf, of, wx, wo, 1 - mover, threats)
        own = _fields()._threats(xf, of, wx, wo, mover, own_threats)
        for m in out[:n]:
            ends, wins_field, *_, a2, _replies = _fields()._child(
                xf, of, w0, w1, w2, won, wx if mover == 0 else wo, mover, closed, free_open, game.classic, m
            )
            child = game.apply(state, int(m))
            if ends != _fields().GOES_ON:
                assert game.outcome(child) is not None
                continue
            child_active = (a2 >> 54) & 15
            hands = _fields()._hands_a_win(threats, fields, m, wins_field, child_active)
            assert hands == _wins_at_once(game, child), (game.format_position(state), int(m))
            handed += hands
            if not hands and child_active != 9 and _fields()._trapped(
                xf, of, won, mover, game.classic, own_threats, own, m, wins_field, child_active
            ):
                trapped += 1
                replies = [game.apply(child, r) for r in game.legal_moves(child)]
                assert all(game.outcome(r) is None and _wins_at_once(game, r) for r in replies)
    assert handed > 40 and trapped > 5
