"""Roman tic-tac-toe (terni lapilli) and its relatives on the 3x3 grid.

Each player has three tokens, x first. While a player has fewer than three
on the board, a turn places one on an empty cell; after that, a turn moves
one of their own tokens. Three of one's own tokens in a row, column or
diagonal win at once. Passing is not allowed: a player with no legal move
loses (only possible when tokens step to neighbours). Positions can repeat,
so perpetual play is a draw without a distance.

Variants, by where a token may move:

* ``roman`` — to any empty cell (seed 000's rule);
* ``roman-adjacent`` — one step to an orthogonally adjacent empty cell
  (three men's morris);
* ``roman-lines`` — one step along the lines of the board: orthogonal steps,
  plus steps between the centre and a corner (tapatan).

The symmetries are the 8 of the square; each preserves the lines and both
step rules (checked when the game is built).

Notation: the board is the grid notation of :mod:`tablebase.games.mnk.rules`, rows
top to bottom separated by ``/`` (``x.o/.x./...``). In the movement phase
(all six tokens down) the board does not tell whose turn it is, so the
position string ends in `` x`` or `` o``: ``xo./.xo/o.x x``. In the placement
phase the suffix is not printed; it is accepted if it agrees with the counts.
A placement is a cell, ``b2``; a movement is ``from-to``, ``a1-b2``.
"""

from __future__ import annotations

from typing import Any

from tablebase.errors import UnknownVariantError
from tablebase.games.bitboard import grid_symmetries
from tablebase.games.layout import Layout, grid_layout
from tablebase.games.notation import bitboard_text, cell_name, parse_cell, parse_grid
from tablebase.games.mnk.rules import line_masks
from tablebase.games.common.tokens import TokenGame

#: Step rules: name -> description.
MOVE_RULES = {
    "any": "a token moves to any empty cell",
    "adjacent": "a token steps to an orthogonally adjacent empty cell",
    "lines": "a token steps along a line: orthogonally, or between the centre and a corner",
}


def grid_reach(rule: str) -> list[int] | None:
    """Bitmask of the cells a token on each cell of the 3x3 grid may step to (``None``: anywhere)."""
    if rule == "any":
        return None
    reach = []
    for c in range(9):
        col, row = c % 3, c // 3
        mask = 0
        for d in range(9):
            dc, dr = abs(d % 3 - col), abs(d // 3 - row)
            orthogonal = dc + dr == 1
            diagonal = dc == dr == 1 and 4 in (c, d)
            if orthogonal or (rule == "lines" and diagonal):
                mask |= 1 << d
        reach.append(mask)
    return reach


class RomanGame(TokenGame):
    """Roman tic-tac-toe on the 3x3 grid; ``move`` is ``"any"``, ``"adjacent"`` or ``"lines"``."""

    family = "roman"

    def __init__(self, move: str = "any", name: str | None = None):
        if move not in MOVE_RULES:
            raise UnknownVariantError(f"unknown move rule {move!r} (known: {', '.join(MOVE_RULES)})")
        self.move_rule = move
        self.cells = 9
        self.name = name or ("roman" if move == "any" else f"roman-{move}")
        self.rules = f"3x3, three tokens each, placed then moved ({MOVE_RULES[move]}); three in a row wins"
        self.perms = grid_symmetries(3, 3)
        self._init_tokens(line_masks(3, 3, 3), grid_reach(move))

    def parameters(self) -> dict[str, Any]:
        return {"move": self.move_rule}

    # -- notation ------------------------------------------------------------

    def cell_label(self, cell: int) -> str:
        return cell_name(cell, 3)

    def parse_cell_label(self, text: str) -> int | None:
        return parse_cell(text, 3, 3)

    def format_board_text(self, state: int) -> str:
        return bitboard_text(state, 3, 3)

    def parse_board_text(self, board: str, text: str) -> int:
        return parse_grid(text, board, 3, 3, self.name)

    def layout(self) -> Layout:
        """The 3x3 grid of :func:`grid_layout`; placements ``b2``, movements ``a1-b2``.

        The lines a token steps along are not drawn: ``edges`` join round
        spots (``shape: circle``), and square cells, which touch, show the
        grid itself.
        """
        return grid_layout(3, 3)

    def format_board(self, state: int) -> str:
        lines = ["   a b c"]
        for r, row in enumerate(self.format_board_text(state).split("/")):
            lines.append(f"{r + 1:>2} " + " ".join(row))
        lines.append(self.status_line(state))
        return "\n".join(lines)


def roman() -> RomanGame:
    """Roman tic-tac-toe: tokens move to any empty cell."""
    return RomanGame("any")


def roman_adjacent() -> RomanGame:
    """Three men's morris: tokens step orthogonally."""
    return RomanGame("adjacent")


def roman_lines() -> RomanGame:
    """Tapatan: tokens step along the lines, diagonals through the centre included."""
    return RomanGame("lines")


#: Fixed names this module registers, with their factories.
VARIANTS = {
    "roman": roman,
    "roman-adjacent": roman_adjacent,
    "roman-lines": roman_lines,
}

#: Variants built by ``tablebase build --all``.
CATALOG = ("roman", "roman-adjacent", "roman-lines")
