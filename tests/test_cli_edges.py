"""What a new user meets at the command line: hints, refusals, help, the play loop, stored keys."""

from __future__ import annotations

import io
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import tablebase
from cli.main import app
from cli.progress import BuildProgress

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()


def run(*args: str, db: Path | None = None, input: str | None = None):  # noqa: A002
    argv = list(args) + (["--db", str(db)] if db is not None else [])
    return runner.invoke(app, argv, input=input)


def one_line_error(result, *needles: str) -> str:
    assert result.exit_code == 1, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert "Traceback" not in result.output and "sqlalche.me" not in result.output
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def test_probe_of_a_variant_too_large_to_build_says_solve(built_db: Path) -> None:
    line = one_line_error(run("probe", "ultimate", db=built_db), "run: tablebase solve ultimate POSITION")
    assert "build" not in line.split("run:")[1]
    # the library says the same
    with tablebase.open(built_db) as tb, pytest.raises(tablebase.VariantNotBuiltError, match="tablebase solve"):
        tb.variant("ultimate-classic")


def test_stats_count_refuses_variants_that_cannot_be_counted() -> None:
    one_line_error(run("stats", "ultimate-classic", "--count"), "'ultimate-classic'", "too large to count")
    with pytest.raises(tablebase.TablebaseError, match="too large to count"):
        tablebase.count("ultimate")


@pytest.mark.parametrize("command", [["db", "upgrade"], ["build", "tictactoe"], ["solve", "ultimate"]])
def test_a_file_that_is_not_sqlite_is_refused_before_any_work(tmp_path: Path, command: list[str]) -> None:
    bad = tmp_path / "notes.db"
    bad.write_text("my notes, not a database\n")
    result = run(*command, db=bad)
    one_line_error(result, "notes.db", "not a SQLite database file")
    assert "enumerate" not in result.output and "label" not in result.output  # nothing was solved
    assert bad.read_text() == "my notes, not a database\n"


def test_a_sqlite_file_of_another_program_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE notes (text)")
    one_line_error(run("build", "tictactoe", "-q", db=other), "not a tablebase")
    with sqlite3.connect(other) as conn:
        assert [r[0] for r in conn.execute("SELECT name FROM sqlite_master")] == ["notes"]


@pytest.mark.parametrize("command", [["build", "tictactoe", "-q"], ["db", "upgrade"], ["probe", "tictactoe"]])
def test_a_folder_as_database_is_named_as_such(tmp_path: Path, command: list[str]) -> None:
    one_line_error(run(*command, db=tmp_path), "is a folder")


