"""Wild tic-tac-toe (seed 002) and its misère form.

3x3 grid. On each turn a player places either an x or an o on any empty
cell. Whoever completes three identical marks in a row, column or diagonal
wins (the player who moved, whichever mark it was); in ``wild-misere`` that
player loses instead. A full board without a line is a draw.

The players are ``first`` and ``second``; the side to move follows from the
number of marks (``first`` when it is even), so positions carry no side
suffix.

Symmetry: the 8 of the square, times exchanging every x with an o (either
player may place either mark, so the swapped position is the same game):
16 symmetries. Every image of a reachable board under them is another
reachable board, so the sum of orbit sizes over the representatives is
exactly the number of distinct reachable boards, the count without symmetry.

Notation: the board as in :mod:`tablebase.games.mnk.rules`, rows top to bottom
separated by ``/`` (``o../oxo/.xx``); any number of each mark is allowed. A
trailing `` first`` or `` second`` is accepted if it agrees with the count,
and never printed. A move is a mark and a cell: ``xb2``, ``ob2``.

State encoding: bit ``c`` is an x on cell ``c``, bit ``9 + c`` an o on cell
``c``. A move is the bit it sets: ``c`` places an x on ``c``, ``9 + c`` an o.
"""

from __future__ import annotations

from functools import partial
from typing import Any, ClassVar

from tablebase.errors import IllegalMoveError, MalformedPositionError
from tablebase.games.bitboard import BitboardGame, grid_symmetries
from tablebase.games.layout import BoardMarks, Layout, grid_layout
from tablebase.games.notation import bitboard_text, cell_name
from tablebase.games.notation import parse_cell, parse_grid
from tablebase.outcome import DRAW, LOSS, WIN, Outcome
from tablebase.games.mnk.rules import line_masks

MARKS = "xo"


