"""Opening tables (tablebase.opening): the positions computed against their definition, resuming
after an interruption, export, probes and SQL from the shipped file and on the installed rows,
and `verify --search`; on tic-tac-toe (a pure Python search, quick), on 5x4 Connect Four,
and on the 7x6 table the package ships when it is there."""

from __future__ import annotations

import gzip
import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

import pytest
from typer.testing import CliRunner

import tablebase
import tablebase.sql
from cli.main import app
from tablebase import games
from tablebase.errors import BuildError, DatabaseError, VariantNotBuiltError
from tablebase.games.base import Game
from tablebase.opening import COLUMNS, read

runner = CliRunner()

NAME = "tictactoe"
PLIES = 3


def spy_solves(tb: tablebase.Tablebase) -> list[str]:
    """The positions ``tb`` solves from now on, in order (its solve step wrapped)."""
    solved: list[str] = []
    solve = tb._solve

    def recorded(name: str, game: Game, state: int, *args: Any) -> Any:
        solved.append(game.format_position(game.canonical(state)[0]))
        return solve(name, game, state, *args)

    tb._solve = recorded  # type: ignore[method-assign]
    return solved


def definition(table: tablebase.VariantTable, plies: int) -> set[str]:
    """The opening table recomputed plainly from the probes: for each side, the positions with it
    to move reached when it plays every move as good as its best and the other side any move."""
    game = table.game
    found: set[str] = set()

    def visit(state: int, ply: int) -> None:
        found.add(game.format_position(game.canonical(state)[0]))
        if ply + 2 > plies:
            return
        probe = table.probe(game.format_position(state))
        best = probe.moves[0]
        for move in probe.moves:
            if (move.outcome, move.distance) != (best.outcome, best.distance):
                continue
            child = game.parse_position(move.position)
            for _, reply in game.children(child):
                if game.outcome(reply) is None:
                    visit(reply, ply + 2)

    start = game.initial_state()
    visit(start, 0)
    for _, child in game.children(start):
        if plies >= 1 and game.outcome(child) is None:
            visit(child, 1)
    return found


def canonical(position: str) -> str:
    """The key a tic-tac-toe position is stored under."""
    game = games.get(NAME)
    return game.format_position(game.canonical(game.parse_position(position))[0])


def stored_rows(path: Path) -> tuple[set[tuple[Any, ...]], set[tuple[Any, ...]]]:
    """Every state row (key, outcome, distance) and move (from key, move, to key) of the file."""
    with sqlite3.connect(path) as conn:
        states = set(conn.execute("SELECT key, outcome, distance FROM states"))
        moves = set(
            conn.execute(
                "SELECT a.key, m.move, b.key FROM moves m JOIN states a ON a.id = m.from_state"
                " JOIN states b ON b.id = m.to_state"
            )
        )
    return states, moves


def with_moves(path: Path) -> set[str]:
    """The keys of the positions the file holds with their moves."""
    with sqlite3.connect(path) as conn:
        return {k for (k,) in conn.execute("SELECT key FROM states WHERE id IN (SELECT from_state FROM moves)")}


@pytest.fixture(scope="module")
def computed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, tablebase.OpeningReport, list[str]]:
    """tic-tac-toe's opening table to 3 plies in a fresh file, the report, and the positions solved (treat as read-only)."""
    path = tmp_path_factory.mktemp("opening") / "ttt.db"
    with tablebase.open(path) as tb:
        solved = spy_solves(tb)
        report = tb.opening(NAME, PLIES)
    return path, report, solved


@pytest.fixture
def shipped(monkeypatch: pytest.MonkeyPatch) -> Callable[[str, Path], None]:
    """Make the game of a variant ship the given file as its opening table."""

    def ship(name: str, path: Path) -> None:
        cls = type(games.get(name))
        before = cls.shipped_opening
        monkeypatch.setattr(cls, "shipped_opening", lambda self: path if self.name == name else before(self))

    return ship


def empty_file(path: Path) -> Path:
    """A tablebase file with the schema and no variant."""
    with tablebase.open(path) as tb:
        tb.upgrade()
    return path


