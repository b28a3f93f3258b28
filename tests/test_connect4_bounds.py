"""Static bounds of the Connect Four prover (`tablebase.games.connect4.bounds`) against plain
minimax: a bound is never below the score it bounds, and proves something often enough to matter."""

from __future__ import annotations

import random

import numpy as np
import pytest

pytest.importorskip("numba")

#: The slow set, with the prover they are part of: each test compiles a bound.
pytestmark = pytest.mark.slow

from tablebase.games import get  # noqa: E402
from tablebase.games.connect4.bits import to_bitboards  # noqa: E402
from tablebase.games.connect4.bounds import NONE, odd_threat_bound  # noqa: E402
from tablebase.games.connect4.compiled_bits import winning_spots  # noqa: E402
from tablebase.games.playouts import random_position  # noqa: E402
from test_connect4 import columns_of  # noqa: E402
from test_connect4_jit import pons_score  # noqa: E402


def odd_threat_bound_of(name: str, state: int) -> int:
    """:func:`odd_threat_bound` of a state of ``name`` (its mover with an odd number of empty cells)."""
    game = get(name)
    w, h = game.columns, game.rows
    bottom = sum(1 << c * (h + 1) for c in range(w))
    board = bottom * ((1 << h) - 1)
    x, mask = to_bitboards(state, w, h)
    moves = mask.bit_count()
    cur = x if moves % 2 == 0 else x ^ mask
    threats = winning_spots(np.uint64(cur ^ mask), h) & np.uint64(board & ~mask)
    return odd_threat_bound(np.uint64(cur), np.uint64(mask), threats, h, np.uint64(bottom), np.uint64(board), w * h, moves)


@pytest.mark.parametrize(
    ("name", "plies", "proved"),
    # even and odd heights, small boards and late 7x6 positions
    [("connect4-4-4", (3, 13), 12), ("connect4-5-4", (5, 17), 8), ("connect4-4-6", (7, 21), 30),
     ("connect4-4-5", (5, 19), 15), ("connect4-5-5", (9, 23), 25), ("connect4-7-6", (30, 36), 25)],
)
def test_the_odd_threat_bound_is_never_below_the_score(name: str, plies: tuple[int, int], proved: int) -> None:
    """On random positions whose mover has an odd number of empty cells, wherever the bound
    proves something the plain minimax score is at most the bound, and on some it is the score."""
    game = get(name)
    rng = random.Random(5)
    fired = exact = 0
    for _ in range(1500):
        state = random_position(game, rng.randint(*plies), rng)
        if (game.columns * game.rows - to_bitboards(state, game.columns, game.rows)[1].bit_count()) % 2 == 0:
            continue
        bound = odd_threat_bound_of(name, state)
        if bound == NONE:
            continue
        fired += 1
        score = pons_score(columns_of(game.format_position(state)), game.rows)
        assert score <= bound, (game.format_position(state), score, bound)
        exact += score == bound
    assert fired >= proved
    assert exact >= fired // 3


def test_an_odd_threat_with_two_columns_paired() -> None:
    """o to move, x's threat on d3 (a3 b3 c3 are x's) in column d, where the answers on top give
    x the third row; c and g also have an odd number of empty cells, so x answers a move into
    one in the other. o cannot make a four on what that leaves it, must at last play d2 and
    loses, at the latest on ply 39 (every cell but d3's column above it filled, then d3): the
    bound is -2, which is the score."""
    name = "connect4-7-6"
    game = get(name)
    state = game.parse_position(".x..o../.o..x../xo..oo./xxx.xxo/xoo.xox/oxoooxx")
    assert odd_threat_bound_of(name, state) == -2
    assert pons_score(columns_of(game.format_position(state)), game.rows) == -2
