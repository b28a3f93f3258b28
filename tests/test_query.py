"""The Python front object: probe, best move, line, predecessors, stats."""

from __future__ import annotations

from pathlib import Path

import pytest

import tablebase
from tablebase.errors import (
    DatabaseError,
    MalformedPositionError,
    UnknownVariantError,
    UnreachablePositionError,
    VariantNotBuiltError,
)

FLIP = {"win": "loss", "loss": "win", "draw": "draw"}


def test_start_of_tictactoe_is_a_draw_in_nine(ttt: tablebase.VariantTable) -> None:
    probe = ttt.probe()
    assert (probe.position, probe.to_move, probe.outcome, probe.distance) == (".../.../...", "x", "draw", 9)
    assert len(probe.moves) == 9
    assert all(m.outcome == "draw" and m.distance == 9 for m in probe.moves)


def test_probe_lists_every_move_in_the_users_orientation(ttt: tablebase.VariantTable) -> None:
    probe = ttt.probe("x.o/.x./...")
    assert probe.to_move == "o"
    assert (probe.outcome, probe.distance) == ("draw", 6)
    assert {m.move for m in probe.moves} == {"b1", "a2", "c2", "a3", "b3", "c3"}
    assert probe.best_move.move == "c3"
    assert [m.outcome for m in probe.moves] == ["draw"] + ["loss"] * 5
    for m in probe.moves:
        assert m.position == ttt.play(probe.position, m.move)
        child = ttt.probe(m.position)
        assert m.outcome == FLIP[child.outcome]
        assert m.distance == child.distance + 1


def test_moves_are_sorted_fastest_win_first_slowest_loss_last(ttt: tablebase.VariantTable) -> None:
    # x to move with a win at once (c1) and other, slower wins
    probe = ttt.probe("xx./oo./...")
    assert probe.best_move.move == "c1"
    assert (probe.best_move.outcome, probe.best_move.distance) == ("win", 1)
    ranks = [(m.outcome, m.distance) for m in probe.moves]
    order = {"win": 0, "draw": 1, "loss": 2}
    keys = [(order[o], d if o == "win" else -d) for o, d in ranks]
    assert keys == sorted(keys)
    assert (probe.outcome, probe.distance) == ("win", 1)


def test_best_move_matches_position_value_everywhere(tb: tablebase.Tablebase) -> None:
    for name in ("tictactoe", "mnk-3-2-2", "tictactoe-misere"):
        table = tb.variant(name)
        for _, key, *_rest in table.rows():
            probe = table.probe(key)
            if probe.terminal:
                assert probe.moves == () and probe.distance == 0
                continue
            best = probe.best_move
            assert (best.outcome, best.distance) == (probe.outcome, probe.distance)


def test_terminal_position(ttt: tablebase.VariantTable) -> None:
    probe = ttt.probe("xxx/oo./...")
    assert probe.terminal and probe.outcome == "loss" and probe.distance == 0
    assert probe.best_move is None
    assert ttt.best_move("xxx/oo./...") is None


def test_line_reaches_the_end_with_the_probed_value(ttt: tablebase.VariantTable) -> None:
    line = ttt.line()
    assert line.outcome == "draw" and len(line.moves) == 9
    last = ttt.probe(line.positions[-1])
    assert last.terminal and last.outcome == "draw"
    won = ttt.line("xx./oo./...")
    assert won.moves == ("c1",) and won.outcome == "win"


def test_predecessors_in_the_users_orientation(ttt: tablebase.VariantTable) -> None:
    preds = ttt.predecessors("x.o/.x./...")
    assert [(p.position, p.move) for p in preds] == [("..o/.x./...", "a1"), ("x.o/.../...", "b2")]
    for p in preds:
        assert ttt.play(p.position, p.move) == "x.o/.x./..."
    assert ttt.predecessors() == []
    # every position one move from the start leads back to the start
    for m in ttt.probe().moves:
        assert [(p.position, p.move) for p in ttt.predecessors(m.position)] == [(".../.../...", m.move)]


def test_predecessors_without_symmetry(tb: tablebase.Tablebase) -> None:
    full = tb.variant("mnk-3-3-3")
    assert not full.info.symmetry
    preds = full.predecessors("x.o/.x./...")
    assert [(p.position, p.move) for p in preds] == [("..o/.x./...", "a1"), ("x.o/.../...", "b2")]


def test_stats_with_and_without_symmetry(tb: tablebase.Tablebase) -> None:
    # seed 003: 5,478 positions, 765 up to symmetry
    reduced = tb.variant("tictactoe").stats()
    full = tb.variant("mnk-3-3-3").stats()
    assert (reduced.positions, reduced.classes) == (5478, 765)
    assert (full.positions, full.classes) == (5478, 765)
    assert [(p.positions, p.classes) for p in reduced.plies] == [(p.positions, p.classes) for p in full.plies]
    assert sum(reduced.outcomes.values()) == 765
    assert sum(full.outcomes.values()) == 5478


def test_errors(tb: tablebase.Tablebase, ttt: tablebase.VariantTable) -> None:
    with pytest.raises(UnknownVariantError):
        tb.variant("nope")
    with pytest.raises(VariantNotBuiltError, match="tablebase build mnk-4-4-4"):
        tb.variant("mnk-4-4-4")
    assert tb.get_variant("mnk-4-4-4") is None
    with pytest.raises(MalformedPositionError):
        ttt.probe("x")
    two_in_a_row = tb.variant("mnk-3-3-2")
    # x has two separate lines: the game would have ended at the first
    with pytest.raises(UnreachablePositionError, match="not reachable"):
        two_in_a_row.probe("xxo/o../xxo")
    assert two_in_a_row.get_probe("xxo/o../xxo") is None
    assert isinstance(ttt.get_probe("x../.../..."), tablebase.Probe)


def test_missing_database(tmp_path: Path) -> None:
    with tablebase.open(tmp_path / "none.db") as tb, pytest.raises(DatabaseError, match="does not exist"):
        tb.variants()


def test_not_a_tablebase(tmp_path: Path) -> None:
    path = tmp_path / "junk.db"
    path.write_bytes(b"this is not sqlite" * 100)
    with tablebase.open(path) as tb, pytest.raises(DatabaseError, match="not a tablebase"):
        tb.variants()


def test_open_an_existing_engine(built_db: Path) -> None:
    from sqlalchemy import create_engine

    engine = create_engine(f"sqlite:///{built_db}")
    with tablebase.open(engine=engine) as tb:
        assert tb.variant("tictactoe").probe().outcome == "draw"


def test_list(tb: tablebase.Tablebase) -> None:
    infos = {i.name: i for i in tb.variants()}
    assert infos["tictactoe"].to_dict() == {
        "variant": "tictactoe",
        "states": 765,
        "moves": 2270,
        "storage": "moves",
        "symmetry": True,
        "complete": True,
        "outcome": "draw",
        "distance": 9,
    }
    assert infos["mnk-2-2-2"].outcome == "win" and infos["mnk-2-2-2"].distance == 3