def test_the_table_is_every_position_reached_against_perfect_play(computed: Any) -> None:
    path, report, solved = computed
    with tablebase.open(path) as tb:
        table = tb.variant(NAME)
        expected = definition(table, PLIES)
        # o answers a corner or the centre on a corner or the centre; on an edge it loses
        assert canonical("xo./.x./...") not in expected and canonical("x../.o./..x") in expected
        for key in expected:
            probe = table.probe(key, search=False)
            assert len(probe.moves) == table.game.move_count(table.parse(key)), key
    assert report.positions == len(expected) == 36
    assert len(set(solved)) == len(solved) == report.solved
    assert set(solved) <= expected
    assert report.solved + report.stored == report.positions
    assert (report.variant, report.plies, report.every) == (NAME, PLIES, False)


def test_every_position_mode_takes_both_sides_every_move(computed: Any, tmp_path: Path) -> None:
    path = tmp_path / "every.db"
    shutil.copy(computed[0], path)
    with tablebase.open(path) as tb:
        solved = spy_solves(tb)
        report = tb.opening(NAME, PLIES, every=True)
    classes = {p.ply: p.classes for p in tablebase.count(NAME).plies}
    assert report.positions == sum(classes[ply] for ply in range(PLIES + 1)) == 54
    assert report.solved == len(solved) and not set(solved) & set(computed[2])


def test_an_interrupted_run_goes_on_where_it_stopped(computed: Any, tmp_path: Path) -> None:
    path = tmp_path / "resumed.db"

    def stop(phase: str, done: int, total: int | None) -> None:
        if done == 12:
            raise KeyboardInterrupt

    with tablebase.open(path) as tb:
        first = spy_solves(tb)
        with pytest.raises(KeyboardInterrupt):
            tb.opening(NAME, PLIES, progress=stop)
    assert 0 < len(first) <= 12
    with tablebase.open(path) as tb:
        then = spy_solves(tb)
        report = tb.opening(NAME, PLIES)
    assert not set(first) & set(then)
    assert report.positions == computed[1].positions and report.solved == len(then)
    assert sorted(first + then) == sorted(computed[2])
    assert stored_rows(path) == stored_rows(computed[0])
    with tablebase.open(path) as tb:
        again = tb.opening(NAME, PLIES)
    assert (again.solved, again.stored, again.nodes) == (0, report.positions, 0)


def test_bad_plies_and_unknown_variants_are_refused(tmp_path: Path) -> None:
    with tablebase.open(tmp_path / "x.db") as tb:
        with pytest.raises(BuildError, match="plies must be 0 or more, got -1"):
            tb.opening(NAME, -1)
        with pytest.raises(tablebase.UnknownVariantError, match="'nope'"):
            tb.opening("nope", 2)
    assert not (tmp_path / "x.db").exists()
    for args, message in [
        (["--plies", "-1"], "error: plies must be 0 or more, got -1"),
        ([], "error: give --plies N to solve the table, --export FILE or --install"),
        (["--install"], "error: variant 'tictactoe' ships no opening table"),
    ]:
        result = runner.invoke(app, ["opening", NAME, *args, "--db", str(tmp_path / "y.db")])
        assert (result.exit_code, result.stderr.strip()) == (1, message)