def test_solve_refuses_a_time_limit_that_is_not_positive(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    for limit in ("-1", "0"):
        one_line_error(run("solve", "ultimate", "--time-limit", limit, db=db), "time limit must be a positive")
    assert not db.exists()


def test_explicit_empty_position_is_malformed(built_db: Path) -> None:
    one_line_error(run("probe", "tictactoe", "", db=built_db), "empty position")
    # the fast path of the console script too
    out = subprocess.run(
        [sys.executable, "-m", "cli.fast", "probe", "tictactoe", "", "--db", str(built_db)],
        cwd=ROOT, capture_output=True, text=True,
    )
    assert out.returncode == 1 and "empty position" in out.stderr
    with tablebase.open(built_db) as tb, pytest.raises(tablebase.MalformedPositionError):
        tb.variant("tictactoe").probe("")


def test_long_input_is_quoted_only_in_part(built_db: Path) -> None:
    huge = "x" * 5000
    line = one_line_error(run("probe", "tictactoe", huge, db=built_db), "5,000 characters")
    assert len(line) < 400
    line = one_line_error(run("play", "tictactoe", "--as", "y" * 500, db=built_db), "500 characters")
    assert len(line) < 400
    line = one_line_error(run("probe", "z" * 3000, db=built_db), "3,000 characters")
    assert len(line) < 600


def test_version() -> None:
    result = run("--version")
    assert result.exit_code == 0 and result.output.strip() == f"tablebase {tablebase.__version__}"


def test_help_shows_flags_without_a_type() -> None:
    result = run("probe", "--help")
    assert result.exit_code == 0
    assert "<bool>" not in result.output
    flags = [line.split()[0] for line in result.output.splitlines() if line.strip().startswith("--")]
    assert {"--json", "--db", "--help"} <= set(flags)
    assert run().exit_code == 0 and "Commands" in run().output


def test_play_ends_quietly_at_end_of_input(built_db: Path) -> None:
    result = run("play", "tictactoe", db=built_db, input="")
    assert result.exit_code == 0, result.output
    assert "error" not in result.output and "Aborted" not in result.output


def test_play_accepts_either_case_prompts_again_and_cannot_undo_at_the_start(built_db: Path) -> None:
    result = run("play", "tictactoe", db=built_db, input="undo\n\nB2\nquit\n")
    assert result.exit_code == 0, result.output
    assert "nothing to undo" in result.output
    assert "illegal" not in result.output and "invalid" not in result.output
    assert ".../.x./...: o to move" in result.output  # B2 was played


def test_play_side_must_be_one_of_the_variants_players(tmp_path: Path) -> None:
    db = tmp_path / "wild.db"
    assert run("build", "wild", "-q", db=db).exit_code == 0
    one_line_error(run("play", "wild", "--as", "x", db=db), "invalid side 'x'", "first", "second")
    result = run("play", "wild", "--as", "second", db=db, input="quit\n")
    assert result.exit_code == 0 and "you play second" in result.output


def test_build_phases_add_up_to_the_total(tmp_path: Path) -> None:
    result = run("build", "tictactoe", "mnk-3-3-2", db=tmp_path / "t.db")
    assert result.exit_code == 0, result.output
    for name in ("tictactoe", "mnk-3-3-2"):
        final = next(line for line in result.output.splitlines() if line.startswith(f"{name}: ") and "states" in line)
        total = float(final.split("(")[1].split(" s")[0])
        parts = final.split(": ", 2)[2].rstrip(")").split(" + ")
        seconds = [float(p.split()[-1]) for p in parts]
        assert [p.split()[0] for p in parts] == ["enumerate", "label", "write", "other"]
        assert abs(sum(seconds) - total) <= 0.011 * len(seconds)
        # each phase's own line says the same time as the total line
        for phase, value in zip(("enumerate", "label", "write"), seconds):
            line = next(line for line in result.output.splitlines() if line.startswith(f"{name}: {phase}"))
            assert f"done in {value:.2f} s" in line


def test_layered_build_phases_are_summed_by_kind(tmp_path: Path) -> None:
    result = run("build", "mnk-4-3-3", "--storage", "packed", db=tmp_path / "p.db")
    assert result.exit_code == 0, result.output
    final = next(line for line in result.output.splitlines() if line.startswith("mnk-4-3-3: ") and "states" in line)
    total = float(final.rsplit(" (", 1)[1].split(" s")[0])
    parts = final.rsplit(" s: ", 1)[1].rstrip(")").split(" + ")
    assert [p.split()[0] for p in parts] == ["enumerate", "merge", "label", "pack", "analyze", "other"]
    seconds = [float(p.split()[-1]) for p in parts]
    assert abs(sum(seconds) - total) <= 0.011 * len(parts)
    # each layer's steps are timed from their start (a one-chunk layer used to count as 0.00)
    assert seconds[0] > 0 and seconds[2] > 0


def test_progress_phase_ends_with_its_last_item() -> None:
    stream = io.StringIO()
    progress = BuildProgress("toy", stream)
    progress("label", 5, 10)
    progress("label", 10, 10)
    first = progress.seconds["label"]
    progress("label", 10, 10)  # repeated last report: no new phase
    progress("write", 1, 1)
    assert progress.seconds["label"] == first and set(progress.seconds) == {"label", "write"}
    assert stream.getvalue().count("done in") == 2


def test_where_a_build_runs_is_said_once_and_is_not_a_phase() -> None:
    stream = io.StringIO()
    progress = BuildProgress("toy", stream)
    progress("on dask scheduler tcp://127.0.0.1:8786 (2 workers connected)", 0, None)
    progress("reach", 10, 10)
    progress("label", 10, 10)
    lines = stream.getvalue().splitlines()
    assert lines[0] == "toy: on dask scheduler tcp://127.0.0.1:8786 (2 workers connected)"
    assert [line.split()[1] for line in lines[1:]] == ["reach", "label"]
    assert set(progress.seconds) == {"reach", "label"}
    assert [part.split()[0] for part in progress.summary(1.0).split(" + ")] == ["reach", "label", "other"]


def test_key_prints_the_stored_key_and_the_moves_in_its_orientation(built_db: Path) -> None:
    # xx./oo./... is stored as its mirror image in the main diagonal, xo./xo./... (a known tic-tac-toe symmetry)
    result = run("key", "tictactoe", "xx./oo./...", "--json", db=built_db)
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert (data["position"], data["key"], data["symmetries"]) == ("xx./oo./...", "xo./xo./...", 8)
    assert data["symmetry"] != 0
    stored = {m["move"]: m["stored"] for m in data["moves"]}
    # c1 completes x's top row here; in the key x's column is a, so the same move is a3
    assert stored["c1"] == "a3" and stored["c3"] == "c3" and len(stored) == 5
    with sqlite3.connect(built_db) as conn:
        row = conn.execute(
            "SELECT move, outcome, distance FROM best_moves WHERE variant = 'tictactoe' AND position = ?", (data["key"],)
        ).fetchone()
    assert row == (stored["c1"], "win", 1)
    text = run("key", "tictactoe", ".../.../...", db=built_db).output
    assert "stored as  .../.../..." in text and "identity" in text


def test_probe_shows_the_stored_key(built_db: Path) -> None:
    result = run("probe", "tictactoe", "xx./oo./...", db=built_db)
    assert result.exit_code == 0
    assert "stored as xo./xo./..." in result.output
    assert "stored as" not in run("probe", "tictactoe", "xo./xo./...", db=built_db).output
    with tablebase.open(built_db) as tb:
        assert tb.variant("tictactoe").key("xx./oo./...").key == "xo./xo./..."
        assert tb.variant("mnk-3-3-3").key("xx./oo./...").key == "xx./oo./..."  # built without symmetry


def test_a_perpetual_draw_reads_so_and_keeps_a_null_distance_in_json(tmp_path: Path) -> None:
    # Rota's start is a draw by perpetual play (its positions repeat): there is no distance to an end
    db = tmp_path / "rota.db"
    built = run("build", "rota", db=db)
    assert built.exit_code == 0, built.output
    assert "start is a perpetual draw (" in built.output
    probe = run("probe", "rota", db=db).output
    assert "......../.: x to move, perpetual draw" in probe and "in -" not in probe
    assert run("best", "rota", db=db).output.startswith("0  perpetual draw  -> x......./.")
    played = run("play", "rota", "--as", "second", input="quit\n", db=db).output
    assert "perfect play: 0 (perpetual draw)\n" in played and "((" not in played and "))" not in played
    data = json.loads(run("probe", "rota", "--json", db=db).output)
    assert (data["outcome"], data["distance"]) == ("draw", None)
    assert {(m["outcome"], m["distance"]) for m in data["moves"]} == {("draw", None)}
    # a draw with a distance keeps it
    with tablebase.open(db) as tb:
        tb.build("tictactoe")
    assert ".../.../...: x to move, draw in 9" in run("probe", "tictactoe", db=db).output


def test_symmetry_is_no_for_a_game_with_only_the_identity(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient
    from serve_support import registered

    from tablebase.serve import create_app

    db = tmp_path / "t.db"
    with registered():
        with tablebase.open(db) as tb:
            tb.build("toy-wheel")  # a wheel of four spots and a centre, drawn with no symmetry of its own
            tb.build("tictactoe")
            assert tb.get_variant("toy-wheel") is not None and tb.variant("toy-wheel").game.num_symmetries == 1
        listed = {v["variant"]: v["symmetry"] for v in json.loads(run("list", "--json", db=db).output)}
        assert listed == {"toy-wheel": False, "tictactoe": True}
        rows = {line.split()[0]: line.split()[3] for line in run("list", db=db).output.splitlines()[2:]}
        assert rows == {"toy-wheel": "no", "tictactoe": "yes"}
        with TestClient(create_app(db)) as client:
            served = {v["variant"]: v["symmetry"] for v in client.get("/api/variants").json()}
    assert served["toy-wheel"] is False and served["tictactoe"] is True
    # a variant too large to build is offered with the symmetries its game has
    assert served["connect4"] is True


@pytest.mark.parametrize(
    ("storage", "phases"),
    [("moves", ["read", "moves", "rules", "labels"]), ("states", ["read", "children"]), ("packed", ["children"])],
)
def test_verify_prints_a_progress_line_per_phase_for_every_storage(tmp_path: Path, storage: str, phases: list[str]) -> None:
    db = tmp_path / "t.db"
    assert run("build", "tictactoe", "-q", "--storage", storage, db=db).exit_code == 0
    result = run("verify", "tictactoe", db=db)
    assert result.exit_code == 0, result.output
    lines = result.stderr.strip().splitlines()
    assert [line.split()[1] for line in lines] == phases
    # each phase ends on its total: every state (or, for the moves, every stored move) of tic-tac-toe
    assert all(" 765/765 " in line or " 2,270/2,270 " in line for line in lines), lines
    assert run("verify", "tictactoe", "--quiet", db=db).stderr == ""
