"""m,n,k games: tic-tac-toe and its relatives on boards up to 5x4.

``m`` columns, ``n`` rows, ``k`` marks in a row (across, down or diagonal)
win; x moves first. In the misère form, completing ``k`` in a row loses.
A full board without a line is a draw.

Positions are rows top to bottom separated by ``/``, cells ``x``, ``o`` and
``.``; the side to move follows from the counts (x when they are equal). A
move names a cell like a spreadsheet: ``b2`` is column b, row 2 from the top.
"""

from __future__ import annotations

import re
from typing import Any

from tablebase.errors import IllegalMoveError, MalformedPositionError, UnknownVariantError
from tablebase.games.base import (
    DRAW,
    LOSS,
    WIN,
    BitboardGame,
    Layout,
    Outcome,
    cell_name,
    grid_layout,
    grid_symmetries,
    parse_cell,
)

MAX_SIDE = 5
MAX_CELLS = 20


def line_masks(m: int, n: int, k: int) -> list[int]:
    """Bitmasks of every run of ``k`` cells in a row, column or diagonal."""
    masks = []
    for row in range(n):
        for col in range(m):
            for dc, dr in ((1, 0), (0, 1), (1, 1), (-1, 1)):
                cells = [(col + i * dc, row + i * dr) for i in range(k)]
                if all(0 <= c < m and 0 <= r < n for c, r in cells):
                    mask = 0
                    for c, r in cells:
                        mask |= 1 << (r * m + c)
                    masks.append(mask)
    return sorted(set(masks))


