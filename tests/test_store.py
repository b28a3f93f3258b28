"""Schema (alembic), browsing views, atomic rebuilds and schema revisions."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

import tablebase
from tablebase.errors import SchemaVersionError
from tablebase.store import schema


def test_schema_head_matches_the_alembic_scripts(tmp_path: Path) -> None:
    from alembic.script import ScriptDirectory

    from tablebase.store.engine import alembic_config, make_engine

    scripts = ScriptDirectory.from_config(alembic_config(make_engine(tmp_path / "a.db")))
    revisions = [r.revision for r in reversed(list(scripts.walk_revisions()))]
    assert tuple(revisions) == schema.REVISIONS
    assert scripts.get_current_head() == schema.HEAD


def test_models_match_the_migrations(tmp_path: Path) -> None:
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from tablebase.store.engine import make_engine, upgrade
    from tablebase.store.models import Base

    engine = make_engine(tmp_path / "m.db")
    upgrade(engine)
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    assert diff == []


def test_views_read_naturally_in_sqlite(built_db: Path) -> None:
    conn = sqlite3.connect(built_db)
    row = conn.execute(
        "SELECT position, to_move, outcome, distance FROM positions WHERE variant = 'tictactoe' AND ply = 0"
    ).fetchone()
    assert row == (".../.../...", "x", "draw", 9)
    # stored keys are canonical: xx./oo./... is kept as its mirror image xo./xo./...
    best = conn.execute(
        "SELECT move, position_after, outcome, distance FROM best_moves"
        " WHERE variant = 'tictactoe' AND position = 'xo./xo./...'"
    ).fetchone()
    assert best == ("a3", "xo./xo./x..", "win", 1)
    values = conn.execute(
        "SELECT COUNT(*), COUNT(DISTINCT position_after) FROM move_values"
        " WHERE variant = 'tictactoe' AND position = '.../.../...'"
    ).fetchone()
    assert values == (9, 3)  # nine first moves into three classes: corner, edge, centre
    conn.close()


def test_best_moves_agrees_with_probe_and_looks_positions_up_by_index(built_db: Path) -> None:
    conn = sqlite3.connect(built_db)
    plan = " ".join(
        row[-1]
        for row in conn.execute(
            "EXPLAIN QUERY PLAN SELECT * FROM best_moves WHERE variant = 'tictactoe' AND position = 'xo./xo./...'"
        )
    )
    assert "SCAN" not in plan.replace("SCAN CONSTANT ROW", ""), plan
    keys = [r[0] for r in conn.execute("SELECT position FROM positions WHERE variant = 'tictactoe' AND NOT terminal")]
    with tablebase.open(built_db) as tb:
        ttt = tb.variant("tictactoe")
        for key in keys[::7]:
            move, outcome, distance = conn.execute(
                "SELECT move, outcome, distance FROM best_moves WHERE variant = 'tictactoe' AND position = ?", (key,)
            ).fetchone()
            best = ttt.probe(key).best_move
            assert best is not None and (outcome, distance) == (best.outcome, best.distance)
            # ties are broken by the move's name in the view: it is one of the best moves
            assert move in {m.move for m in ttt.probe(key).moves if (m.outcome, m.distance) == (outcome, distance)}
    assert conn.execute("SELECT COUNT(*) FROM best_moves WHERE variant = 'tictactoe'").fetchone()[0] == len(keys)
    conn.close()


def test_rebuild_replaces_atomically(db_copy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tablebase.store import writer

    with tablebase.open(db_copy) as tb:
        before = tb.variant("tictactoe").stats().to_dict()
        original = writer.move_labels

        def broken(game, moves):
            codes, labels = original(game, moves)
            return codes, labels[:-1] + [None]  # violates NOT NULL in the middle of the load

        monkeypatch.setattr(writer, "move_labels", broken)
        with pytest.raises(tablebase.DatabaseError, match="NOT NULL constraint failed") as info:
            tb.build("tictactoe")
        assert isinstance(info.value.__cause__, sqlite3.IntegrityError)
        monkeypatch.setattr(writer, "move_labels", original)
        assert tb.variant("tictactoe").stats().to_dict() == before
        assert tb.verify("tictactoe").ok
        tb.build("tictactoe")
        assert tb.variant("tictactoe").stats().to_dict() == before
    conn = sqlite3.connect(db_copy)
    assert conn.execute("SELECT COUNT(*) FROM variants WHERE name = 'tictactoe'").fetchone() == (1,)
    assert conn.execute(
        "SELECT COUNT(*) FROM moves WHERE to_state NOT IN (SELECT id FROM states)"
    ).fetchone() == (0,)


def test_older_and_newer_schema_revisions(db_copy: Path) -> None:
    conn = sqlite3.connect(db_copy)
    conn.execute("UPDATE alembic_version SET version_num = 'ffff_from_the_future'")
    conn.commit()
    with tablebase.open(db_copy) as tb, pytest.raises(SchemaVersionError, match="newer than this version"):
        tb.variants()
    with tablebase.open(db_copy) as tb, pytest.raises(SchemaVersionError, match="newer than this version"):
        tb.upgrade()


def test_older_revision_names_the_upgrade_command(db_copy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(schema, "REVISIONS", ("0000_older",) + schema.REVISIONS)
    monkeypatch.setattr(schema, "HEAD", "0002_next")
    monkeypatch.setattr(schema, "REVISIONS", schema.REVISIONS + ("0002_next",))
    with tablebase.open(db_copy) as tb, pytest.raises(SchemaVersionError) as err:
        tb.variants()
    assert "tablebase db upgrade --db" in str(err.value)


def test_older_database_is_upgraded_keeping_its_data(db_copy: Path) -> None:
    from alembic import command
    from typer.testing import CliRunner

    from cli.main import app
    from tablebase.store.engine import alembic_config, make_engine

    engine = make_engine(db_copy)
    with engine.begin() as conn:
        config = alembic_config(engine)
        config.attributes["connection"] = conn
        command.downgrade(config, schema.REVISIONS[0])
    engine.dispose()
    runner = CliRunner()
    refused = runner.invoke(app, ["probe", "tictactoe", "--db", str(db_copy)])
    assert refused.exit_code == 1
    assert f"run 'tablebase db upgrade --db {db_copy}'" in refused.stderr
    upgraded = runner.invoke(app, ["db", "upgrade", "--db", str(db_copy)])
    assert upgraded.exit_code == 0
    assert f"upgraded from {schema.REVISIONS[0]} to {schema.HEAD}" in upgraded.stdout
    with tablebase.open(db_copy) as tb:
        assert tb.variant("tictactoe").probe().outcome == "draw"
        assert tb.variant("tictactoe").info.storage == "moves"
        assert tb.verify("tictactoe").ok


def test_build_seconds_cover_the_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import time as time_module

    from tablebase.store import bulk

    original = bulk.insert

    def slow(*args, **kwargs):  # type: ignore[no-untyped-def]
        time_module.sleep(0.2)
        return original(*args, **kwargs)

    monkeypatch.setattr(bulk, "insert", slow)
    for storage in ("moves", "states"):
        with tablebase.open(tmp_path / f"{storage}.db") as tb:
            info = tb.build("mnk-3-2-3", storage=storage)
        assert info.build_seconds >= 0.2, storage


PLY_SCAN = (
    "SELECT s.variant_id, s.ply,"
    " CASE WHEN v.symmetry THEN SUM(s.orbit) ELSE COUNT(*) END,"
    " CASE WHEN v.symmetry THEN COUNT(*) ELSE SUM(s.representative) END,"
    " SUM(s.outcome = 'win'), SUM(s.outcome = 'loss'), SUM(s.outcome = 'draw'), SUM(s.terminal),"
    " SUM((s.outcome = 'win') * IIF(v.symmetry, s.orbit, 1)), SUM((s.outcome = 'loss') * IIF(v.symmetry, s.orbit, 1)),"
    " SUM((s.outcome = 'draw') * IIF(v.symmetry, s.orbit, 1))"
    " FROM states AS s JOIN variants AS v ON v.id = s.variant_id GROUP BY s.variant_id, s.ply ORDER BY 1, 2"
)
PLY_TABLE = "SELECT * FROM plies ORDER BY variant_id, ply"


def _late_ultimate_position() -> str:
    import random

    from tablebase import games
    from tablebase.games.playouts import random_position

    game = games.get("ultimate-classic")
    return game.format_position(random_position(game, 64, random.Random(11)))


def test_plies_table_matches_a_scan_of_the_states(built_db: Path, tmp_path: Path) -> None:
    path = tmp_path / "modes.db"
    with tablebase.open(path) as tb:
        tb.build("tictactoe", storage="states")
        tb.build("mnk-3-3-3", symmetry=False, storage="states")
        tb.build("roman")
        tb.solve("ultimate-classic", _late_ultimate_position())
    for db in (built_db, path):
        conn = sqlite3.connect(db)
        scanned = conn.execute(PLY_SCAN).fetchall()
        assert scanned and conn.execute(PLY_TABLE).fetchall() == scanned
        conn.close()


def test_upgrade_fills_the_plies_of_older_builds(db_copy: Path) -> None:
    from alembic import command

    from tablebase.store.engine import alembic_config, make_engine

    before = sqlite3.connect(db_copy).execute(PLY_TABLE).fetchall()
    engine = make_engine(db_copy)
    with engine.begin() as conn:
        config = alembic_config(engine)
        config.attributes["connection"] = conn
        command.downgrade(config, "0002_storage")
    engine.dispose()
    with tablebase.open(db_copy) as tb:
        tb.upgrade()
        assert tb.variant("tictactoe").stats().classes == 765
    assert sqlite3.connect(db_copy).execute(PLY_TABLE).fetchall() == before
