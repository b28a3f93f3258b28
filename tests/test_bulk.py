"""Bulk column inserts give exactly the rows executemany would."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablebase.store import bulk


def _table() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE t (a INTEGER, b TEXT, c TEXT, d INTEGER, e TEXT)")
    return conn


def test_columns_round_trip() -> None:
    conn = _table()
    cur = conn.cursor()
    n = bulk.insert(
        cur,
        "t",
        {
            "a": bulk.Ints(np.array([5, -3, 120, 0])),
            "b": bulk.Texts(["x.o/...", "", "é/ü", "long text here"]),
            "c": bulk.Choice(np.array([2, 0, 1, 2]), ["win", None, "draw"]),
            "d": bulk.Ints(np.array([7, -1, 0, 31]), null=np.array([False, True, False, False])),
            "e": bulk.Constant("k"),
        },
    )
    assert n == 4
    assert conn.execute("SELECT * FROM t").fetchall() == [
        (5, "x.o/...", "draw", 7, "k"),
        (-3, "", "win", None, "k"),
        (120, "é/ü", None, 0, "k"),
        (0, "long text here", "draw", 31, "k"),
    ]
    assert conn.execute("SELECT typeof(a), typeof(b), typeof(d) FROM t LIMIT 1").fetchone() == (
        "integer",
        "text",
        "integer",
    )


def test_fixed_width_bytes_and_long_vocabulary() -> None:
    conn = _table()
    keys = np.array([b"ab", b"cd", b"ef"], dtype="S2")
    labels = [f"m{i}" for i in range(30)] + [None]
    bulk.insert(
        conn.cursor(),
        "t",
        {"b": bulk.Texts(keys), "c": bulk.Choice(np.array([29, 30, 3]), labels), "d": bulk.Ints(np.zeros(3))},
    )
    assert conn.execute("SELECT b, c, d FROM t").fetchall() == [("ab", "m29", 0), ("cd", None, 0), ("ef", "m3", 0)]


def test_all_null_and_empty() -> None:
    conn = _table()
    cur = conn.cursor()
    assert bulk.insert(cur, "t", {"a": bulk.Ints(np.array([], dtype=np.int64)), "e": bulk.Constant(1)}) == 0
    bulk.insert(cur, "t", {"d": bulk.Ints(np.array([3, 4]), null=np.array([True, True]))})
    assert conn.execute("SELECT a, d FROM t").fetchall() == [(None, None), (None, None)]


def test_lengths_must_agree() -> None:
    with pytest.raises(ValueError, match="different lengths"):
        bulk.insert(_table().cursor(), "t", {"a": bulk.Ints(np.arange(3)), "b": bulk.Texts(["x"])})


def test_verb_or_ignore() -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE u (k TEXT PRIMARY KEY, v INTEGER)")
    cur = conn.cursor()
    bulk.insert(cur, "u", {"k": bulk.Texts(["a", "b"]), "v": bulk.Ints(np.array([1, 2]))})
    bulk.insert(cur, "u", {"k": bulk.Texts(["b", "c"]), "v": bulk.Ints(np.array([9, 3]))}, verb="INSERT OR IGNORE")
    assert conn.execute("SELECT * FROM u ORDER BY k").fetchall() == [("a", 1), ("b", 2), ("c", 3)]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(-(2**40), 2**40),
            st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=12),
            st.one_of(st.none(), st.integers(0, 10_000)),
        ),
        max_size=40,
    )
)
def test_matches_executemany(rows: list[tuple[int, str, int | None]]) -> None:
    expected = _table()
    expected.executemany("INSERT INTO t (a, b, d) VALUES (?, ?, ?)", rows)
    got = _table()
    if rows:
        a, b, d = zip(*rows)
        bulk.insert(
            got.cursor(),
            "t",
            {
                "a": bulk.Ints(np.array(a, dtype=np.int64)),
                "b": bulk.Texts(list(b)),
                "d": bulk.Ints(np.array([v or 0 for v in d]), null=np.array([v is None for v in d])),
            },
        )
    assert got.execute("SELECT * FROM t").fetchall() == expected.execute("SELECT * FROM t").fetchall()


def test_prefetch_order_errors_and_early_stop() -> None:
    assert list(bulk.prefetch(iter(range(10)))) == list(range(10))

    def failing():  # type: ignore[no-untyped-def]
        yield 1
        raise RuntimeError("producer broke")

    got = []
    with pytest.raises(RuntimeError, match="producer broke"):
        for item in bulk.prefetch(failing()):
            got.append(item)
    assert got == [1]
    produced = []

    def counting():  # type: ignore[no-untyped-def]
        for i in range(1000):
            produced.append(i)
            yield i

    stream = bulk.prefetch(counting())
    assert next(stream) == 0
    stream.close()
    assert len(produced) < 10


def _built(folder: Path) -> Any:
    """An engine on a new file in ``folder`` with one small variant written by the moves writer."""
    from sqlalchemy import create_engine
    from sqlalchemy.pool import StaticPool

    from tablebase import games
    from tablebase.solve import solve
    from tablebase.store.engine import upgrade
    from tablebase.store.writer import write_solution

    engine = create_engine(f"sqlite:///{folder / 't.db'}", poolclass=StaticPool)
    upgrade(engine)
    write_solution(engine, solve(games.get("mnk-3-2-3")), 0.0)
    return engine


def test_writer_leaves_no_temporary_table(tmp_path) -> None:  # type: ignore[no-untyped-def]
    raw = _built(tmp_path).raw_connection()
    try:
        assert raw.driver_connection.execute("SELECT name FROM temp.sqlite_master").fetchall() == []
        assert raw.driver_connection.execute("SELECT COUNT(*) FROM states").fetchone()[0] > 0
    finally:
        raw.close()


def test_finish_drops_the_counter() -> None:
    conn = _table()
    cur = conn.cursor()
    bulk.insert(cur, "t", {"a": bulk.Ints(np.arange(5))})
    assert conn.execute("SELECT COUNT(*) FROM temp.sqlite_master").fetchone()[0] == 1
    bulk.finish(cur)
    assert conn.execute("SELECT COUNT(*) FROM temp.sqlite_master").fetchone()[0] == 0


def test_unlabelled_states_are_refused() -> None:
    from tablebase import games
    from tablebase.store.writer import state_columns

    game = games.get("tictactoe")
    states = np.array([game.initial_state()], dtype=np.uint64)
    with pytest.raises(ValueError, match="without an outcome"):
        state_columns(game, states, np.zeros(1), np.zeros(1, dtype=np.int8), np.zeros(1), True)


def test_check_constraints_are_enforced_again_after_a_build(tmp_path) -> None:  # type: ignore[no-untyped-def]
    raw = _built(tmp_path).raw_connection()
    try:
        with pytest.raises(sqlite3.IntegrityError, match="CHECK"):
            raw.driver_connection.execute(
                "INSERT INTO states (variant_id, key, to_move, ply, terminal, outcome, orbit, representative)"
                " VALUES (1, 'k', 'x', 0, 0, 'maybe', 1, 1)"
            )
    finally:
        raw.close()
