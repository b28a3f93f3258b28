"""The combinatorial census of m,n,k boards (benchmarks/census.py) against seed 003 and against the builder's counts.

The census knows nothing of the rules engine: it counts the boards whose
marks could have been placed in turn without anyone finishing a line early,
and classes by Burnside's lemma. Agreement with the move-by-move walk of
:func:`tablebase.solve.count` checks enumeration and symmetry reduction from
outside.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tablebase import games
from tablebase.solve import count
from test_count import SEED_003, SEED_003_TOTALS


def load_census() -> ModuleType:
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "census.py"
    spec = importlib.util.spec_from_file_location("census", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["census"] = module
    spec.loader.exec_module(module)
    return module


census = load_census()


@pytest.mark.parametrize("size", [1, 2, 3, 4])
def test_census_matches_seed_003(size: int) -> None:
    rows = census.census(size, size, size)
    positions, classes = SEED_003[size]
    assert [r.positions for r in rows] == positions
    assert [r.classes for r in rows] == classes
    assert (sum(positions), sum(classes)) == SEED_003_TOTALS[size]


# the well-known end positions of tic-tac-toe: 958 (626 won by x, 316 by o, 16 drawn),
# 138 up to symmetry (91, 44, 3)
def test_census_terminal_tictactoe() -> None:
    rows = census.census(3, 3, 3)
    assert sum(r.terminal_positions for r in rows) == 958
    assert sum(r.terminal_classes for r in rows) == 138
    assert (rows[-1].terminal_positions, rows[-1].terminal_classes) == (78, 15)


@pytest.mark.parametrize(
    "name", ["mnk-3-3-2", "mnk-4-3-3", "mnk-3-4-3", "mnk-5-3-3", pytest.param("mnk-4-4-3", marks=pytest.mark.slow), "mnk-4-2-2"]
)
def test_builder_counts_match_census(name: str) -> None:
    game = games.get(name)
    board = game.parameters()
    rows = census.census(board["m"], board["n"], board["k"])
    with_symmetry = count(game, symmetry=True)
    without = count(game, symmetry=False)
    assert [(c.ply, c.positions, c.classes, c.terminal) for c in with_symmetry] == [
        (r.ply, r.positions, r.classes, r.terminal_classes) for r in rows
    ]
    assert [c.terminal for c in without] == [r.terminal_positions for r in rows]


def test_census_symmetry_groups() -> None:
    assert len(census.symmetries(5, 4)) == 4 and len(census.symmetries(4, 4)) == 8
    for perm in census.symmetries(5, 4):
        assert sorted(perm) == list(range(20))
    # 5 columns x 4 rows, four in a row: 4 x 2 across, 5 down, 2 x 2 on the diagonals
    assert len(census.lines(5, 4, 4)) == 17