class WildGame(BitboardGame):
    """Wild tic-tac-toe: either mark on any empty cell; completing a line wins (loses, misère)."""

    family = "wild"
    players: ClassVar[tuple[str, str]] = ("first", "second")
    colour_swap = True

    def __init__(self, misere: bool = False, name: str | None = None):
        self.misere = misere
        self.cells = 9
        self.name = name or ("wild-misere" if misere else "wild")
        goal = "loses" if misere else "wins"
        self.rules = f"3x3, each turn place an x or an o; completing three identical marks in a row {goal}"
        self.lines = tuple(line_masks(3, 3, 3))
        self.full = (1 << 9) - 1
        self.perms = grid_symmetries(3, 3)
        self._init_symmetry()

    def parameters(self) -> dict[str, Any]:
        return {"misere": self.misere}

    # -- rules ---------------------------------------------------------------

    def initial_state(self) -> int:
        return 0

    def plies_played(self, state: int) -> int:
        return state.bit_count()

    def to_move(self, state: int) -> str:
        return self.players[self.plies_played(state) % 2]

    def line_cells(self, state: int) -> list[int]:
        """The lines (bitmasks) filled with one mark, x lines first."""
        xs, os = state & self.full, state >> 9
        return [line for bits in (xs, os) for line in self.lines if bits & line == line]

    def outcome(self, state: int) -> Outcome | None:
        xs, os = state & self.full, state >> 9
        for line in self.lines:
            if xs & line == line or os & line == line:
                return WIN if self.misere else LOSS
        if xs | os == self.full:
            return DRAW
        return None

    def legal_moves(self, state: int) -> list[int]:
        if self.outcome(state) is not None:
            return []
        occupied = (state | state >> 9) & self.full
        return [c + 9 * k for c in range(9) if not occupied >> c & 1 for k in (0, 1)]

    def apply(self, state: int, move: int) -> int:
        return state | 1 << move

    def unmoves(self, state: int) -> list[tuple[int, int]]:
        found = []
        for move in range(2 * self.cells):
            if state >> move & 1:
                parent = state & ~(1 << move)
                if self.outcome(parent) is None:
                    found.append((parent, move))
        return found

    def transform_move(self, move: int, sym: int) -> int:
        cell, mark = move % 9, move // 9
        if self.swaps_colours(sym):
            mark ^= 1
        return self.cell_permutation(sym)[cell] + 9 * mark

    # -- notation ------------------------------------------------------------

    def format_position(self, state: int) -> str:
        return bitboard_text(state, 3, 3)

    def parse_position(self, text: str) -> int:
        if not isinstance(text, str):
            raise MalformedPositionError(f"position must be a string, got {text!r}")
        board, side = text, None
        if " " in text:
            board, _, side = text.partition(" ")
            if side not in self.players:
                raise MalformedPositionError(
                    f"invalid position {text!r}: side to move must be 'first' or 'second' after one space, "
                    f"got {side!r} (it follows from the number of marks and can be left out)"
                )
        state = parse_grid(text, board, 3, 3, self.name)
        xs, os = state & self.full, state >> 9
        x_line = any(xs & line == line for line in self.lines)
        o_line = any(os & line == line for line in self.lines)
        if x_line and o_line:
            raise MalformedPositionError(
                f"invalid position {text!r}: both x and o have three in a row; the game ends at the first line"
            )
        lines = self.line_cells(state)
        if lines:
            common = self.full
            for line in lines:
                common &= line
            if not common:
                mark = "x" if x_line else "o"
                raise MalformedPositionError(
                    f"invalid position {text!r}: separate lines of {mark} that no single move completes together"
                )
        if side is not None and side != self.to_move(state):
            raise MalformedPositionError(
                f"invalid position {text!r}: wrong side to move, the number of marks says {self.to_move(state)!r}"
            )
        return state

    def parse_move(self, state: int, text: str) -> int:
        cell = None
        if isinstance(text, str) and len(text) >= 3 and text[0] in MARKS:
            cell = parse_cell(text[1:], 3, 3)
        if cell is None:
            raise IllegalMoveError(
                f"invalid move {text!r}: expected a mark and a cell, like xb2 or ob2 (cells a1..c3)"
            )
        if self.outcome(state) is not None:
            raise IllegalMoveError(f"illegal move {text!r}: the game is over")
        if ((state | state >> 9) >> cell) & 1:
            raise IllegalMoveError(f"illegal move {text!r}: {text[1:]} is occupied")
        return cell + 9 * MARKS.index(text[0])

    def format_move(self, move: int) -> str:
        return MARKS[move // 9] + cell_name(move % 9, 3)

    def layout(self) -> Layout:
        """The 3x3 grid of :func:`grid_layout`.

        Its ``pieces`` name the marks ``x`` and ``o``, which belong to neither
        player; a move's mark is its label (``xb2``, ``ob2``), so a client asks
        which mark when a cell is clicked.
        """
        return grid_layout(3, 3)

    def board_marks(self, state: int) -> BoardMarks:
        """No regions; ``line``: the cells of the three in a row that ended the game, if one did."""
        marks: BoardMarks = {"active": [], "owners": {}}
        done = self.line_cells(state)
        if done:
            marks["line"] = [cell_name(c, 3) for c in range(9) if done[0] >> c & 1]
        return marks

    def format_board(self, state: int) -> str:
        lines = ["   a b c"]
        for r, row in enumerate(self.format_position(state).split("/")):
            lines.append(f"{r + 1:>2} " + " ".join(row))
        result = self.outcome(state)
        side = self.to_move(state)
        other = self.players[1 - self.players.index(side)]
        if result is None:
            lines.append(f"{side} to move")
        elif result == DRAW:
            lines.append("full board: draw")
        else:
            winner = side if result == WIN else other
            lines.append(f"{other} completed a line: {winner} wins")
        return "\n".join(lines)


#: Fixed names this module registers, with their factories (``build --all`` builds them all).
VARIANTS = {
    "wild": partial(WildGame, misere=False),
    "wild-misere": partial(WildGame, misere=True),
}
