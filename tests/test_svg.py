"""Positions and probes draw themselves as SVG from the game's layout (notebooks)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import tablebase
from tablebase import games
from tablebase.svg import Board, board_svg

NS = "{http://www.w3.org/2000/svg}"


def texts(svg: str, attribute: str) -> dict[str, list[str]]:
    """``attribute`` value -> the texts drawn with it."""
    found: dict[str, list[str]] = {}
    for node in ET.fromstring(svg).iter(f"{NS}text"):
        if attribute in node.attrib:
            found.setdefault(node.attrib[attribute], []).append(node.text or "")
    return found


def test_probe_draws_the_board_and_each_moves_value(built_db: Path) -> None:
    with tablebase.open(built_db) as tb:
        probe = tb.variant("tictactoe").probe("x../.o./...")
    svg = probe._repr_svg_()
    assert svg is not None
    assert texts(svg, "data-cell") == {"a1": ["x"], "b2": ["o"]}
    values = texts(svg, "data-move")
    # x to move after x a1, o b2: every reply draws (a drawn game: seed figures), so every value is D
    assert sorted(values) == ["a2", "a3", "b1", "b3", "c1", "c2", "c3"]
    assert all(v == ["D"] for v in values.values())


def test_a_winning_move_shows_its_distance(built_db: Path) -> None:
    with tablebase.open(built_db) as tb:
        probe = tb.variant("tictactoe").probe("xx./oo./... x")
    values = texts(probe._repr_svg_() or "", "data-move")
    assert values["c1"] == ["W1"]  # x completes the top row


def test_board_of_every_variant_with_a_layout_is_well_formed_svg() -> None:
    for name in games.names():
        game = games.get(name)
        svg = Board(name)._repr_svg_()
        if game.layout() is None:
            assert svg is None
            continue
        assert svg is not None
        root = ET.fromstring(svg)
        assert root.tag == f"{NS}svg", name
        cells = [n for n in root.iter() if n.tag in (f"{NS}rect", f"{NS}circle")]
        assert len(cells) >= len(game.layout()["cells"]), name  # type: ignore[index]


def test_wild_draws_both_marks_on_one_cell() -> None:
    class Move:
        def __init__(self, move: str, position: str, outcome: str, distance: int) -> None:
            self.move, self.position, self.outcome, self.distance = move, position, outcome, distance

    game = games.get("wild")
    state = game.initial_state()
    moves = [Move(m, game.format_position(game.apply(state, game.parse_move(state, m))), "draw", 9) for m in ("xb2", "ob2")]
    assert texts(board_svg(game, None, moves) or "", "data-move") == {"xb2": ["xD"], "ob2": ["oD"]}


def test_bad_position_is_refused_by_name() -> None:
    with pytest.raises(tablebase.MalformedPositionError, match="'xxxx'"):
        board_svg("tictactoe", "xxxx")