def test_export_install_probe_sql_and_cli(computed: Any, tmp_path: Path, shipped: Any) -> None:
    path, report, _ = computed
    exported = tmp_path / "ttt.tsv.gz"
    with tablebase.open(path) as tb:
        count = tb.export_opening(NAME, exported)
    lines = gzip.decompress(exported.read_bytes()).decode().splitlines()
    header = json.loads(lines[0][1:])
    assert (header["variant"], header["positions"], header["rows"], lines[1]) == (NAME, count, len(lines) - 2, COLUMNS)
    assert count == len(with_moves(path)) >= report.positions
    rows = [line.split("\t") for line in lines[2:]]
    assert {r[0] for r in rows if r[3] == "1"} == with_moves(path)
    assert rows == sorted(rows)
    shipped(NAME, exported)

    fresh = empty_file(tmp_path / "fresh.db")
    untouched = fresh.read_bytes()
    with tablebase.open(fresh) as tb:
        table = tb.variant(NAME)  # the file holds nothing of it: every probe reads the shipped table
        installed = {r[0]: table.probe(r[0]) for r in rows if r[3] == "1"}
        assert with_moves(fresh) == set()
        children = {r[0]: table.probe(r[0]) for r in rows if r[3] == "0"}
        assert all(not probe.moves for probe in children.values() if not probe.terminal)
    assert fresh.read_bytes() == untouched
    with tablebase.open(path) as tb:
        source = tb.variant(NAME)
        assert all(probe == source.probe(key) for key, probe in installed.items())
        assert all((probe.outcome, probe.distance) == source.value(key) for key, probe in children.items())
    conn = tablebase.sql.connect(fresh)
    try:
        for key, probe in installed.items():
            (found,) = conn.execute("SELECT tb_probe(?, ?)", (NAME, key)).fetchone()
            assert json.loads(found) == probe.to_dict()
    finally:
        conn.close()
    key = canonical("x../.o./..x")
    answer = runner.invoke(app, ["probe", NAME, key, "--json", "--db", str(fresh)])
    assert json.loads(answer.stdout) == installed[key].to_dict()
    assert fresh.read_bytes() == untouched and stored_rows(fresh) == (set(), set())
    with tablebase.open(fresh) as tb:
        assert tb.install_opening(NAME) == len(rows)
        assert tb.install_opening(NAME) == 0
        assert all(tb.variant(NAME).probe(key) == probe for key, probe in installed.items())
    assert stored_rows(fresh) == stored_rows(path)

    by_command = tmp_path / "cli.db"
    result = runner.invoke(app, ["opening", NAME, "--plies", "1", "--install", "--export", str(tmp_path / "b.gz"), "--db", str(by_command)])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        f"{NAME}: {len(rows)} new positions installed from the shipped opening table",
        f"{NAME}: 4 positions to 1 plies (0 solved now, 4 stored already), 0 nodes, " + result.stdout.split(", ")[-1].split("\n")[0],
        f"{NAME}: {count} positions with their moves written to {tmp_path / 'b.gz'}",
    ]
    assert (tmp_path / "b.gz").read_bytes() == exported.read_bytes()


def test_probes_read_the_shipped_table_and_only_install_opening_writes_it(
    computed: Any, tmp_path: Path, shipped: Any
) -> None:
    exported = tmp_path / "ttt.tsv.gz"
    with tablebase.open(computed[0]) as tb:
        tb.export_opening(NAME, exported)
    key = canonical("x../.o./..x")
    expected = tablebase.open(computed[0]).variant(NAME).probe(key)
    with tablebase.open(empty_file(tmp_path / "plain.db")) as tb:
        with pytest.raises(VariantNotBuiltError, match="variant 'tictactoe' is not built in .*; run: tablebase build"):
            tb.variant(NAME)
        assert tb.get_variant(NAME) is None
    shipped(NAME, exported)
    locked = empty_file(tmp_path / "locked.db")
    locked.chmod(0o444)
    with tablebase.open(locked) as tb:
        assert tb.variant(NAME).probe(key) == expected
        with pytest.raises(DatabaseError, match="read-only"):
            tb.install_opening(NAME)
    missing = tmp_path / "missing.db"
    with tablebase.open(missing) as tb:
        with pytest.raises(DatabaseError, match="does not exist"):
            tb.variant(NAME)
    assert not missing.exists()
    built = tmp_path / "built.db"
    with tablebase.open(built) as tb:
        tb.build(NAME)
        assert tb.variant(NAME).info.complete
        with pytest.raises(BuildError, match="fully built here"):
            tb.install_opening(NAME)
    served = empty_file(tmp_path / "served.db")
    untouched = served.read_bytes()
    with tablebase.open(served) as tb:
        table = tb.variant(NAME)
        assert table.probe(key) == expected and table.value(key) == (expected.outcome, expected.distance)
        assert not table.stored_with_moves() and not table.complete
        with pytest.raises(VariantNotBuiltError):
            table.info
    assert served.read_bytes() == untouched
    with tablebase.open(served) as tb:
        assert tb.install_opening(NAME) > 0
        assert tb.variant(NAME).stored_with_moves() and tb.variant(NAME).stored_with_moves(key)
        assert tb.variant(NAME).probe(key) == expected


