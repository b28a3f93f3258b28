"""Grid notation: cells named like a spreadsheet, boards written as rows of ``x``, ``o`` and ``.``.

The position strings of the grid games read into x and o bitboards and
written back, their optional side to move, and the refusal of an empty position.
"""

from __future__ import annotations

from typing import Protocol

from tablebase.errors import MalformedPositionError


class PositionParser(Protocol):
    """What :func:`parse_position` reads of a game: its parser."""

    def parse_position(self, text: str) -> int: ...


def cell_name(cell: int, columns: int) -> str:
    """Spreadsheet name of a cell: column letter, row number from the top (``a1`` top-left)."""
    return f"{chr(ord('a') + cell % columns)}{cell // columns + 1}"


def parse_cell(text: str, columns: int, rows: int) -> int | None:
    """The cell index named by ``text`` (``"b2"``), or ``None`` if it names no cell."""
    if len(text) < 2 or not text[0].isalpha() or not (text[1:].isascii() and text[1:].isdigit()):
        return None
    col = ord(text[0].lower()) - ord("a")
    row = int(text[1:]) - 1
    if not (0 <= col < columns and 0 <= row < rows) or text[0] != text[0].lower():
        return None
    if text[1:] != str(row + 1):
        return None
    return row * columns + col


def parse_position(game: PositionParser, text: str) -> int:
    """``game.parse_position(text)``, refusing an empty string by name (only an absent position means the start)."""
    if text == "":
        raise MalformedPositionError("empty position ''; leave the position out for the start")
    return game.parse_position(text)


def split_side(text: str) -> tuple[str, str | None]:
    """``(board, side)`` of a position string with an optional side-to-move suffix (`` x`` or `` o``)."""
    if not isinstance(text, str):
        raise MalformedPositionError(f"position must be a string, got {text!r}")
    if " " not in text:
        return text, None
    board, _, side = text.partition(" ")
    if side not in ("x", "o"):
        raise MalformedPositionError(
            f"invalid position {text!r}: side to move must be 'x' or 'o' after one space, got {side!r}"
        )
    return board, side


def parse_grid(text: str, board: str, columns: int, rows: int, name: str) -> int:
    """The x and o bitboards (x in the low ``columns * rows`` bits) of a grid board string
    (rows top to bottom separated by ``/``, cells ``x``, ``o``, ``.``); ``text`` is the whole
    position, quoted in errors, and ``name`` the variant."""
    lines = board.split("/")
    if len(lines) != rows:
        raise MalformedPositionError(
            f"invalid position {text!r}: {len(lines)} rows, {name} has {rows} (rows of {columns} cells separated by '/')"
        )
    cells = columns * rows
    state = 0
    for r, row in enumerate(lines):
        bad = next((ch for ch in row if ch not in "xo."), None)
        if bad is not None:
            raise MalformedPositionError(f"invalid position {text!r}: bad character {bad!r} (cells are 'x', 'o' or '.')")
        if len(row) != columns:
            raise MalformedPositionError(f"invalid position {text!r}: row {r + 1} has {len(row)} cells, {name} has {columns}")
        for c, ch in enumerate(row):
            if ch == "x":
                state |= 1 << (r * columns + c)
            elif ch == "o":
                state |= 1 << (r * columns + c + cells)
    return state


def bitboard_text(state: int, columns: int, rows: int) -> str:
    """The grid text (rows top to bottom, ``/`` between them) of an x bitboard with the o bitboard above it."""
    cells = columns * rows
    marks = ["x" if state >> c & 1 else "o" if state >> (c + cells) & 1 else "." for c in range(cells)]
    return "/".join("".join(marks[r * columns : (r + 1) * columns]) for r in range(rows))
