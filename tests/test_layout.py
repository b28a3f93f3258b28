"""The board layout contract of ``Game.layout`` (:func:`tablebase.testing.check_board_layout`) on
the toy games, and that the check catches a layout that breaks it; every registered game is
checked in tests/test_matrix.py. Also the reference readers ``split_move`` and ``board_cells``.
"""

from __future__ import annotations

import pytest
from serve_support import TOY_FAMILY

from tablebase import games, testing
from tablebase.games.base import Game
from tablebase.games.layout import Layout, board_cells, grid_layout, split_move

TOYS = [factory() for factory in TOY_FAMILY.VARIANTS.values()]


@pytest.mark.parametrize("game", TOYS, ids=lambda g: g.name)
def test_toy_layouts_keep_the_contract(game: Game) -> None:
    testing.check_board_layout(game)


def test_the_contract_check_catches_a_broken_layout() -> None:
    """An edge to no cell, a move that changes a cell it does not name, a disc drawn falling upwards."""
    tictactoe = type(games.get("tictactoe"))

    class BadEdge(tictactoe):  # type: ignore[misc,valid-type]
        def layout(self) -> Layout:
            drawn = super().layout()
            return {**drawn, "edges": [("a1", "z9")]}

    class Renamed(tictactoe):  # type: ignore[misc,valid-type]
        def layout(self) -> Layout:
            drawn = super().layout()
            cells = [{**cell, "name": {"a1": "a2", "a2": "a1"}.get(cell["name"], cell["name"])} for cell in drawn["cells"]]
            return {**drawn, "cells": cells}  # type: ignore[typeddict-item]

    class Upside(type(games.get("connect4-4-4"))):  # type: ignore[misc]
        def layout(self) -> Layout:
            drawn = super().layout()
            top = max(cell["y"] for cell in drawn["cells"])
            return {**drawn, "cells": [{**cell, "y": top - cell["y"]} for cell in drawn["cells"]]}  # type: ignore[typeddict-item]

    with pytest.raises(AssertionError, match="an edge names no cell"):
        testing.check_board_layout(BadEdge(3, 3, 3, name="bad-edge"), playouts=2)
    with pytest.raises(AssertionError, match="changes cells"):
        testing.check_board_layout(Renamed(3, 3, 3, name="renamed"), playouts=2)
    with pytest.raises(AssertionError, match="lowest empty cell"):
        testing.check_board_layout(Upside(4, 4, name="upside"), playouts=2)
    testing.check_board_layout(games.get("connect4-4-4"), playouts=2)  # the real ones keep it


def test_split_move() -> None:
    layout = grid_layout(3, 3)
    assert split_move(layout, "b2") == ("", ("b2",))
    assert split_move(layout, "a1-b2") == ("", ("a1", "b2"))
    assert split_move(layout, "xb2") == ("x", ("b2",))
    with pytest.raises(ValueError, match="'d4'"):
        split_move(layout, "a1-d4")
    with pytest.raises(ValueError, match="does not start"):
        split_move(layout, "z9")


def test_board_cells_reads_rows_in_order() -> None:
    cells = board_cells(grid_layout(3, 2), "x.o/..x x")
    assert cells == {"a1": "x", "b1": None, "c1": "o", "a2": None, "b2": None, "c2": "x"}
    with pytest.raises(ValueError, match="6 cells"):
        board_cells(grid_layout(3, 2), "x.o/..")
