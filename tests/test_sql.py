"""The SQL functions (tablebase.sql) on every storage, through sqlite3, SQLAlchemy and datasette,
checked against the library's own probe."""

from __future__ import annotations

import hashlib
import json
import shutil
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tablebase
import tablebase.sql
from tablebase import games
from tablebase.errors import DatabaseError, SchemaVersionError
from tablebase.store import schema
from tablebase.testing import random_states

#: One variant of each storage, all in one file.
STORAGES = {"tictactoe": "moves", "tictactoe-misere": "states", "mnk-4-3-3": "dense", "connect4-4-4": "packed"}


@pytest.fixture(scope="module")
def storages(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A file holding a variant of every storage (treat as read-only)."""
    path = tmp_path_factory.mktemp("sql") / "storages.db"
    with tablebase.open(path) as tb:
        for name, storage in STORAGES.items():
            assert tb.build(name, storage=storage).storage == storage
    return path


@pytest.fixture
def conn(storages: Path) -> Iterator[tablebase.sql.Connection]:
    connection = tablebase.sql.connect(storages)
    yield connection
    connection.close()


def sample_positions(name: str, count: int, seed: int = 7) -> list[str]:
    """``count`` positions of ``name`` from random games (start, middles and ends, every orientation)."""
    game = games.get(name)
    return [game.format_position(state) for state in random_states(game, count, seed)[:count]]


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("name", list(STORAGES), ids=list(STORAGES.values()))
def test_every_function_agrees_with_probe_on_every_storage(
    storages: Path, conn: sqlite3.Connection, name: str
) -> None:
    positions = sample_positions(name, 150)
    conn.execute("CREATE TEMP TABLE asked (position TEXT)")
    conn.executemany("INSERT INTO asked VALUES (?)", [(p,) for p in positions])
    rows = conn.execute(
        "SELECT position, tb_outcome(?1, position), tb_distance(?1, position), tb_best(?1, position),"
        " tb_probe(?1, position), tb_predecessors(?1, position) FROM asked ORDER BY rowid",
        (name,),
    ).fetchall()
    assert [r[0] for r in rows] == positions
    ended = 0
    with tablebase.open(storages) as tb:
        table = tb.variant(name)
        assert table.info.storage == STORAGES[name]
        for position, outcome, distance, best, probe, predecessors in rows:
            expected = table.probe(position)
            assert (outcome, distance) == (expected.outcome, expected.distance), position
            assert best == (None if expected.best_move is None else expected.best_move.move), position
            assert json.loads(probe) == expected.to_dict(), position
            assert json.loads(predecessors) == table.predecessors(position).to_dict(), position
            ended += expected.best_move is None
    assert ended > 3


@pytest.mark.parametrize(
    ("name", "outcome", "distance"),
    [("tictactoe", "draw", 9), ("tictactoe-misere", "draw", 9), ("mnk-4-3-3", "win", 7), ("connect4-4-4", "draw", 16)],
)
def test_the_start_of_each_variant_has_its_known_value(
    conn: sqlite3.Connection, name: str, outcome: str, distance: int
) -> None:
    """The one-argument forms ask about the start; the values are those of the results table of docs/variants.md."""
    assert conn.execute("SELECT tb_outcome(?), tb_distance(?)", (name, name)).fetchone() == (outcome, distance)
    start = json.loads(conn.execute("SELECT tb_probe(?)", (name,)).fetchone()[0])
    assert (start["outcome"], start["distance"]) == (outcome, distance)
    assert start["position"] == games.get(name).format_position(games.get(name).initial_state())


def test_known_answers(conn: sqlite3.Connection) -> None:
    # the README's probe: c1 wins at once, and the other moves are as listed there
    assert conn.execute("SELECT tb_outcome('tictactoe', 'xx./oo./...'), tb_distance('tictactoe', 'xx./oo./...'),"
                        " tb_best('tictactoe', 'xx./oo./...')").fetchone() == ("win", 1, "c1")
    moves = conn.execute(
        "SELECT m.value->>'move', m.value->>'outcome', m.value->>'distance'"
        " FROM json_each(tb_probe('tictactoe', 'xx./oo./...'), '$.moves') AS m"
    ).fetchall()
    assert moves == [("c1", "win", 1), ("c2", "draw", 5), ("a3", "loss", 2), ("b3", "loss", 2), ("c3", "loss", 2)]
    preds = conn.execute(
        "SELECT p.value->>'position', p.value->>'move'"
        " FROM json_each(tb_predecessors('tictactoe', 'x.o/.x./...'), '$.predecessors') AS p"
    ).fetchall()
    assert preds == [("..o/.x./...", "a1"), ("x.o/.../...", "b2")]


def test_connect_four_takes_column_digits_as_text_or_integer(conn: sqlite3.Connection) -> None:
    """``4432`` is ``..../..../...o/.oxx`` on 4x4 (docs/variants.md); an INTEGER column of moves reads the same."""
    same = conn.execute(
        "SELECT tb_probe('connect4-4-4', '4432'), tb_probe('connect4-4-4', 4432),"
        " tb_probe('connect4-4-4', '..../..../...o/.oxx')"
    ).fetchone()
    assert json.loads(same[0]) == json.loads(same[1]) == json.loads(same[2])
    assert json.loads(same[0])["position"] == "..../..../...o/.oxx"
    columns = conn.execute(
        "SELECT m.value->>'move' FROM json_each(tb_probe('connect4-4-4', '44'), '$.moves') AS m ORDER BY 1"
    ).fetchall()
    assert columns == [("1",), ("2",), ("3",), ("4",)]


BAD = [
    # (variant, position, error kind of the JSON functions)
    ("nope", "...", "unknown_variant"),
    ("mnk-9-9-9", "...", "unknown_variant"),
    ("wild", "x../.../...", "variant_not_built"),
    ("tictactoe", "zz", "malformed_position"),
    ("tictactoe", "", "malformed_position"),
    ("tictactoe", "xxx/ooo/...", "malformed_position"),
    ("tictactoe", "'; DROP TABLE variants; --", "malformed_position"),
    ("tictactoe", "x" * 70_000, "malformed_position"),
    ("connect4-4-4", "45", "malformed_position"),
    ("connect4-4-4", 11111, "malformed_position"),
    ("tictactoe", 1.5, "malformed_position"),
    ("tictactoe", b"\x00", "malformed_position"),
    (7, ".../.../...", "unknown_variant"),
]


def test_bad_input_gives_null_or_an_error_object_and_never_aborts_the_query(
    storages: Path, conn: sqlite3.Connection
) -> None:
    before = digest(storages)
    conn.execute("CREATE TEMP TABLE asked (variant, position)")
    conn.executemany("INSERT INTO asked VALUES (?, ?)", [(v, p) for v, p, _ in BAD] + [("tictactoe", "xx./oo./...")])
    rows = conn.execute(
        "SELECT tb_outcome(variant, position), tb_distance(variant, position), tb_best(variant, position),"
        " tb_probe(variant, position), tb_predecessors(variant, position) FROM asked ORDER BY rowid"
    ).fetchall()
    assert len(rows) == len(BAD) + 1
    assert rows[-1][:3] == ("win", 1, "c1")
    for (variant, position, kind), (outcome, distance, best, probe, predecessors) in zip(BAD, rows):
        assert (outcome, distance, best) == (None, None, None), (variant, position)
        for text in (probe, predecessors):
            error = json.loads(text)
            assert set(error) == {"error", "detail"} and error["error"] == kind, (variant, position, error)
            assert "\n" not in error["detail"] and len(error["detail"]) < 400
            assert str(storages.parent) not in error["detail"]
    assert "70,000 characters" in json.loads(rows[7][3])["detail"]
    assert "tablebase build wild --db storages.db" in json.loads(rows[2][3])["detail"]
    assert digest(storages) == before


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    variant=st.one_of(st.sampled_from(list(STORAGES)), st.text(max_size=20), st.integers(-(2**63), 2**63 - 1)),
    position=st.one_of(
        st.text(alphabet="xo./ 1234", max_size=30), st.text(max_size=40), st.integers(-(2**63), 2**63 - 1), st.floats(), st.binary(max_size=8)
    ),
)
def test_no_input_aborts_a_query(conn: sqlite3.Connection, variant: object, position: object) -> None:
    outcome, distance, best, probe, predecessors = conn.execute(
        "SELECT tb_outcome(?1, ?2), tb_distance(?1, ?2), tb_best(?1, ?2), tb_probe(?1, ?2), tb_predecessors(?1, ?2)",
        (variant, position),
    ).fetchone()
    if probe is None:
        # SQLite binds a NaN as NULL
        assert isinstance(position, float) and position != position
        assert (outcome, distance, best, predecessors) == (None, None, None, None)
        return
    answer = json.loads(probe)
    if "error" in answer:
        assert (outcome, distance, best) == (None, None, None)
        assert json.loads(predecessors)["error"] == answer["error"]
    else:
        assert (outcome, distance) == (answer["outcome"], answer["distance"])
        assert best == (answer["moves"][0]["move"] if answer["moves"] else None)


def test_null_arguments_give_null(conn: sqlite3.Connection) -> None:
    for function in tablebase.sql.FUNCTIONS:
        assert conn.execute(
            f"SELECT {function}('tictactoe', NULL), {function}(NULL, 'x../.../...'), {function}(NULL)"
        ).fetchone() == (None, None, None)


def test_errors_are_the_http_api_errors(storages: Path, conn: sqlite3.Connection) -> None:
    """tb_probe answers with the JSON of ``GET /api/{variant}``, errors included (one shared contract)."""
    pytest.importorskip("fastapi", reason="the serve extra is not installed: pip install -e '.[dev]'")
    from fastapi.testclient import TestClient

    from tablebase.serve import create_app

    with TestClient(create_app(storages, solvers=0)) as client:
        for variant, position in [
            ("connect4-4-4", "4432"), ("mnk-4-3-3", "x.../..../...."), ("tictactoe", "zz"), ("nope", "..."), ("wild", "...")
        ]:
            http = client.get(f"/api/{variant}", params={"position": position}).json()
            sql = json.loads(conn.execute("SELECT tb_probe(?, ?)", (variant, position)).fetchone()[0])
            assert sql == http, (variant, position)


def test_connect_is_read_only_but_temp_tables_and_attached_files_are_not(
    storages: Path, conn: sqlite3.Connection, tmp_path: Path
) -> None:
    before = digest(storages)
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        conn.execute("CREATE TABLE mine (position TEXT)")
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        conn.execute("DELETE FROM variants")
    conn.execute("ATTACH DATABASE ? AS games", (str(tmp_path / "games.db"),))
    conn.execute("CREATE TABLE games.my_games (id INTEGER PRIMARY KEY, position TEXT)")
    positions = sample_positions("connect4-4-4", 40, seed=3)
    conn.executemany("INSERT INTO games.my_games (position) VALUES (?)", [(p,) for p in positions])
    conn.commit()
    labelled = conn.execute(
        "SELECT position, tb_outcome('connect4-4-4', position) FROM games.my_games ORDER BY id"
    ).fetchall()
    with tablebase.open(storages) as tb:
        table = tb.variant("connect4-4-4")
        assert labelled == [(p, table.probe(p).outcome) for p in positions]
    # the attached file keeps the user's table
    assert sqlite3.connect(tmp_path / "games.db").execute("SELECT COUNT(*) FROM my_games").fetchone() == (40,)
    assert digest(storages) == before


def test_connect_read_write_on_request(storages: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy.db"
    shutil.copyfile(storages, copy)
    with tablebase.sql.connect(copy, read_only=False) as conn:
        conn.execute("CREATE TABLE labelled AS SELECT 'xx./oo./...' AS position, tb_outcome('tictactoe', 'xx./oo./...') AS outcome")
    reopened = sqlite3.connect(copy)
    assert reopened.execute("SELECT * FROM labelled").fetchall() == [("xx./oo./...", "win")]


def test_connect_refuses_what_is_not_a_current_tablebase(storages: Path, tmp_path: Path) -> None:
    with pytest.raises(DatabaseError, match="does not exist"):
        tablebase.sql.connect(tmp_path / "missing.db")
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE t (a)")
    with pytest.raises(DatabaseError, match="not a tablebase"):
        tablebase.sql.connect(other)
    with pytest.raises(DatabaseError, match="is a folder"):
        tablebase.sql.connect(tmp_path)
    assert not (tmp_path / "missing.db").exists()


def test_an_older_file_is_refused_with_the_upgrade_command_then_upgraded(built_db: Path, tmp_path: Path) -> None:
    from alembic import command
    from typer.testing import CliRunner

    from cli.main import app
    from tablebase.store.engine import alembic_config, make_engine

    old = tmp_path / "old.db"
    shutil.copyfile(built_db, old)
    engine = make_engine(old)
    with engine.begin() as connection:
        config = alembic_config(engine)
        config.attributes["connection"] = connection
        command.downgrade(config, schema.REVISIONS[-2])
    engine.dispose()
    with pytest.raises(SchemaVersionError) as refused:
        tablebase.sql.connect(old)
    assert f"run 'tablebase db upgrade --db {old}'" in str(refused.value)
    assert "how_to_query" not in {r[0] for r in sqlite3.connect(old).execute("SELECT name FROM sqlite_master")}
    upgraded = CliRunner().invoke(app, ["db", "upgrade", "--db", str(old)])
    assert upgraded.exit_code == 0, upgraded.output
    assert f"upgraded from {schema.REVISIONS[-2]} to {schema.HEAD}" in upgraded.stdout
    with tablebase.sql.connect(old) as conn:
        assert conn.execute("SELECT tb_outcome('tictactoe', 'xx./oo./...')").fetchone() == ("win",)
        assert ("tictactoe", "moves", "positions") in conn.execute(
            "SELECT variant, storage, values_from FROM how_to_query"
        ).fetchall()


def test_how_to_query_says_where_each_variant_is_read(storages: Path, conn: sqlite3.Connection) -> None:
    rows = {r[0]: r[1:] for r in conn.execute("SELECT variant, storage, values_from, moves_from, example, note FROM how_to_query")}
    assert {name: r[0] for name, r in rows.items()} == STORAGES
    assert rows["tictactoe"][1:3] == ("positions", "move_values, best_moves")
    assert rows["tictactoe-misere"][1:3] == ("positions", "tb_probe(), tb_best()")
    for name in ("mnk-4-3-3", "connect4-4-4"):
        assert rows[name][1:3] == ("tb_outcome(), tb_distance()", "tb_probe(), tb_best()")
        assert f"tablebase export {name} --to rows.db --plies 0-8" in rows[name][4]
    with tablebase.open(storages) as tb:
        for name, (storage, values_from, _, example, _) in rows.items():
            answer = conn.execute(example).fetchall()
            assert answer, example
            if values_from == "positions":
                # the row views hold the variant; the example reads them
                listed = conn.execute("SELECT COUNT(*) FROM positions WHERE variant = ?", (name,)).fetchone()[0]
                assert listed == tb.variant(name).info.states
            else:
                assert json.loads(answer[0][0]) == tb.variant(name).probe().to_dict()
                # the blobs: nothing in the row views
                assert conn.execute("SELECT COUNT(*) FROM positions WHERE variant = ?", (name,)).fetchone() == (0,)


def test_the_row_views_keep_answering_for_row_storages(storages: Path, conn: sqlite3.Connection) -> None:
    with tablebase.open(storages) as tb:
        table = tb.variant("tictactoe")
        for position in sample_positions("tictactoe", 40, seed=5):
            key = table.key(position)
            probe = table.probe(key.key)
            row = conn.execute(
                "SELECT outcome, distance FROM positions WHERE variant = 'tictactoe' AND position = ?", (key.key,)
            ).fetchone()
            assert row == (probe.outcome, probe.distance)
            best = conn.execute(
                "SELECT outcome, distance FROM best_moves WHERE variant = 'tictactoe' AND position = ?", (key.key,)
            ).fetchone()
            expected = probe.best_move
            assert best == (None if expected is None else (expected.outcome, expected.distance))


def test_sqlalchemy_engine_has_the_functions_on_every_connection(storages: Path) -> None:
    from sqlalchemy import text

    engine = tablebase.sql.engine(storages)
    try:
        with engine.connect() as first, engine.connect() as second:
            assert first.connection.driver_connection is not second.connection.driver_connection
            for connection in (first, second):
                value = connection.execute(text("SELECT tb_outcome('mnk-4-3-3'), tb_distance('mnk-4-3-3')")).one()
                assert tuple(value) == ("win", 7)
        with engine.connect() as connection, pytest.raises(Exception, match="readonly"):
            connection.execute(text("CREATE TABLE mine (a)"))
    finally:
        engine.dispose()


def test_pandas_read_sql_labels_a_frame_of_positions(storages: Path) -> None:
    pandas = pytest.importorskip("pandas")
    engine = tablebase.sql.engine(storages)
    positions = sample_positions("connect4-4-4", 60, seed=9)
    try:
        frame = pandas.read_sql(
            "SELECT value AS position, tb_outcome('connect4-4-4', value) AS outcome,"
            " tb_distance('connect4-4-4', value) AS distance FROM json_each(:positions)",
            engine,
            params={"positions": json.dumps(positions)},
        )
    finally:
        engine.dispose()
    with tablebase.open(storages) as tb:
        table = tb.variant("connect4-4-4")
        expected = [table.value(p) for p in positions]
    assert list(frame["position"]) == positions
    assert list(zip(frame["outcome"], frame["distance"])) == expected


def test_register_on_another_connection_reads_the_named_file(storages: Path, tmp_path: Path) -> None:
    mine = sqlite3.connect(tmp_path / "mine.db")
    mine.execute("CREATE TABLE my_games (position TEXT)")
    mine.executemany("INSERT INTO my_games VALUES (?)", [("44",), ("4432",), ("4444",), ("oops",)])
    tablebase.sql.register(mine, storages)
    rows = mine.execute("SELECT position, tb_outcome('connect4-4-4', position) FROM my_games").fetchall()
    with tablebase.open(storages) as tb:
        table = tb.variant("connect4-4-4")
        assert rows == [(p, table.get_probe(p).outcome if p != "oops" else None) for p, _ in rows]
    assert rows[-1] == ("oops", None)


# -- datasette --------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=30) as reply:
        return json.loads(reply.read())


@pytest.fixture(scope="module")
def datasette_url(storages: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real ``datasette`` server on the storages file and a database of the user's own positions."""
    pytest.importorskip("datasette", reason="the datasette extra is not installed: pip install -e '.[dev]'")
    games_db = tmp_path_factory.mktemp("mine") / "my_games.db"
    with sqlite3.connect(games_db) as mine:
        mine.execute("CREATE TABLE my_games (position TEXT)")
        mine.executemany("INSERT INTO my_games VALUES (?)", [(p,) for p in sample_positions("connect4-4-4", 30, seed=4)])
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "datasette", "serve", str(storages), str(games_db), "--port", str(port), "--host", "127.0.0.1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                get_json(f"{url}/-/versions.json")
                break
            except (urllib.error.URLError, ConnectionError):
                if server.poll() is not None or time.monotonic() > deadline:
                    out = server.stdout.read().decode() if server.stdout else ""
                    pytest.fail(f"datasette did not start: {out}")
                time.sleep(0.2)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)


