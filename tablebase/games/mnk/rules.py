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
from functools import cached_property
from typing import TYPE_CHECKING, Any, Sequence

from tablebase.errors import IllegalMoveError, MalformedPositionError, UnknownVariantError
from tablebase.games.bitboard import BitboardGame, grid_symmetries
from tablebase.games.layout import BoardMarks, Layout, grid_layout
from tablebase.games.notation import cell_name, parse_cell, parse_grid
from tablebase.games.bitboard import set_bits
from tablebase.games.notation import split_side
from tablebase.outcome import DRAW, LOSS, WIN, Outcome

if TYPE_CHECKING:
    from tablebase.games.common.kernels import VectorKernels
    from tablebase.games.mnk.index import MNKIndex

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
        # the text of one row, indexed by its x bits | its o bits << m
        self._row_mask = (1 << m) - 1
        self._rows = [
            "".join("x" if x >> c & 1 else "o" if o >> c & 1 else "." for c in range(m))
            for o in range(1 << m)
            for x in range(1 << m)
        ]
        self._row_shifts = tuple(range(0, self.cells, m))
        # the bits of a well-formed row on the top row of the board, by its text
        self._row_bits = {
            text: x | o << self.cells for index, text in enumerate(self._rows) if not (x := index & self._row_mask) & (o := index >> m)
        }
        self._move_names = [cell_name(c, m) for c in range(self.cells)]
        self._dense: MNKIndex | None = None

    @cached_property
    def vector(self) -> VectorKernels:  # type: ignore[override]
        """The array kernels of this board (numpy is imported on first use only)."""
        from tablebase.games.mnk.kernels import MNKKernels

        return MNKKernels(self)

    def parameters(self) -> dict[str, Any]:
        return {"m": self.m, "n": self.n, "k": self.k, "misere": self.misere}

    # -- rules ---------------------------------------------------------------

    def initial_state(self) -> int:
        return 0

    def plies_played(self, state: int) -> int:
        return state.bit_count()

    def to_move(self, state: int) -> str:
        xs = (state & self._mask).bit_count()
        os = (state >> self.cells).bit_count()
        return "x" if xs == os else "o"

    def has_line(self, bits: int) -> bool:
        """Whether the cells in ``bits`` contain ``k`` in a row."""
        for line in self.lines:
            if bits & line == line:
                return True
        return False

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
        return set_bits(~(state | state >> self.cells) & self._mask)

    def apply(self, state: int, move: int) -> int:
        xs = (state & self._mask).bit_count()
        os = (state >> self.cells).bit_count()
        return state | (1 << (move if xs == os else move + self.cells))

    def unmoves(self, state: int) -> list[tuple[int, int]]:
        xs = state & self._mask
        os = state >> self.cells
        nx, no = xs.bit_count(), os.bit_count()
        if nx == 0:
            return []
        # the last mark was o's when the counts are equal, else x's
        last, shift = (os, self.cells) if nx == no else (xs, 0)
        found = []
        for cell in range(self.cells):
            if last >> cell & 1:
                parent = state & ~(1 << (cell + shift))
                if self.outcome(parent) is None:
                    found.append((parent, cell))
        return found

    def can_arise(self, state: int) -> bool:
        """Whether the marks can have been placed in turns from the empty board with no line before the
        last mark: the side to move has no line, and the lines of the side that just moved share a cell."""
        xs, os = state & self._mask, state >> self.cells
        last, other = (xs, os) if xs.bit_count() > os.bit_count() else (os, xs)
        if self.has_line(other):
            return False
        common = self._mask
        for line in self.lines:
            if last & line == line:
                common &= line
        return common != 0

    def dense_index(self) -> MNKIndex:
        """The dense index of this board's positions (:mod:`tablebase.games.mnk.index`)."""
        if self._dense is None:
            from tablebase.games.mnk.index import MNKIndex

            self._dense = MNKIndex(self.cells, self.k, self.misere, self.perms, self.lines)
        return self._dense

    def transform_move(self, move: int, sym: int) -> int:
        return self.perms[sym][move]

    # -- notation ------------------------------------------------------------

    def format_position(self, state: int) -> str:
        m, row_mask, rows = self.m, self._row_mask, self._rows
        xs, os = state & self._mask, state >> self.cells
        return "/".join([rows[(xs >> r & row_mask) | (os >> r & row_mask) << m] for r in self._row_shifts])

    def format_children(self, state: int, moves: Sequence[int]) -> list[str]:
        text, mark, m = self.format_position(state), self.to_move(state), self.m
        return [text[:i] + mark + text[i + 1 :] for i in [move + move // m for move in moves]]

    def parse_position(self, text: str) -> int:
        board, side = split_side(text)
        rows = board.split("/")
        if len(rows) != self.n:
            raise MalformedPositionError(
                f"invalid position {text!r}: {len(rows)} rows, {self.name} has {self.n} "
                f"(rows of {self.m} cells separated by '/')"
            )
        state = 0
        row_bits = self._row_bits
        for row, shift in zip(rows, self._row_shifts):
            bits = row_bits.get(row)
            if bits is None:
                state = self._parse_rows(text, rows)
                break
            state |= bits << shift
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

    def _parse_rows(self, text: str, rows: list[str]) -> int:
        """The marks of ``rows`` one character at a time, naming the first problem."""
        return parse_grid(text, "/".join(rows), self.m, self.n, self.name)

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
        return self._move_names[move]

    def format_board(self, state: int) -> str:
        letters = "".join(chr(ord("a") + c) for c in range(self.m))
        lines = ["   " + " ".join(letters)]
        for r, row in enumerate(self.format_position(state).split("/")):
            lines.append(f"{r + 1:>2} " + " ".join(row))
        return "\n".join(lines)

    def layout(self) -> Layout:
        return grid_layout(self.m, self.n)

    def board_marks(self, state: int) -> BoardMarks:
        """No regions; ``line``: the cells of the ``k`` in a row that ended the game, if one did."""
        marks: BoardMarks = {"active": [], "owners": {}}
        for bits in (state & self._mask, state >> self.cells):
            done = next((line for line in self.lines if bits & line == line), None)
            if done is not None:
                marks["line"] = [self._move_names[c] for c in range(self.cells) if done >> c & 1]
                break
        return marks


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

#: Usual sizes ``tablebase variants`` lists besides the fixed names.
USUAL = ("mnk-2-2-2", "mnk-3-3-2", "mnk-4-3-3", "mnk-4-4-3", "mnk-4-4-4")

#: How to name other sizes.
NAMING = "mnk-M-N-K[-misere]: M columns, N rows, K in a row (e.g. mnk-5-4-4)"
