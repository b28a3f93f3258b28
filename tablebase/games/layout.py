"""Board layouts: the game-agnostic picture of a board that clients draw and play from.

The types of :meth:`tablebase.games.base.Game.layout` and
:meth:`~tablebase.games.base.Game.board_marks`, the layout of a grid, and the
reference readers of a position and a move against a layout.
"""

from __future__ import annotations

from typing import Literal, TypedDict

from typing_extensions import NotRequired

from tablebase.games.notation import cell_name


class LayoutCell(TypedDict):
    """One cell of a :class:`Layout`: its name in move strings and where its centre is drawn."""

    name: str
    x: float
    y: float


class LayoutRegion(TypedDict):
    """A named group of cells of a :class:`Layout` (one of Ultimate's nine fields)."""

    name: str
    cells: list[str]


class Layout(TypedDict):
    """A game-agnostic picture of a board; see :meth:`tablebase.games.base.Game.layout` for the contract."""

    cells: list[LayoutCell]
    shape: Literal["square", "circle"]
    edges: list[tuple[str, str]]
    separators: str
    empty: str
    pieces: dict[str, str]
    move_separator: str
    removal_separator: NotRequired[str]
    regions: NotRequired[list[LayoutRegion]]
    click_moves: NotRequired[dict[str, str]]
    gravity: NotRequired[bool]


class BoardMarks(TypedDict):
    """What a drawing of one position shows on the regions of its layout; see :meth:`tablebase.games.base.Game.board_marks`."""

    active: list[str]
    owners: dict[str, str]
    line: NotRequired[list[str]]


def grid_layout(columns: int, rows: int) -> Layout:
    """The :class:`Layout` of a ``columns`` x ``rows`` grid named like a spreadsheet.

    Cells are in row-major order (the order of the position string), ``a1``
    top-left at ``(0, 0)``; positions write rows top to bottom separated by
    ``/`` with ``x``, ``o`` and ``.``; moves are cells joined by ``-``.
    """
    return {
        "cells": [
            {"name": cell_name(c, columns), "x": float(c % columns), "y": float(c // columns)}
            for c in range(columns * rows)
        ],
        "shape": "square",
        "edges": [],
        "separators": "/",
        "empty": ".",
        "pieces": {"x": "x", "o": "o"},
        "move_separator": "-",
    }


def board_cells(layout: Layout, position: str) -> dict[str, str | None]:
    """Reference reader of a layout: the player on each cell of ``position`` (``None``: empty).

    Raises ``ValueError`` when the position does not fit the layout.
    """
    board = position.split(" ", 1)[0]
    for sep in layout["separators"]:
        board = board.replace(sep, "")
    cells = layout["cells"]
    if len(board) != len(cells):
        raise ValueError(f"position {position!r} has {len(board)} board characters, the layout {len(cells)} cells")
    out: dict[str, str | None] = {}
    for cell, ch in zip(cells, board):
        if ch == layout["empty"]:
            out[cell["name"]] = None
        elif ch in layout["pieces"]:
            out[cell["name"]] = layout["pieces"][ch]
        else:
            raise ValueError(f"position {position!r}: character {ch!r} is neither empty nor a piece")
    return out


def split_move(layout: Layout, move: str) -> tuple[str, tuple[str, ...]]:
    """Reference reader of a layout: ``(label, cells)`` of a move string.

    >>> split_move(grid_layout(3, 3), "xb2")
    ('x', ('b2',))

    Raises ``ValueError`` when the move does not fit the layout.
    """
    names = {cell["name"] for cell in layout["cells"]}
    removal = layout.get("removal_separator")
    removed: list[str] = []
    if removal and removal in move:
        move_part, _, taken = move.rpartition(removal)
        if move_part and taken in names:
            move, removed = move_part, [taken]
    first, *rest = move.split(layout["move_separator"])
    rest += removed
    for start in range(len(first)):
        if first[start:] in names:
            label, cells = first[:start], (first[start:], *rest)
            break
    else:
        raise ValueError(f"move {move!r} does not start with a cell of the layout")
    unknown = [c for c in cells if c not in names]
    if unknown:
        raise ValueError(f"move {move!r} names {unknown[0]!r}, which is not a cell of the layout")
    return label, cells
