"""Counting positions per ply from the rules (tablebase.count, stats --count) against seed 003."""

from __future__ import annotations

import types
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from graph_game import GraphGame
from typer.testing import CliRunner

import tablebase
from cli.main import app
from tablebase import games
from tablebase.games.base import Game
from tablebase.games.mnk.rules import MNKGame

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


class MirroredTrees(GraphGame):
    """Two small trees, each the mirror image of the other, whose leaves lead to one shared end; the
    token starts on the root of the second (made for tests).

    The mirror swaps the trees, so it moves the start: of a pair of mirrored nodes, both, one or none
    may be reachable, and the smaller (the canonical one) may be the one that is not.
    """

    MIRROR = (1, 0, 3, 2, 5, 4, 6)

    def __init__(self) -> None:
        # node 1's moves are the mirror images of node 0's, in the same order
        super().__init__({0: [2, 3, 4], 1: [3, 2, 5], 2: [6], 3: [6], 4: [6], 5: [6], 6: []}, start=1)
        self.name = "mirrored-trees"

    @property
    def num_symmetries(self) -> int:
        return 2

    def transform(self, state: int, sym: int) -> int:
        return self.MIRROR[state] if sym else state


def brute_force(game: GraphGame) -> tuple[list[int], list[int]]:
    """Positions and symmetry classes first reached at each ply, breadth first over every position."""
    seen = {game.initial_state()}
    layer, positions, classes, found = {game.initial_state()}, [], [], set()
    while layer:
        positions.append(len(layer))
        new = {min(game.transform(s, k) for k in range(game.num_symmetries)) for s in layer} - found
        classes.append(len(new))
        found |= new
        layer = {child for s in layer for child in game.edges[s]} - seen
        seen |= layer
    return positions, classes


def registered(monkeypatch: pytest.MonkeyPatch, name: str, factory: Callable[[], Game]) -> Iterator[None]:
    """The game ``factory`` makes registered as ``name`` while a test runs."""
    family = types.ModuleType(name)
    family.VARIANTS = {name: factory}  # type: ignore[attr-defined]
    monkeypatch.setattr(games, "FAMILIES", (*games.FAMILIES, family))
    games.get.cache_clear()
    yield
    games.get.cache_clear()


@pytest.fixture
def mirrored_trees(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    yield from registered(monkeypatch, "mirrored-trees", MirroredTrees)


def test_positions_of_a_game_whose_start_a_symmetry_moves_are_those_reachable(mirrored_trees: None, tmp_path: Path) -> None:
    # from node 1: node 1, then 3, 2 and 5, then the end 6; nodes 0 and 4 are mirror images of
    # reachable nodes that nothing reaches (counting whole orbits gave 2, 4, 1 positions)
    positions, classes = brute_force(games.get("mirrored-trees"))
    assert (positions, classes) == ([1, 3, 1], [1, 2, 1])
    for symmetry in (True, False):
        counted = tablebase.count("mirrored-trees", symmetry=symmetry)
        assert [(p.ply, p.positions, p.classes) for p in counted.plies] == [(0, 1, 1), (1, 3, 2), (2, 1, 1)]
    db = tmp_path / "m.db"
    with tablebase.open(tmp_path / "full.db") as tb:
        tb.build("mirrored-trees", symmetry=False)
        full = tb.variant("mirrored-trees").stats()
    with tablebase.open(db) as tb:
        tb.build("mirrored-trees")
        built = tb.variant("mirrored-trees").stats()
    for stats in (built, full):
        assert [(p.ply, p.positions, p.classes) for p in stats.plies] == [(0, 1, 1), (1, 3, 2), (2, 1, 1)]
    # the end is lost for the side to move there, so every position one move before it is won
    assert [p.outcomes for p in built.plies] == [
        {"win": 0, "draw": 0, "loss": 1}, {"win": 3, "draw": 0, "loss": 0}, {"win": 0, "draw": 0, "loss": 1},
    ]
    for args in (["--count"], ["--db", str(db)]):
        shown = CliRunner().invoke(app, ["stats", "mirrored-trees", *args])
        assert shown.exit_code == 0, shown.output
        assert "total  5" in shown.stdout, shown.stdout


class CornerStart(MNKGame):
    """Tic-tac-toe from x's first move in the corner a1 (made for tests): the board's reflections in
    the other diagonal and the centre lines move the start."""

    def __init__(self) -> None:
        super().__init__(3, 3, 3, name="corner-tictactoe")

    def initial_state(self) -> int:
        return self.apply(0, self.parse_move(0, "a1"))


@pytest.fixture
def corner_start(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    yield from registered(monkeypatch, "corner-tictactoe", CornerStart)


def test_a_moved_start_is_counted_alike_with_and_without_symmetry_and_built_in_memory(corner_start: None, tmp_path: Path) -> None:
    game = games.get("corner-tictactoe")
    assert game.orbit_size(game.initial_state()) == 4
    reduced, full = (tablebase.count("corner-tictactoe", symmetry=s) for s in (True, False))
    assert [(p.positions, p.classes) for p in reduced.plies] == [(p.positions, p.classes) for p in full.plies]
    # tic-tac-toe after x a1: 8 answers of o, then 7 x moves to each; a full board at the end
    assert [p.positions for p in full.plies][:3] == [1, 8, 8 * 7] and len(full.plies) == 9
    with tablebase.open(tmp_path / "c.db") as tb:
        tb.build("corner-tictactoe")
        built = tb.variant("corner-tictactoe").stats()
        assert [(p.positions, p.classes) for p in built.plies] == [(p.positions, p.classes) for p in full.plies]
        # the out-of-core and dense builds count whole orbits: refused with symmetry, by name
        for storage in ("packed", "dense"):
            with pytest.raises(tablebase.TablebaseError, match="'corner-tictactoe': a symmetry moves its start"):
                tb.build("corner-tictactoe", storage=storage)
        tb.build("corner-tictactoe", storage="packed", symmetry=False)
        assert [p.positions for p in tb.variant("corner-tictactoe").stats().plies] == [p.positions for p in full.plies]
