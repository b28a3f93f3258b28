"""Dense storage of m,n,k boards: the index against the rules, builds against the packed layout,
verify catching a changed label, placements no game reaches, and the planner's choice."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import numpy as np
import pytest

import tablebase
from tablebase import build
from tablebase.games import get
from tablebase.games.mnk import MNKGame
from tablebase.store.dense import decode_block, encode_block

pytest.importorskip("numba")


def walk(game: MNKGame, rng: random.Random) -> list[int]:
    """The states of one random game from the start, the last one over."""
    state = game.initial_state()
    states = [state]
    while game.outcome(state) is None:
        state = game.apply(state, rng.choice(game.legal_moves(state)))
        states.append(state)
    return states


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
        for state in walk(game, rng):
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
        for state in walk(game, rng):
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


def build_both(path: Path, names: list[str]) -> tuple[tablebase.Tablebase, tablebase.Tablebase]:
    dense, packed = tablebase.open(path / "dense.db"), tablebase.open(path / "packed.db")
    for name in names:
        dense.build(name, storage="dense")
        packed.build(name, storage="packed")
    return dense, packed


def test_dense_stores_what_packed_stores(tmp_path: Path) -> None:
    names = ["tictactoe", "tictactoe-misere", "mnk-3-3-2", "mnk-4-3-3", "mnk-4-4-3"]
    dense, packed = build_both(tmp_path, names)
    for name in names:
        a, b = dense.variant(name), packed.variant(name)
        assert a.info.storage == "dense" and b.info.storage == "packed"
        with a.snapshot() as ca, b.snapshot() as cb:
            layers_a = {p: arrays for p, *arrays in a.storage.sorted_layers(ca, pytest.fail)}
            layers_b = {p: arrays for p, *arrays in b.storage.sorted_layers(cb, pytest.fail)}
        assert layers_a.keys() == layers_b.keys()
        for ply in layers_a:
            for x, y in zip(layers_a[ply], layers_b[ply]):
                assert np.array_equal(x, y), (name, ply)
        assert a.stats().to_dict() == b.stats().to_dict()
        assert a.info.outcome == b.info.outcome and a.info.distance == b.info.distance
        report = dense.verify(name)
        assert report.ok and report.states == a.stats().classes
        game = mnk(name)
        rng = random.Random(7)
        for _ in range(15):
            for state in walk(game, rng):
                position = game.format_position(state)
                assert a.probe(position).to_dict() == b.probe(position).to_dict()
                assert a.predecessors(position).to_dict() == b.predecessors(position).to_dict()
        assert a.line().to_dict() == b.line().to_dict()


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
    conn = sqlite3.connect(path)
    first, count, data = conn.execute(
        "SELECT first_state, count, data FROM blocks WHERE ply = ? ORDER BY first_state LIMIT 1", (ply,)
    ).fetchone()
    values = decode_block(data, ply, first, count).copy()
    # a stored slot: the one its class is kept at, reachable, its value not given by the rules
    slot = next(
        s for s in range(count)
        if values[s] and index.find(index.state(ply, first + s)) == (None, ply, first + s)
    )  # fmt: skip
    values[slot] = 1 | 30 << 2
    conn.execute(
        "UPDATE blocks SET data = ? WHERE ply = ? AND first_state = ?", (encode_block(values, ply, first), ply, first)
    )
    conn.commit()
    conn.close()
    with tablebase.open(path) as tb:
        report = tb.verify(name)
        assert not report.ok
        assert any(game.format_position(index.state(ply, first + slot)) in e for e in report.errors)


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