def sql_url(url: str, database: str, sql: str, **params: str) -> str:
    return f"{url}/{database}.json?" + urllib.parse.urlencode({"sql": sql, "_shape": "array", **params})


@pytest.mark.slow
def test_datasette_plugin_is_registered(datasette_url: str) -> None:
    plugins = get_json(f"{datasette_url}/-/plugins.json")
    mine = [p for p in plugins if p["name"] == "tablebase"]
    assert mine and set(mine[0]["hooks"]) == {"prepare_connection", "canned_queries", "get_metadata"}


@pytest.mark.slow
def test_datasette_runs_the_functions_on_every_storage(datasette_url: str, storages: Path) -> None:
    with tablebase.open(storages) as tb:
        for name in STORAGES:
            position = sample_positions(name, 5, seed=1)[-1]
            rows = get_json(sql_url(
                datasette_url, "storages",
                "SELECT tb_outcome(:v, :p) AS outcome, tb_distance(:v, :p) AS distance, tb_probe(:v, :p) AS probe",
                v=name, p=position,
            ))
            probe = tb.variant(name).probe(position)
            assert (rows[0]["outcome"], rows[0]["distance"]) == (probe.outcome, probe.distance)
            assert json.loads(rows[0]["probe"]) == probe.to_dict()


@pytest.mark.slow
def test_datasette_labels_a_table_of_another_database(datasette_url: str, storages: Path) -> None:
    rows = get_json(sql_url(datasette_url, "my_games", "SELECT position, tb_outcome('connect4-4-4', position) AS o FROM my_games"))
    assert len(rows) == 30
    with tablebase.open(storages) as tb:
        table = tb.variant("connect4-4-4")
        assert [r["o"] for r in rows] == [table.probe(r["position"]).outcome for r in rows]


