"""Connect Four on arrays: the kernels against the plain rules, Tromp's counts of legal
positions, and the start values of his table on boards built out of core and packed."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

import tablebase
from tablebase.games import get
from tablebase.games.connect4 import Connect4Game, to_bitboards
from tablebase.games.common.kernels import UNKNOWN_CODE
from tablebase.games.playouts import playout
from tablebase.outcome import NAMES

#: Legal positions per board (columns x rows), terminal positions included and nothing
#: after a win: John Tromp's table, "John's Connect Four Playground"
#: (https://tromp.github.io/c4/c4.html).
TROMP_LEGAL_POSITIONS = {
    "connect4-4-4": 161_029,
    "connect4-5-4": 3_945_711,
    "connect4-6-4": 94_910_577,
    "connect4-4-5": 1_706_255,
    "connect4-5-5": 69_763_700,
    "connect4-4-6": 15_835_683,
}

#: The start value for x (first player) per board, from Tromp's table (same page): every
#: board here is a draw except 6x4, a second-player win; the solver results table of
#: github.com/ChristopheSteininger/c4 (readme.md) agrees and gives 6x4's last disc as the 24th.
TROMP_START = {
    "connect4-4-4": "draw",
    "connect4-5-4": "draw",
    "connect4-4-5": "draw",
    "connect4-5-5": "draw",
    "connect4-4-6": "draw",
    "connect4-6-4": "loss",
}


def random_walk_states(name: str, walks: int, seed: int) -> list[int]:
    """Every state on ``walks`` random games from the start, terminal ones included."""
    game = get(name)
    rng = random.Random(seed)
    return [state for _ in range(walks) for state in playout(game, rng)]


@pytest.mark.parametrize("name", ["connect4-4-4", "connect4-5-4", "connect4-4-5", "connect4-6-4", "connect4-5-5", "connect4"])
def test_kernels_agree_with_the_rules(name: str) -> None:
    game = get(name)
    kernels = game.vector
    assert kernels is not None and kernels.layered
    states = random_walk_states(name, walks=60, seed=len(name))
    array = np.array(states, dtype=np.uint64)
    codes = kernels.outcome(array)
    for state, code in zip(states, codes.tolist()):
        expected = game.outcome(state)
        assert (None if code == UNKNOWN_CODE else NAMES[code]) == expected, game.format_position(state)
    live = array[codes == UNKNOWN_CODE]
    parent, move, child = kernels.children(live)
    plain = [(i, m, c) for i, s in enumerate(live.tolist()) for m, c in game.children(s)]
    assert list(zip(parent.tolist(), move.tolist(), child.tolist())) == plain
    assert kernels.canonical(array).tolist() == [game.canonical(s)[0] for s in states]
    assert kernels.orbit_sizes(array).tolist() == [game.orbit_size(s) for s in states]
    assert kernels.layer(array).tolist() == [game.plies_played(s) for s in states]
    assert kernels.to_move(array) == [game.to_move(s) for s in states]


def test_kernels_see_fours_in_every_direction() -> None:
    game = get("connect4-5-5")
    kernels = game.vector
    # across, down, up-right and up-left, each finished by x's last disc
    for digits in ("1122334", "1212121", "12233434414", "54433232252"):
        state = game.parse_position(digits)
        assert game.outcome(state) is not None, digits
        assert kernels.outcome(np.array([state], dtype=np.uint64)).tolist() == [2], digits
        assert kernels.outcome(np.array([game.parse_position(digits[:-1])], dtype=np.uint64)).tolist() == [UNKNOWN_CODE]


@pytest.mark.parametrize("name", ["connect4-5-4", "connect4-4-5"])
def test_count_matches_tromp(name: str) -> None:
    assert tablebase.count(name, symmetry=False).positions == TROMP_LEGAL_POSITIONS[name]


@pytest.mark.slow
def test_count_4x6_matches_tromp() -> None:
    assert tablebase.count("connect4-4-6").positions == TROMP_LEGAL_POSITIONS["connect4-4-6"]


def check_packed_builds(path: Path, names: list[str]) -> None:
    """Build ``names`` packed into one file; each start value and count is Tromp's, and verify passes."""
    with tablebase.open(path) as tb:
        for name in names:
            tb.build(name, storage="packed")
        for name in names:
            table = tb.variant(name)
            assert table.probe().outcome == TROMP_START[name]
            assert table.stats().positions == TROMP_LEGAL_POSITIONS[name]
            assert tb.verify(name).ok


@pytest.mark.slow
def test_packed_builds_agree_with_tromp(tmp_path: Path) -> None:
    check_packed_builds(tmp_path / "c4.db", ["connect4-4-4", "connect4-4-5"])


@pytest.mark.slow
def test_packed_5x4_agrees_with_tromp(tmp_path: Path) -> None:
    check_packed_builds(tmp_path / "c4.db", ["connect4-5-4"])


@pytest.mark.parametrize("name", ["connect4-4-4", "connect4-6-5", "connect4"])
def test_disc_mask_agrees_with_the_column_walk(name: str) -> None:
    # to_bitboards reads each column's height from its sentinel, one column at a time
    game = get(name)
    assert isinstance(game, Connect4Game)
    for state in random_walk_states(name, walks=20, seed=3):
        x_bits, mask = to_bitboards(state, game.columns, game.rows)
        assert game.disc_mask(state) == mask and state & mask == x_bits