def test_solve_proves_by_search_and_leaves_the_shipped_table_out(computed: Any, tmp_path: Path, shipped: Any) -> None:
    exported = tmp_path / "ttt.tsv.gz"
    with tablebase.open(computed[0]) as tb:
        tb.export_opening(NAME, exported)
    plain = empty_file(tmp_path / "plain.db")
    with tablebase.open(plain) as tb:
        tb.solve(NAME, "x../.../...")
    shipped(NAME, exported)
    path = empty_file(tmp_path / "solved.db")
    with tablebase.open(path) as tb:
        report = tb.solve(NAME, "x../.../...")
        assert report.nodes > 0
        assert stored_rows(path) == stored_rows(plain)
        # the start is not stored with its moves: a probe reads them from the shipped table
        assert tb.variant(NAME).probe().moves
    assert with_moves(path) == with_moves(plain)


def test_probe_else_prove_answers_from_the_file_else_asks_the_prover(tmp_path: Path) -> None:
    """``probe_else_prove``: the file's probe when it gives every move, else the prover's answer; probes
    of a position stored with its value only search only when asked, and store nothing."""
    from tablebase.query import probe_else_prove

    game = games.get(NAME)
    path = empty_file(tmp_path / "solved.db")
    with tablebase.open(path) as tb:
        tb.solve(NAME, "x../.../...")
    rows = stored_rows(path)
    solved = game.parse_position("x../.../...")
    child = game.apply(solved, game.legal_moves(solved)[0])
    with tablebase.open(path) as tb:
        table = tb.variant(NAME)
        full = probe_else_prove(tb, game, solved, lambda state: pytest.fail("asked to prove"))
        assert full == table.probe("x../.../...") and full.moves
        assert not table.probe(game.format_position(child)).moves
        assert probe_else_prove(tb, game, child) is None
        assert probe_else_prove(tb, game, child, lambda state: game.format_position(state)) == game.format_position(child)
        bare = probe_else_prove(tb, game, child, enough=lambda probe: True)
        assert bare is not None and bare.moves == ()
        proved = probe_else_prove(tb, game, child, search=True)
        assert proved is not None and proved.proves_every_move(game.move_count(child))
    assert stored_rows(path) == rows


def test_a_table_file_is_checked_when_read(computed: Any, tmp_path: Path) -> None:
    exported = tmp_path / "ttt.tsv.gz"
    with tablebase.open(computed[0]) as tb:
        tb.export_opening(NAME, exported)
    lines = gzip.decompress(exported.read_bytes()).decode().splitlines(keepends=True)
    game = games.get(NAME)
    positions, edges = read(game, exported)
    assert len(positions) == len(lines) - 2 and len(edges) == sum(
        game.move_count(game.parse_position(line.split("\t")[0])) for line in lines[2:] if line.endswith("1\n")
    )
    with pytest.raises(DatabaseError, match="is of 'tictactoe', not of 'tictactoe-misere'"):
        read(games.get("tictactoe-misere"), exported)
    broken = tmp_path / "broken.gz"
    child = next(i for i, line in enumerate(lines) if i > 1 and line.endswith("0\n"))
    full = next(i for i, line in enumerate(lines) if i > 1 and line.endswith("1\n"))
    for damaged, message in [
        (lines[:child] + lines[child + 1 :], "lacks the position after"),
        (lines[:-1] if lines[-1].endswith("1\n") else lines[:2], "cut short"),
        ([line if line != lines[full] else "x../...\tdraw\t9\t1\n" for line in lines], "invalid position 'x../...'"),
        (lines[:2] + [lines[2].replace("\t", " ")], "malformed row"),
        (["#{}\n"] + lines[1:], "is not an opening table file"),
    ]:
        broken.write_bytes(gzip.compress("".join(damaged).encode()))
        with pytest.raises(DatabaseError, match=message):
            read(game, broken)
    broken.write_bytes(b"not gzip")
    with pytest.raises(DatabaseError, match="cannot read opening table"):
        read(game, broken)