@pytest.mark.slow
def test_datasette_offers_a_probe_query_per_variant(datasette_url: str, storages: Path) -> None:
    listed = get_json(f"{datasette_url}/storages.json")
    assert {q["name"] for q in listed["queries"]} == {f"probe-{name}" for name in STORAGES}
    with tablebase.open(storages) as tb:
        for name in STORAGES:
            position = sample_positions(name, 8, seed=2)[-1]
            rows = get_json(f"{datasette_url}/storages/probe-{name}.json?" + urllib.parse.urlencode(
                {"position": position, "_shape": "array"}
            ))
            probe = tb.variant(name).probe(position)
            assert (rows[0]["outcome"], rows[0]["distance"], rows[0]["position"]) == (
                probe.outcome, probe.distance, probe.position
            )
            assert [(r["move"], r["outcome"], r["distance"], r["position"]) for r in rows[1:]] == [
                (m.move, m.outcome, m.distance, m.position) for m in probe.moves
            ]
        start = get_json(f"{datasette_url}/storages/probe-tictactoe.json?position=&_shape=array")
        assert (start[0]["outcome"], start[0]["distance"], len(start)) == ("draw", 9, 10)
    bad = get_json(f"{datasette_url}/storages/probe-tictactoe.json?position=zz&_shape=array")
    assert len(bad) == 1 and bad[0]["error"].startswith("malformed_position: ")
    page = urllib.request.urlopen(f"{datasette_url}/storages/probe-connect4-4-4?position=44", timeout=30).read().decode()
    assert "Probe a position of connect4-4-4" in page


@pytest.mark.slow
def test_datasette_pages_say_what_the_blobs_are(datasette_url: str) -> None:
    from tablebase.datasette_plugin import DATABASE_DESCRIPTION, TABLE_DESCRIPTIONS

    def page(path: str) -> str:
        import html

        return html.unescape(urllib.request.urlopen(f"{datasette_url}{path}", timeout=30).read().decode())

    assert DATABASE_DESCRIPTION in page("/storages")
    assert TABLE_DESCRIPTIONS["blocks"] in page("/storages/blocks")
    assert TABLE_DESCRIPTIONS["how_to_query"] in page("/storages/how_to_query")
    # the user's own database is not described as a tablebase
    assert DATABASE_DESCRIPTION not in page("/my_games")
