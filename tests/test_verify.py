"""verify: the independent audit finds corrupted labels, moves and terminal outcomes."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

import tablebase
from tablebase import games


def key(position: str) -> str:
    """The stored (canonical) key of a tic-tac-toe position."""
    game = games.get("tictactoe")
    return game.format_position(game.canonical(game.parse_position(position))[0])


def corrupt(path: Path, sql: str, *params: str) -> None:
    conn = sqlite3.connect(path)
    conn.execute(sql, params)
    conn.commit()
    conn.close()


def verify(path: Path, name: str = "tictactoe") -> tablebase.VerifyReport:
    with tablebase.open(path) as tb:
        return tb.verify(name)


def test_every_built_variant_passes(tb: tablebase.Tablebase) -> None:
    for info in tb.variants():
        report = tb.verify(info.name)
        assert report.ok, report.errors
        assert report.states == info.states and report.moves == info.moves


#: The tic-tac-toe row of ``key`` (in ``states``) and of its moves.
ROW = "key = ? AND variant_id = (SELECT id FROM variants WHERE name = 'tictactoe')"


@pytest.mark.parametrize(
    ("sql", "position", "found"),
    [
        (f"UPDATE states SET outcome = 'win' WHERE {ROW}", "x.o/.x./...", "stored win/6, children say draw/6"),
        (f"UPDATE states SET distance = 3 WHERE {ROW}", "xx./oo./...", "stored win/3, children say win/1"),
        (
            f"DELETE FROM moves WHERE move = 'a3' AND from_state = (SELECT id FROM states WHERE {ROW})",
            "xx./oo./...",
            "stored moves differ from the rules (missing ['a3'], extra [])",
        ),
        (f"UPDATE states SET outcome = 'draw' WHERE {ROW}", "xxx/oo./...", "terminal draw/0, rules say loss/0"),
    ],
    ids=["flipped label", "wrong distance", "dropped move", "wrong terminal outcome"],
)
def test_corruption_is_found(db_copy: Path, sql: str, position: str, found: str) -> None:
    corrupt(db_copy, sql, key(position))
    report = verify(db_copy)
    assert not report.ok
    assert f"{key(position)}: {found}" in report.errors


def test_states_only_corruptions_are_found_by_both_paths(tmp_path: Path) -> None:
    from tablebase.verify import verify_children

    path = tmp_path / "states.db"
    with tablebase.open(path) as tb:
        tb.build("tictactoe", storage="states")
    corrupt(path, "UPDATE states SET distance = 3 WHERE key = ?", key("xx./oo./..."))
    corrupt(path, "UPDATE states SET outcome = 'draw' WHERE key = ?", key("xxx/o.o/..."))
    corrupt(path, "UPDATE states SET to_move = 'x' WHERE key = ?", key("x../.../..."))
    corrupt(path, "DELETE FROM states WHERE key = ?", key("xo./x../..."))
    expected = {
        f"{key('xx./oo./...')}: stored win/3, children say win/1",
        f"{key('xxx/o.o/...')}: terminal draw/0, rules say loss/0",
        # a parent whose win in one was that line: its fastest win is now b2, threatening c1, b3 and c3: 3 plies
        f"{key('xx./o.o/...')}: stored win/1, children say win/3",
        f"{key('x../.../...')}: stored side to move 'x', rules say 'o'",
    }
    with tablebase.open(path) as tb:
        table = tb.variant("tictactoe")
        reports = [verify_children(table, vector=True), verify_children(table, vector=False)]
    for report in reports:
        assert not report.ok
        assert expected <= set(report.errors)
        # the deleted state is a child of every position one mark earlier that leads to it
        assert f"{key('xo./.../...')}: a position after one of its moves is not stored" in report.errors
        assert report.states == 764
    assert set(reports[0].errors) == set(reports[1].errors)
    assert reports[0].moves > 2000
