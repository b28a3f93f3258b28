"""stats: per-ply positions won, drawn and lost for the side to move, in every storage."""

from __future__ import annotations

import json
import sqlite3
from functools import lru_cache
from pathlib import Path

import pytest
from typer.testing import CliRunner

import tablebase
from cli.main import app

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def _won(board: str, mark: str) -> bool:
    return any(all(board[i] == mark for i in line) for line in LINES)


@lru_cache(maxsize=None)
def _value(board: str) -> int:
    """+1 won, 0 drawn, -1 lost for the side to move, by plain minimax over the 3x3 board."""
    mover = "x" if board.count("x") == board.count("o") else "o"
    other = "o" if mover == "x" else "x"
    if _won(board, other):
        return -1
    empty = [i for i, c in enumerate(board) if c == "."]
    if not empty:
        return 0
    return max(-_value(board[:i] + mover + board[i + 1 :]) for i in empty)


def _tictactoe_table() -> dict[int, dict[str, int]]:
    """Every reachable tic-tac-toe position (no reduction), counted per ply by its value."""
    table: dict[int, dict[str, int]] = {}
    layer = {"." * 9}
    for ply in range(10):
        counts = {"win": 0, "draw": 0, "loss": 0}
        following: set[str] = set()
        for board in layer:
            counts[{1: "win", 0: "draw", -1: "loss"}[_value(board)]] += 1
            mover = "x" if ply % 2 == 0 else "o"
            if not _won(board, "o" if mover == "x" else "x"):
                following |= {board[:i] + mover + board[i + 1 :] for i, c in enumerate(board) if c == "."}
        table[ply] = counts
        layer = following
    return table


EXPECTED = _tictactoe_table()


def test_the_independent_count_has_the_known_totals() -> None:
    assert sum(sum(c.values()) for c in EXPECTED.values()) == 5478
    # the 16 drawn full boards and the 62 full boards X has won
    assert EXPECTED[9] == {"win": 0, "draw": 16, "loss": 62}
    assert EXPECTED[0] == {"win": 0, "draw": 1, "loss": 0}


@pytest.mark.parametrize(
    ("storage", "symmetry"),
    [("moves", True), ("moves", False), ("states", True), ("packed", True), ("packed", False)],
)
def test_per_ply_outcomes_count_every_position(tmp_path: Path, storage: str, symmetry: bool) -> None:
    with tablebase.open(tmp_path / "t.db") as tb:
        tb.build("tictactoe", storage=storage, symmetry=symmetry)
        stats = tb.variant("tictactoe").stats()
    assert {p.ply: p.outcomes for p in stats.plies} == EXPECTED
    assert [p.positions for p in stats.plies] == [sum(EXPECTED[p].values()) for p in range(10)]


def test_the_out_of_core_build_counts_outcomes_in_its_workers(tmp_path: Path) -> None:
    with tablebase.open(tmp_path / "t.db") as tb:
        tb.build("tictactoe", storage="packed", build_dir=tmp_path / "build", workers=2)
        stats = tb.variant("tictactoe").stats()
    assert {p.ply: p.outcomes for p in stats.plies} == EXPECTED
    manifest = json.loads((tmp_path / "build" / "manifest.json").read_text())
    assert all(layer["outcomes"] is not None for layer in manifest["layers"])


def test_json_and_text_carry_the_outcomes(tmp_path: Path) -> None:
    db = str(tmp_path / "t.db")
    runner = CliRunner()
    assert runner.invoke(app, ["build", "tictactoe", "-q", "--db", db]).exit_code == 0
    data = json.loads(runner.invoke(app, ["stats", "tictactoe", "--json", "--db", db]).stdout)
    assert data["plies"][3] == {"ply": 3, "positions": 252, "classes": 38, "outcomes": EXPECTED[3]}
    text = runner.invoke(app, ["stats", "tictactoe", "--db", db]).stdout
    header, _, *rows = text.splitlines()
    assert header.split() == ["ply", "positions", "classes", "win", "draw", "loss"]
    total = next(r for r in rows if r.startswith("total")).split()
    wins = sum(c["win"] for c in EXPECTED.values())
    draws = sum(c["draw"] for c in EXPECTED.values())
    losses = sum(c["loss"] for c in EXPECTED.values())
    assert total == ["total", "5478", "765", str(wins), str(draws), str(losses)]


def test_counting_from_the_rules_has_no_outcomes() -> None:
    data = tablebase.count("tictactoe").to_dict()
    assert all("outcomes" not in p for p in data["plies"])
    result = CliRunner().invoke(app, ["stats", "tictactoe", "--count"])
    assert result.exit_code == 0 and result.stdout.splitlines()[0].split() == ["ply", "positions", "classes"]


def test_a_packed_file_from_before_the_counts_says_nothing_per_ply(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    with tablebase.open(db) as tb:
        tb.build("tictactoe", storage="packed")
    conn = sqlite3.connect(db)
    with conn:
        conn.execute("UPDATE plies SET win_positions = NULL, loss_positions = NULL, draw_positions = NULL")
    conn.close()
    with tablebase.open(db) as tb:
        stats = tb.variant("tictactoe").stats()
    assert all(p.outcomes is None for p in stats.plies) and stats.positions == 5478
    text = CliRunner().invoke(app, ["stats", "tictactoe", "--db", str(db)]).stdout
    assert text.splitlines()[0].split() == ["ply", "positions", "classes"]
