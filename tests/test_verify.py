"""verify: the independent audit finds corrupted labels, moves and terminal outcomes."""

from __future__ import annotations

import sqlite3
from pathlib import Path

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


def test_flipped_label_is_found(db_copy: Path) -> None:
    corrupt(
        db_copy,
        "UPDATE states SET outcome = 'win' WHERE key = ? AND variant_id ="
        " (SELECT id FROM variants WHERE name = 'tictactoe')",
        key("x.o/.x./..."),
    )
    report = verify(db_copy)
    assert not report.ok
    assert f"{key('x.o/.x./...')}: stored win/6, children say draw/6" in report.errors


def test_wrong_distance_is_found(db_copy: Path) -> None:
    corrupt(
        db_copy,
        "UPDATE states SET distance = 3 WHERE key = ? AND variant_id ="
        " (SELECT id FROM variants WHERE name = 'tictactoe')",
        key("xx./oo./..."),
    )
    report = verify(db_copy)
    assert f"{key('xx./oo./...')}: stored win/3, children say win/1" in report.errors


def test_dropped_move_is_found(db_copy: Path) -> None:
    corrupt(
        db_copy,
        "DELETE FROM moves WHERE move = 'a3' AND from_state = (SELECT id FROM states WHERE key = ?"
        " AND variant_id = (SELECT id FROM variants WHERE name = 'tictactoe'))",
        key("xx./oo./..."),
    )
    report = verify(db_copy)
    assert f"{key('xx./oo./...')}: stored moves differ from the rules (missing ['a3'], extra [])" in report.errors


def test_wrong_terminal_outcome_is_found(db_copy: Path) -> None:
    corrupt(
        db_copy,
        "UPDATE states SET outcome = 'draw' WHERE key = ? AND variant_id ="
        " (SELECT id FROM variants WHERE name = 'tictactoe')",
        key("xxx/oo./..."),
    )
    report = verify(db_copy)
    assert f"{key('xxx/oo./...')}: terminal draw/0, rules say loss/0" in report.errors
