"""Random and malformed input at every parser and query: an answer or the library's own error."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import tablebase
from cli.main import app
from tablebase import games
from tablebase.errors import IllegalMoveError, MalformedPositionError, TablebaseError, UnknownVariantError

NAMES = [n for n in games.names() if games.get(n).enumerable]

board_text = st.text(alphabet="xo./ 123abc-'\";", max_size=24)
any_text = st.text(max_size=40)
variant_names = st.one_of(
    st.sampled_from(NAMES),
    st.builds(
        lambda m, n, k, tail: f"mnk-{m}-{n}-{k}{tail}",
        st.integers(-2, 12),
        st.integers(-2, 12),
        st.integers(-2, 12),
        st.sampled_from(["", "-misere", "-x", "'"]),
    ),
    any_text,
)
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@FUZZ
@given(name=st.sampled_from(NAMES), text=st.one_of(board_text, any_text))
def test_position_parsers(name: str, text: str) -> None:
    game = games.get(name)
    try:
        state = game.parse_position(text)
    except MalformedPositionError as exc:
        assert repr(text) in str(exc) or "string" in str(exc)
        return
    assert game.format_position(game.parse_position(game.format_position(state))) == game.format_position(state)


@FUZZ
@given(name=st.sampled_from(NAMES), text=st.one_of(st.text(alphabet="abcdxo0123456789-", max_size=8), any_text))
@example(name="tictactoe", text="A²")  # a digit to str.isdigit, not to int()
@example(name="roman", text="a1-b²")
def test_move_parsers(name: str, text: str) -> None:
    game = games.get(name)
    state = game.initial_state()
    try:
        move = game.parse_move(state, text)
    except IllegalMoveError as exc:
        assert repr(text) in str(exc)
        return
    assert move in game.legal_moves(state)
    assert game.format_move(move) == text


@FUZZ
@given(name=variant_names)
def test_variant_names(name: str) -> None:
    try:
        game = games.get(name)
    except UnknownVariantError as exc:
        assert repr(name) in str(exc) or "unsupported" in str(exc)
        return
    assert game.name == name or name.startswith("mnk-")


@FUZZ
@given(name=st.sampled_from(["tictactoe", "mnk-3-3-2", "tictactoe-misere"]), text=board_text)
def test_query_calls(built_db: Path, name: str, text: str) -> None:
    with tablebase.open(built_db) as tb:
        table = tb.variant(name)
        for call in (table.probe, table.line, table.predecessors, table.best_move):
            try:
                call(text)
            except TablebaseError as exc:
                assert isinstance(exc, (ValueError, KeyError))
                assert repr(text) in str(exc)


runner = CliRunner()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    command=st.sampled_from(["probe", "best", "line", "predecessors"]),
    name=st.one_of(st.sampled_from(["tictactoe", "mnk-3-3-2"]), variant_names),
    text=board_text,
)
def test_cli_never_shows_a_traceback(built_db: Path, command: str, name: str, text: str) -> None:
    result = runner.invoke(app, [command, name, text, "--db", str(built_db), "--json"])
    assert result.exit_code in (0, 1), result.output
    if result.exit_code == 1:
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ")
        assert result.exception is None or isinstance(result.exception, SystemExit)


@pytest.mark.parametrize(
    "name",
    ["tictactoe'; DROP TABLE states; --", "mnk-3-3-3' OR '1'='1", 'wild" --'],
)
def test_sql_fragments_are_just_bad_input(built_db: Path, name: str) -> None:
    result = runner.invoke(app, ["probe", name, "--db", str(built_db)])
    assert result.exit_code == 1 and "unknown variant" in result.stderr
    with tablebase.open(built_db) as tb:
        assert tb.variant("tictactoe").stats().classes == 765