class MNKGame(BitboardGame):
    """An m,n,k game: ``m`` columns, ``n`` rows, ``k`` in a row wins (or loses, misère)."""

    family = "mnk"

    def __init__(self, m: int, n: int, k: int, misere: bool = False, name: str | None = None):
        if not (1 <= m <= MAX_SIDE and 1 <= n <= MAX_SIDE and m * n <= MAX_CELLS):
            raise UnknownVariantError(
                f"unsupported board {m}x{n}: columns and rows must be 1..{MAX_SIDE} "
                f"with at most {MAX_CELLS} cells"
            )
        if not 1 <= k <= max(m, n):
            raise UnknownVariantError(f"unsupported k={k} on a {m}x{n} board: k must be 1..{max(m, n)}")
        self.m, self.n, self.k, self.misere = m, n, k, misere
        self.cells = m * n
        self.name = name or f"mnk-{m}-{n}-{k}" + ("-misere" if misere else "")
        goal = "loses" if misere else "wins"
        self.rules = f"{m} columns x {n} rows, {k} in a row {goal}, x first"
        self.lines = line_masks(m, n, k)
        self.full = (1 << self.cells) - 1
        self.perms = grid_symmetries(m, n)
        self._init_symmetry()
        self._row_re = re.compile(r"^[xo.]*$")

    def parameters(self) -> dict[str, Any]:
        return {"m": self.m, "n": self.n, "k": self.k, "misere": self.misere}

    # -- rules ---------------------------------------------------------------

    def initial_state(self) -> int:
        return 0

    def to_move(self, state: int) -> str:
        xs = (state & self._mask).bit_count()
        os = (state >> self.cells).bit_count()
        return "x" if xs == os else "o"

    def has_line(self, bits: int) -> bool:
        """Whether the cells in ``bits`` contain ``k`` in a row."""
        return any(bits & line == line for line in self.lines)

    def outcome(self, state: int) -> Outcome | None:
        xs = state & self._mask
        os = state >> self.cells
        last = xs if xs.bit_count() > os.bit_count() else os
        if self.has_line(last):
            return WIN if self.misere else LOSS
        if xs | os == self.full:
            return DRAW
        return None

    def legal_moves(self, state: int) -> list[int]:
        occupied = (state | (state >> self.cells)) & self._mask
        return [c for c in range(self.cells) if not occupied >> c & 1]

    def apply(self, state: int, move: int) -> int:
        xs = (state & self._mask).bit_count()
        os = (state >> self.cells).bit_count()
        return state | (1 << (move if xs == os else move + self.cells))

    def transform_move(self, move: int, sym: int) -> int:
        return self.perms[sym][move]

    # -- notation ------------------------------------------------------------

    def format_position(self, state: int) -> str:
        rows = []
        for r in range(self.n):
            row = []
            for c in range(self.m):
                cell = r * self.m + c
                if state >> cell & 1:
                    row.append("x")
                elif state >> (cell + self.cells) & 1:
                    row.append("o")
                else:
                    row.append(".")
            rows.append("".join(row))
        return "/".join(rows)

    def parse_position(self, text: str) -> int:
        if not isinstance(text, str):
            raise MalformedPositionError(f"position must be a string, got {text!r}")
        board, side = text, None
        if " " in text:
            board, _, side = text.partition(" ")
            if side not in ("x", "o"):
                raise MalformedPositionError(
                    f"invalid position {text!r}: side to move must be 'x' or 'o', got {side!r}"
                )
        rows = board.split("/")
        if len(rows) != self.n:
            raise MalformedPositionError(
                f"invalid position {text!r}: {len(rows)} rows, {self.name} has {self.n} "
                f"(rows of {self.m} cells separated by '/')"
            )
        state = 0
        for r, row in enumerate(rows):
            if not self._row_re.match(row):
                bad = next(ch for ch in row if ch not in "xo.")
                raise MalformedPositionError(
                    f"invalid position {text!r}: bad character {bad!r} (cells are 'x', 'o' or '.')"
                )
            if len(row) != self.m:
                raise MalformedPositionError(
                    f"invalid position {text!r}: row {r + 1} has {len(row)} cells, {self.name} has {self.m}"
                )
            for c, ch in enumerate(row):
                cell = r * self.m + c
                if ch == "x":
                    state |= 1 << cell
                elif ch == "o":
                    state |= 1 << (cell + self.cells)
        xs, os = state & self._mask, state >> self.cells
        nx, no = xs.bit_count(), os.bit_count()
        if nx - no not in (0, 1):
            raise MalformedPositionError(
                f"invalid position {text!r}: {nx} x and {no} o; x moves first, so x has as many marks as o or one more"
            )
        x_line, o_line = self.has_line(xs), self.has_line(os)
        if x_line and o_line:
            raise MalformedPositionError(f"invalid position {text!r}: both sides have {self.k} in a row")
        if x_line and nx == no:
            raise MalformedPositionError(f"invalid position {text!r}: x has {self.k} in a row but o moved last")
        if o_line and nx != no:
            raise MalformedPositionError(f"invalid position {text!r}: o has {self.k} in a row but x moved last")
        if side is not None and side != self.to_move(state):
            raise MalformedPositionError(
                f"invalid position {text!r}: wrong side to move, the counts say {self.to_move(state)!r}"
            )
        return state

    def parse_move(self, state: int, text: str) -> int:
        cell = parse_cell(text, self.m, self.n) if isinstance(text, str) else None
        if cell is None:
            raise IllegalMoveError(
                f"invalid move {text!r}: expected a cell a1..{cell_name(self.cells - 1, self.m)}"
            )
        if self.outcome(state) is not None:
            raise IllegalMoveError(f"illegal move {text!r}: the game is over")
        if ((state | (state >> self.cells)) >> cell) & 1:
            raise IllegalMoveError(f"illegal move {text!r}: cell {text} is occupied")
        return cell

    def format_move(self, move: int) -> str:
        return cell_name(move, self.m)

    def format_board(self, state: int) -> str:
        letters = "".join(chr(ord("a") + c) for c in range(self.m))
        lines = ["   " + " ".join(letters)]
        for r, row in enumerate(self.format_position(state).split("/")):
            lines.append(f"{r + 1:>2} " + " ".join(row))
        return "\n".join(lines)

    def layout(self) -> Layout:
        return grid_layout(self.m, self.n)


def tictactoe() -> MNKGame:
    """Tic-tac-toe: 3x3, three in a row wins."""
    return MNKGame(3, 3, 3, name="tictactoe")


def tictactoe_misere() -> MNKGame:
    """Misère tic-tac-toe: 3x3, three in a row loses."""
    return MNKGame(3, 3, 3, misere=True, name="tictactoe-misere")


def from_name(name: str) -> MNKGame | None:
    """The game named ``mnk-M-N-K`` or ``mnk-M-N-K-misere``, or ``None`` if the name is not of that form."""
    match = re.fullmatch(r"mnk-(\d{1,3})-(\d{1,3})-(\d{1,3})(-misere)?", name)
    if not match:
        return None
    m, n, k = (int(g) for g in match.groups()[:3])
    return MNKGame(m, n, k, misere=bool(match.group(4)))


#: Fixed names this module registers, with their factories.
VARIANTS = {
    "tictactoe": tictactoe,
    "tictactoe-misere": tictactoe_misere,
}

#: Variants built by ``tablebase build --all``.
CATALOG = ("tictactoe", "tictactoe-misere", "mnk-3-3-2", "mnk-4-3-3")
