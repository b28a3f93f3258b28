"""docs/games.md says what is true: its examples run, its complete module is a working plugin."""

from __future__ import annotations

import doctest
import re
import sys
import types
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

import tablebase
from cli.main import app
from tablebase import games, testing

DOC = Path(__file__).resolve().parents[1] / "docs" / "games.md"


def blocks(kind: str) -> list[str]:
    """The fenced blocks of ``kind`` (``python``, ``console``, ...) in the page, in order."""
    return re.findall(rf"^```{kind}\n(.*?)^```$", DOC.read_text(), re.M | re.S)


def test_the_interactive_examples_print_what_the_page_says() -> None:
    result = doctest.testfile(str(DOC), module_relative=False, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 8 and result.failed == 0


def test_every_python_block_compiles() -> None:
    found = blocks("python")
    assert len(found) >= 2
    for i, text in enumerate(found):
        compile(text, f"games.md python block {i + 1}", "exec")


@pytest.fixture
def notakto(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[types.ModuleType]:
    """The page's complete module, written out as ``mygames/notakto.py`` and registered."""
    module = next(text for text in blocks("python") if text.startswith("# mygames/notakto.py"))
    package = tmp_path / "mygames"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "notakto.py").write_text(module)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "mygames", raising=False)
    monkeypatch.delitem(sys.modules, "mygames.notakto", raising=False)
    import mygames.notakto as family

    monkeypatch.setattr(games, "FAMILIES", (*games.families(), family))
    games.get.cache_clear()
    yield family
    games.get.cache_clear()


def test_the_complete_module_is_a_working_plugin(notakto: types.ModuleType, tmp_path: Path) -> None:
    game = games.get("notakto")
    assert (game.family, game.players, game.num_symmetries) == ("notakto", ("first", "second"), 8)
    testing.check_game(game, playouts=40)  # includes its symmetries and unmoves
    testing.check_built("notakto", tmp_path / "n.db", playouts=20)
    with tablebase.open(tmp_path / "n.db") as tb:
        start = tb.variant("notakto").probe()
    # the known result: the first player wins 3x3 Notakto, by taking the centre and only so
    assert (start.to_move, start.outcome) == ("first", "win")
    assert [m.move for m in start.moves if m.outcome == "loss"] == [m.move for m in start.moves][1:]
    assert start.moves[0].move == "b2"
    # the page's console output, but for the build's time
    shown = next(text for text in blocks("console") if "$ tablebase probe notakto" in text).splitlines()
    db = ["--db", str(tmp_path / "n.db")]
    built = CliRunner().invoke(app, ["build", "notakto", "-q", *db]).output
    assert re.sub(r"\(.* s\)", "", built.strip()) == re.sub(r"\(.* s\)", "", shown[1])
    assert shown[2] == "$ tablebase probe notakto"
    assert CliRunner().invoke(app, ["probe", "notakto", *db]).output.splitlines() == shown[3:]


def test_a_parent_where_the_game_was_over_is_left_out(notakto: types.ModuleType) -> None:
    game = games.get("notakto")
    # xxx/x../...: any x of the top row came last; a2 did not, the row was complete before it
    state = game.parse_position("xxx/x../...")
    parents = {game.format_move(move): game.format_position(parent) for parent, move in game.unmoves(state)}
    assert parents == {"a1": ".xx/x../...", "b1": "x.x/x../...", "c1": "xx./x../..."}
