"""The board layout contract of ``Game.layout`` (tablebase/games/base.py), for every registered game.

Random games through each variant check that every position's board fits the
layout, that every legal move names cells of the layout, and that a move
changes what is on no cell but those it names (or, for a layout with
``click_moves``, those that click to it), and on a ``gravity`` layout that
a piece lands on the lowest empty cell of its column. Games without a layout
yet are skipped.
"""

from __future__ import annotations

import random

import pytest
from serve_support import TOY_FAMILY

from tablebase import games
from tablebase.games.base import Game, board_cells, grid_layout, split_move

VARIANTS = sorted({*games.names(), *games.catalog()})
TOYS = [factory() for factory in TOY_FAMILY.VARIANTS.values()]


def check_layout(game: Game, playouts: int = 30, seed: int = 7) -> None:
    layout = game.layout()
    if layout is None:
        pytest.skip(f"{game.name} has no layout yet")
    names = [c["name"] for c in layout["cells"]]
    assert len(set(names)) == len(names), "cell names must be unique"
    assert layout["shape"] in ("square", "circle")
    assert all(a in names and b in names for a, b in layout["edges"])
    assert set(layout["pieces"].values()) <= set(game.players) | set(layout["pieces"])
    regions = {r["name"]: r["cells"] for r in layout.get("regions", [])}
    in_regions = [c for cells in regions.values() for c in cells]
    assert len(set(in_regions)) == len(in_regions) and set(in_regions) <= set(names)
    click_moves = layout.get("click_moves", {})
    assert set(click_moves) <= set(names)
    clicked = {move: {c for c, m in click_moves.items() if m == move} for move in click_moves.values()}
    where = {c["name"]: (c["x"], c["y"]) for c in layout["cells"]}
    gravity = layout.get("gravity", False)
    if gravity:
        # every cell plays its column's move, and a column is the cells of one x
        assert set(click_moves) == set(names)
        assert all(len({where[c][0] for c in cells}) == 1 for cells in clicked.values())
        assert len({where[next(iter(cells))][0] for cells in clicked.values()}) == len(clicked)
    rng = random.Random(seed)
    for _ in range(playouts):
        state = game.initial_state()
        for _ in range(60):
            before = board_cells(layout, game.format_position(state))
            marks = game.board_marks(state)
            assert set(marks["active"]) | set(marks["owners"]) <= set(regions)
            assert set(marks["owners"].values()) <= set(game.players)
            assert set(marks.get("line", [])) <= set(names)
            if "line" in marks:
                assert game.outcome(state) is not None
            if game.outcome(state) is not None:
                break
            for move in game.legal_moves(state):
                text = game.format_move(move)
                # a one-click move need not name cells: it changes cells that a click plays it from
                cells = clicked[text] if text in clicked else set(split_move(layout, text)[1])
                after = board_cells(layout, game.format_position(game.apply(state, move)))
                changed = {c for c in names if before[c] != after[c]}
                assert changed and changed <= cells, (text, changed)
                if gravity:
                    # the piece falls to the lowest empty cell of its column
                    (cell,) = changed
                    assert where[cell][1] == max(where[c][1] for c in cells if before[c] is None), (text, cell)
            state = game.apply(state, rng.choice(game.legal_moves(state)))


@pytest.mark.parametrize("name", VARIANTS)
def test_registered_layouts_keep_the_contract(name: str) -> None:
    check_layout(games.get(name))


@pytest.mark.parametrize("game", TOYS, ids=lambda g: g.name)
def test_toy_layouts_keep_the_contract(game: Game) -> None:
    check_layout(game)


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
