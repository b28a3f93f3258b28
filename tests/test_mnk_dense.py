"""Dense storage of m,n,k boards: the index against the rules, builds against the packed storage,
verify catching a changed label, placements no game reaches, and the planner's choice."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from dense_support import build_both, change_a_stored_value, check_dense_is_packed
from tablebase.games.playouts import playout

import tablebase
from tablebase import build
from tablebase.games import get
from tablebase.games.mnk import MNKGame

#: One worker compiles these tests' kernels for all of them (pytest-xdist, ``--dist loadgroup``).
pytestmark = pytest.mark.xdist_group("mnk-dense")

pytest.importorskip("numba")


def mnk(name: str) -> MNKGame:
    game = get(name)
    assert isinstance(game, MNKGame)
    return game


@pytest.mark.parametrize("name", ["tictactoe", "mnk-4-4-3", "mnk-5-4-4", "mnk-4-3-3-misere"])
def test_slots_children_and_states_agree_with_the_rules(name: str) -> None:
    game = mnk(name)
    index = game.dense_index()
    sizes = index.ply_sizes()
    rng = random.Random(3)
    for _ in range(40):
        for state in playout(game, rng):
            derived, ply, slot = index.find(state)
            assert ply == game.plies_played(state) and 0 <= slot < sizes[ply]
            # the slot holds the state's class, whatever the orientation asked
            assert game.canonical(index.state(ply, slot))[0] == game.canonical(state)[0]
            for sym in range(game.num_symmetries):
                assert index.find(game.transform(state, sym)) == (derived, ply, slot)
            if game.outcome(state) is not None:
                continue
            children = index.children(state)
            assert sorted((move, child) for move, child, *_ in children) == sorted(game.children(state))
            for _, child, *found in children:
                assert tuple(found) == index.find(child)


@pytest.mark.parametrize("name", ["tictactoe", "mnk-4-3-3-misere"])
def test_derived_values_are_the_rules(name: str) -> None:
    game = mnk(name)
    index = game.dense_index()
    rng = random.Random(2)
    for _ in range(60):
        for state in playout(game, rng):
            over = game.outcome(state)
            value = index.derived(state)
            if over is not None:
                assert value == ({"loss": 2, "win": 1, "draw": 3}[over] | 1 << 2)
            elif not game.misere and any(game.outcome(child) == "loss" for _, child in game.children(state)):
                assert value == 1 | 2 << 2
            else:
                assert value is None


def test_every_slot_of_a_ply_is_a_distinct_placement() -> None:
    game = mnk("mnk-4-3-3")
    index = game.dense_index()
    for ply in range(game.cells + 1):
        states = [index.state(ply, slot) for slot in range(index.ply_sizes()[ply])]
        assert len(set(states)) == len(states)
        assert all(game.plies_played(s) == ply for s in states)


@pytest.mark.parametrize(
    "name",
    ["tictactoe", *(pytest.param(n, marks=pytest.mark.slow) for n in ("tictactoe-misere", "mnk-3-3-2", "mnk-4-3-3", "mnk-4-4-3"))],
)
def test_dense_stores_what_packed_stores(tmp_path: Path, name: str) -> None:
    dense, packed = build_both(tmp_path, [name])
    check_dense_is_packed(dense.variant(name), packed.variant(name), games=15)
    report = dense.verify(name)
    assert report.ok and report.states == dense.variant(name).stats().classes


def test_tictactoe_counts(tmp_path: Path) -> None:
    """5,478 legal tic-tac-toe positions in 765 classes, a draw (the figures of DESIGN's reference
    table, from the seeds); here from a dense build."""
    with tablebase.open(tmp_path / "t.db") as tb:
        tb.build("tictactoe", storage="dense")
        stats = tb.variant("tictactoe").stats()
        assert (stats.positions, stats.classes) == (5478, 765)
        assert tb.variant("tictactoe").probe().outcome == "draw"


def test_verify_finds_a_label_changed_in_the_file(tmp_path: Path) -> None:
    path = tmp_path / "mnk.db"
    name = "mnk-4-3-3"
    with tablebase.open(path) as tb:
        tb.build(name, storage="dense")
        assert tb.verify(name).ok
    game = mnk(name)
    index = game.dense_index()
    ply = 6
    # a stored slot: the one its class is kept at, reachable, its value not given by the rules
    slot = change_a_stored_value(path, ply, lambda slot: index.find(index.state(ply, slot)) == (None, ply, slot))
    with tablebase.open(path) as tb:
        report = tb.verify(name)
        assert not report.ok
        assert any(game.format_position(index.state(ply, slot)) in e for e in report.errors)


def test_placements_no_game_reaches(tmp_path: Path) -> None:
    game = mnk("mnk-4-4-3")
    # x has two lines with no cell in common: no single x mark completed both
    two_lines = game.parse_position("xxx./oo.o/xxx./o.o.")
    assert not game.can_arise(two_lines)
    # two lines through one cell: the last x mark made both
    assert game.can_arise(game.parse_position("xxx./xoo./x.o./o..."))
    assert game.dense_index().find(two_lines)[2] == -1
    with tablebase.open(tmp_path / "d.db") as tb:
        tb.build("mnk-4-4-3", storage="dense")
        with pytest.raises(tablebase.UnreachablePositionError, match="not reachable"):
            tb.variant("mnk-4-4-3").probe("xxx./oo.o/xxx./o.o.")
        assert tb.variant("mnk-4-4-3").probe("xxx./xoo./x.o./o...").outcome == "loss"


def test_can_arise_agrees_with_a_walk_from_the_start() -> None:
    game = mnk("mnk-4-3-3")
    index = game.dense_index()
    frontier = {game.initial_state()}
    for ply in range(game.cells + 1):
        reached = {game.canonical(s)[0] for s in frontier}
        for slot in range(index.ply_sizes()[ply]):
            state = index.state(ply, slot)
            xs, os = state & ((1 << game.cells) - 1), state >> game.cells
            legal = not (game.has_line(xs) and game.has_line(os))
            assert (game.canonical(state)[0] in reached) == (legal and game.can_arise(state)), game.format_position(state)
        frontier = {child for s in frontier if game.outcome(s) is None for _, child in game.children(s)}


def test_the_planner_picks_dense_for_large_boards(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plan = build.plan("mnk-5-4-4", symmetry=True, storage=None, path_known=True)
    assert plan.storage is not None and plan.storage.name == "dense"
    assert build.plan("mnk-4-4-4", symmetry=True, storage=None, path_known=True).storage is None
    monkeypatch.setattr(build, "LARGE_ABOVE", 1000)
    with tablebase.open(tmp_path / "big.db") as tb:
        info = tb.build("mnk-4-3-3")
        assert (info.storage, info.states, info.outcome, info.distance) == ("dense", 28275, "win", 7)
