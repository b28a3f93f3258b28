"""The typer CLI: every command, JSON contracts, one-line errors with exit code 1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.main import app

runner = CliRunner()


def run(*args: str, db: Path | None = None):
    argv = list(args) + (["--db", str(db)] if db is not None else [])
    return runner.invoke(app, argv)


def ok_json(*args: str, db: Path):
    result = run(*args, "--json", db=db)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_every_command_has_help() -> None:
    import typer.main

    command = typer.main.get_command(app)
    names = []
    for name, sub in command.commands.items():
        names.append(name)
        assert sub.help, f"command {name!r} has no help text"
        for subname, subsub in getattr(sub, "commands", {}).items():
            assert subsub.help, f"command {name} {subname!r} has no help text"
    assert {"build", "list", "probe", "best", "line", "predecessors", "stats", "verify", "db"} <= set(names)


def test_probe_json_contract(built_db: Path) -> None:
    data = ok_json("probe", "tictactoe", "x.o/.x./...", db=built_db)
    assert set(data) == {"variant", "position", "to_move", "outcome", "distance", "moves"}
    assert (data["variant"], data["position"], data["to_move"]) == ("tictactoe", "x.o/.x./...", "o")
    assert (data["outcome"], data["distance"]) == ("draw", 6)
    assert data["moves"][0] == {"move": "c3", "position": "x.o/.x./..o", "outcome": "draw", "distance": 6}
    assert all(set(m) == {"move", "position", "outcome", "distance"} for m in data["moves"])


def test_best_line_predecessors_stats_list_json(built_db: Path) -> None:
    best = ok_json("best", "tictactoe", "xx./oo./...", db=built_db)
    assert best["best"] == {"move": "c1", "position": "xxx/oo./...", "outcome": "win", "distance": 1}
    assert best["outcome"] == "win"
    line = ok_json("line", "tictactoe", db=built_db)
    assert list(line) == ["variant", "position", "outcome", "moves", "positions", "repeats"]
    assert len(line["moves"]) == len(line["positions"]) == 9 and line["positions"][-1].count(".") == 0
    assert line["repeats"] is False
    preds = ok_json("predecessors", "tictactoe", "x.o/.x./...", db=built_db)
    assert preds == {
        "variant": "tictactoe",
        "position": "x.o/.x./...",
        "predecessors": [{"position": "..o/.x./...", "move": "a1"}, {"position": "x.o/.../...", "move": "b2"}],
    }
    stats = ok_json("stats", "tictactoe", db=built_db)
    assert (stats["positions"], stats["classes"]) == (5478, 765)
    assert stats["plies"][1] == {"ply": 1, "positions": 9, "classes": 3, "outcomes": {"win": 0, "draw": 9, "loss": 0}}
    assert set(stats["outcomes"]) == {"win", "loss", "draw"} and stats["terminal"] == 138
    listing = ok_json("list", db=built_db)
    assert {
        "variant": "tictactoe", "states": 765, "moves": 2270, "storage": "moves", "symmetry": True, "complete": True,
        "outcome": "draw", "distance": 9,
    } in listing


def test_human_output(built_db: Path) -> None:
    result = run("probe", "tictactoe", "x.o/.x./...", db=built_db)
    assert result.exit_code == 0
    assert "o to move, draw in 6" in result.stdout
    assert "c3    draw     6" in result.stdout
    assert "| `tictactoe` |" in run("list", "--markdown", db=built_db).stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (("probe", "tictactoe", "xx/.."), "invalid position 'xx/..'"),
        (("probe", "tictactoe", "xxx/ooo/..."), "both sides"),
        (("probe", "chess"), "unknown variant 'chess'"),
        (("probe", "mnk-4-4-4"), "tablebase build mnk-4-4-4"),
        (("probe", "mnk-9-9-9"), "unsupported board 9x9"),
        (("line", "tictactoe", "x.o/.x./..x"), "3 x and 1 o"),
        (("predecessors", "tictactoe", "xxo'; DROP TABLE states; --"), "invalid position"),
    ],
)
def test_errors_are_one_line_with_exit_code_1(built_db: Path, args: tuple[str, ...], message: str) -> None:
    result = run(*args, db=built_db)
    assert result.exit_code == 1
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and lines[0].startswith("error: ")


def test_missing_database_is_an_error(tmp_path: Path) -> None:
    result = run("probe", "tictactoe", db=tmp_path / "nothing.db")
    assert result.exit_code == 1
    assert "does not exist" in result.stderr
    assert not (tmp_path / "nothing.db").exists()


def test_build_verify_and_env_var(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "env.db"
    monkeypatch.setenv("TABLEBASE_DB", str(path))
    result = runner.invoke(app, ["build", "mnk-2-2-2", "mnk-3-2-2", "--quiet"])
    assert result.exit_code == 0, result.output
    assert "mnk-2-2-2: 6 states, 11 moves, start is a win in 3" in result.stdout
    verify = runner.invoke(app, ["verify"])
    assert verify.exit_code == 0
    assert "mnk-2-2-2: 6 states, 11 moves: ok" in verify.stdout
    assert runner.invoke(app, ["build"]).exit_code == 1


def test_no_symmetry_build(tmp_path: Path) -> None:
    path = tmp_path / "full.db"
    assert run("build", "mnk-2-2-2", "--no-symmetry", "-q", db=path).exit_code == 0
    data = ok_json("stats", "mnk-2-2-2", db=path)
    # seed 003: 29 positions on the 2x2 board, 6 up to symmetry
    assert (data["positions"], data["classes"]) == (29, 6)
    assert ok_json("list", db=path)[0]["states"] == 29


def test_db_upgrade(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    result = run("db", "upgrade", db=path)
    assert result.exit_code == 0 and "upgraded from empty" in result.stdout
    again = run("db", "upgrade", db=path)
    assert again.exit_code == 0 and "up to date" in again.stdout
    assert ok_json("list", db=path) == []


def test_play_against_perfect_play(built_db: Path) -> None:
    # every o move loses on the 2x2 board; an off-board cell is refused, undo returns to the start
    moves = "?\nc2\nundo\nb2\nquit\n"
    result = runner.invoke(app, ["play", "mnk-2-2-2", "--as", "o", "--db", str(built_db)], input=moves)
    assert result.exit_code == 0, result.output
    assert "perfect play: a1 (win in 3)" in result.stdout
    assert "game over: x wins (perfect play)" in result.stdout


def test_play_as_first_and_an_unknown_side(built_db: Path) -> None:
    result = runner.invoke(
        app, ["play", "tictactoe", "--as", "first", "--db", str(built_db)], input="b2\na1\nc1\nquit\n"
    )
    assert result.exit_code == 0, result.output
    assert "perfect play:" in result.stdout
    assert runner.invoke(app, ["play", "tictactoe", "--as", "z", "--db", str(built_db)]).exit_code == 1


@pytest.mark.slow
def test_play_a_variant_not_built_searches_each_position_and_stores_it(tmp_path: Path) -> None:
    pytest.importorskip("numba")
    import re

    db = tmp_path / "t.db"
    assert runner.invoke(app, ["build", "tictactoe", "--db", str(db)]).exit_code == 0
    start = "...../...../.x.o./.xoox"  # connect4-5-4, not built: x to move
    result = runner.invoke(app, ["play", "connect4-5-4", start, "--as", "o", "--db", str(db)], input="1\nquit\n")
    assert result.exit_code == 0, result.output
    # perfect play answers twice (the start, then after o's 1), each move keeping the value of its position
    values = re.findall(r": x to move, (.+)\n", result.stdout)
    answers = re.findall(r"perfect play: \d \((.+)\)", result.stdout)
    assert len(answers) == 2 and answers == values[:2], result.stdout
    assert "searching..." in result.stdout
    # what was proved is in the file: the start is probed without a search
    probe = runner.invoke(app, ["probe", "connect4-5-4", start, "--db", str(db)])
    assert probe.exit_code == 0 and answers[0] in probe.stdout


def test_build_progress_logs_long_phases_when_not_a_terminal() -> None:
    import io
    import time

    from cli.progress import BuildProgress

    stream = io.StringIO()
    progress = BuildProgress("mnk-5-4-4", stream)
    progress.LOG_EVERY = 0.01
    progress("write", 0, 100)
    time.sleep(0.03)
    progress("write", 50, 100)
    time.sleep(0.03)
    progress("write", 100, 100)
    progress.close()
    lines = stream.getvalue().splitlines()
    assert "\r" not in stream.getvalue()
    assert any("50/100" in line and "eta" in line for line in lines[:-1])
    assert lines[-1].startswith("mnk-5-4-4: write") and "done in" in lines[-1]
