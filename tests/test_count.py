"""Counting positions per ply from the rules (tablebase.count, stats --count) against seed 003."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

import tablebase
from cli.main import app

# Seed 003 (TicTacToeStateCounter): positions per ply without symmetry ("Unique"
# in the seed's swapped headings) and classes up to symmetry ("NoSymmetries"),
# for k = N in a row on an N x N board.
SEED_003 = {
    1: ([1, 1], [1, 1]),
    2: ([1, 4, 12, 12], [1, 1, 2, 2]),
    3: ([1, 9, 72, 252, 756, 1260, 1520, 1140, 390, 78], [1, 3, 12, 38, 108, 174, 204, 153, 57, 15]),
    4: (
        [1, 16, 240, 1680, 10920, 43680, 160160, 400400, 895950, 1433520,
         1962576, 1962576, 1543080, 881760, 333792, 83440, 8220],
        [1, 3, 33, 219, 1413, 5514, 20122, 50215, 112379, 179510,
         245690, 245690, 193318, 110452, 41870, 10489, 1059],
    ),
}
SEED_003_TOTALS = {1: (2, 2), 2: (29, 6), 3: (5478, 765), 4: (9_722_011, 1_217_977)}


@pytest.mark.parametrize("symmetry", [True, False], ids=["symmetry", "full"])
@pytest.mark.parametrize("size", [1, 2, 3, pytest.param(4, marks=pytest.mark.slow)])
def test_counts_per_ply_match_seed_003(size: int, symmetry: bool) -> None:
    stats = tablebase.count(f"mnk-{size}-{size}-{size}", symmetry=symmetry)
    positions, classes = SEED_003[size]
    assert [p.ply for p in stats.plies] == list(range(len(positions)))
    assert [p.positions for p in stats.plies] == positions
    assert [p.classes for p in stats.plies] == classes
    assert (stats.positions, stats.classes) == SEED_003_TOTALS[size]
    assert stats.outcomes == {}


def test_scalar_and_vector_counts_agree() -> None:
    from tablebase import games
    from tablebase.solve import count

    for name in ("tictactoe", "mnk-4-3-3", "mnk-3-3-2-misere"):
        for symmetry in (True, False):
            game = games.get(name)
            assert count(game, symmetry, vector=False) == count(game, symmetry, vector=True)


def test_counts_agree_with_a_built_variant(tmp_path: Path) -> None:
    with tablebase.open(tmp_path / "c.db") as tb:
        tb.build("mnk-4-3-3")
        built = tb.variant("mnk-4-3-3").stats()
    counted = tablebase.count("mnk-4-3-3")
    assert [(p.ply, p.positions, p.classes) for p in counted.plies] == [(p.ply, p.positions, p.classes) for p in built.plies]
    assert counted.terminal == built.terminal


def test_stats_count_needs_no_database(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["stats", "tictactoe", "--count", "--db", str(tmp_path / "none.db")])
    assert result.exit_code == 0, result.output
    assert "total  5478       765" in result.stdout
    assert not (tmp_path / "none.db").exists()


def test_stats_of_a_variant_not_built_suggests_counting(built_db: Path) -> None:
    result = CliRunner().invoke(app, ["stats", "mnk-4-4-4", "--db", str(built_db)])
    assert result.exit_code == 1
    assert "tablebase stats mnk-4-4-4 --count" in result.stderr