def test_verify_search_proves_stored_positions_again_and_finds_a_wrong_row(computed: Any, tmp_path: Path) -> None:
    path = tmp_path / "checked.db"
    shutil.copy(computed[0], path)
    expanded = sorted(with_moves(path))
    with tablebase.open(path) as tb:
        report = tb.verify(NAME, search=1000)
    assert report.ok and report.searched == len(expanded)
    assert report.to_dict()["searched"] == len(expanded)
    position = canonical("x../.o./..x")
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE states SET distance = distance + 2 WHERE key = ?", (position,))
        # a child stored without its moves, and a position with moves that leads to it
        child, parent, move = conn.execute(
            "SELECT b.key, a.key, m.move FROM moves m JOIN states a ON a.id = m.from_state"
            " JOIN states b ON b.id = m.to_state WHERE NOT b.terminal AND b.outcome = 'draw'"
            " AND b.id NOT IN (SELECT from_state FROM moves) ORDER BY b.key, a.key LIMIT 1"
        ).fetchone()
        distance = conn.execute("SELECT distance FROM states WHERE key = ?", (child,)).fetchone()[0]
        conn.execute("UPDATE states SET outcome = 'win' WHERE key = ?", (child,))
    with tablebase.open(path) as tb:
        report = tb.verify(NAME, search=1000)
    errors = report.errors
    assert f"{position}: stored draw/8, the search says draw/6" in errors
    assert f"{position}: stored draw/8, children say draw/6" in errors
    assert f"{parent}: move {move} leads to a stored win/{distance}, the search says draw/{distance}" in errors
    result = runner.invoke(app, ["verify", NAME, "--search", "3", "--quiet", "--db", str(path)])
    assert result.exit_code == 1
    assert result.stdout.startswith(f"{NAME}: ") and ", 3 proved again by the search: " in result.stdout


@pytest.mark.slow
def test_connect4_5x4_end_to_end(tmp_path: Path, shipped: Any) -> None:
    """The opening table of 5x4 Connect Four to 3 plies by the compiled search, against its
    definition, exported, probed from the shipped file, installed and checked by the search again."""
    pytest.importorskip("numba")
    name = "connect4-5-4"
    path = tmp_path / "c54.db"
    with tablebase.open(path) as tb:
        report = tb.opening(name, 3)
        expected = definition(tb.variant(name), 3)
        assert report.positions == len(expected) and with_moves(path) == expected
        tb.export_opening(name, tmp_path / "c54.tsv.gz")
    shipped(name, tmp_path / "c54.tsv.gz")
    fresh = empty_file(tmp_path / "fresh.db")
    with tablebase.open(fresh) as tb:
        for key in expected:
            assert tb.variant(name).probe(key) == tablebase.open(path).variant(name).probe(key)
        assert tb.install_opening(name) > 0
        checked = tb.verify(name, search=5)
    assert checked.ok and checked.searched == 5


@pytest.mark.slow
def test_the_shipped_7x6_table(tmp_path: Path) -> None:
    """A random sample of the shipped 7x6 table proved again by the search, every column; the
    empty board's columns are the known values."""
    pytest.importorskip("numba")
    from test_connect4_prover import EMPTY_7X6_COLUMNS

    if games.get("connect4").shipped_opening() is None:
        pytest.skip("the package ships no 7x6 opening table")
    with tablebase.open(empty_file(tmp_path / "c4.db")) as tb:
        start = tb.variant("connect4").probe()
        assert {m.move: (m.outcome, m.distance) for m in start.moves} == EMPTY_7X6_COLUMNS
        assert tb.install_opening("connect4") > 0
        report = tb.verify("connect4", search=5)
    assert report.ok, report.errors
    assert report.searched == 5


def test_the_first_probe_of_the_shipped_table_stays_light(tmp_path: Path) -> None:
    """In a file whose schema is current, the first probe answers the empty board and its seven
    columns from the shipped table without loading SQLAlchemy, alembic, numpy or numba (a new
    process, as a command is), and writes nothing."""
    if games.get("connect4").shipped_opening() is None:
        pytest.skip("the package ships no 7x6 opening table")
    path = empty_file(tmp_path / "c4.db")
    untouched = path.read_bytes()
    code = (
        "import sys, tablebase\n"
        "r = tablebase.open(sys.argv[1]).variant('connect4').probe()\n"
        "heavy = {m.split('.')[0] for m in sys.modules} & {'sqlalchemy', 'alembic', 'numpy', 'numba'}\n"
        "print(r.outcome, r.distance, len(r.moves), sorted(heavy))\n"
    )
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["win", "41", "7", "[]"]
    assert path.read_bytes() == untouched
