"""Shared rules of "place, then move" games: Roman tic-tac-toe and Rota.

Not a family of its own (it registers no variant): :class:`TokenGame` holds
the rules the two families have in common, and each family module supplies
the board (cells, lines, which cells a token may step to, symmetries) and its
notation.

The rules: each player owns :attr:`~TokenGame.tokens` tokens, x moves first.
While a player has fewer than that on the board, a turn places one on an
empty cell; after that, a turn moves one of their own tokens to an empty cell
it may reach (any empty cell, or one step along the board's lines, depending
on the variant). Passing is not allowed: a player who cannot move loses.
Owning every cell of a line wins at once, so the player who just moved is the
only one who can have a line.

State encoding (an ``int``): bit ``c`` is an x on cell ``c``, bit
``cells + c`` an o on cell ``c`` (as in :class:`BitboardGame`), and bit
``2 * cells`` is set when o is to move. The side bit is part of every state,
so in the movement phase (both players have all their tokens down) the same
board with x to move and with o to move are two states. Cell symmetries leave
it unchanged.

Move encoding: a placement on cell ``c`` is ``c``; moving a token from
``a`` to ``b`` is ``(a + 1) * cells + b``.

Position strings are ``BOARD`` in the placement phase and ``BOARD SIDE`` in
the movement phase, where ``SIDE`` is ``x`` or ``o``. The board notation is
the family's. Parsing accepts the side suffix in the placement phase too and
checks it against the counts (x to move when both have placed as many
tokens, o when x has one more); in the movement phase it is required.
:meth:`~TokenGame.format_position` prints it exactly when it is required,
so ``format_position(parse_position(s)) == s`` for every position string in
that normal form.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import ClassVar, Sequence

from tablebase.errors import IllegalMoveError, MalformedPositionError
from tablebase.games.base import LOSS, Outcome
from tablebase.games.bitboard import BitboardGame
from tablebase.games.notation import split_side


class TokenGame(BitboardGame):
    """Place ``tokens`` tokens each, then move them; a line of one's own wins; no move loses.

    Subclasses set :attr:`cells`, :attr:`perms`, call :meth:`_init_tokens`
    with the winning lines and the step rule, and implement the board
    notation (:meth:`cell_label`, :meth:`parse_cell_label`,
    :meth:`format_board_text`, :meth:`parse_board_text`).
    """

    cyclic: ClassVar[bool] = True
    tokens: int = 3
    #: Word for one line in messages, e.g. ``"three in a row"``.
    line_word: str = "three in a row"

    def _init_tokens(self, lines: Sequence[int], reach: Sequence[int] | None) -> None:
        """Set the winning lines (cell bitmasks) and the step rule.

        ``reach[c]`` is the bitmask of cells a token on ``c`` may move to when
        empty; ``None`` means any empty cell.
        """
        n = self.cells
        self._init_symmetry()
        self.lines = tuple(lines)
        self.reach = tuple(reach) if reach is not None else tuple(self._mask & ~(1 << c) for c in range(n))
        self.side_bit = 1 << (2 * n)
        for p in self.perms:
            for c in range(n):
                image = sum(1 << p[d] for d in range(n) if self.reach[c] >> d & 1)
                if image != self.reach[p[c]]:
                    raise ValueError(f"{self.name}: symmetry {p} does not preserve the moves")
            if sorted(sum(1 << p[d] for d in range(n) if line >> d & 1) for line in self.lines) != sorted(self.lines):
                raise ValueError(f"{self.name}: symmetry {p} does not preserve the lines")

    # -- board notation (per family) -------------------------------------------

    @abstractmethod
    def cell_label(self, cell: int) -> str:
        """The name of ``cell`` in moves (``b2`` on a grid, ``3`` on the Rota wheel)."""

    @abstractmethod
    def parse_cell_label(self, text: str) -> int | None:
        """The cell named ``text``, or ``None``."""

    @abstractmethod
    def format_board_text(self, state: int) -> str:
        """The board part of the position string."""

    @abstractmethod
    def parse_board_text(self, board: str, text: str) -> int:
        """Cells of the board part (side bit clear); ``text`` is the whole input, for messages."""

    def cell_range(self) -> str:
        """How the cells are named, for error messages."""
        return f"{self.cell_label(0)}..{self.cell_label(self.cells - 1)}"

    # -- rules -----------------------------------------------------------------

    def initial_state(self) -> int:
        return 0

    def to_move(self, state: int) -> str:
        return "o" if state & self.side_bit else "x"

    def _own_other(self, state: int) -> tuple[int, int]:
        """Bitboards of the side to move and of the other side."""
        xs = state & self._mask
        os = (state >> self.cells) & self._mask
        return (os, xs) if state & self.side_bit else (xs, os)

    def has_line(self, bits: int) -> bool:
        """Whether the cells in ``bits`` fill a winning line."""
        return any(bits & line == line for line in self.lines)

    def in_movement_phase(self, state: int) -> bool:
        """Whether both players have all their tokens on the board."""
        xs = state & self._mask
        os = (state >> self.cells) & self._mask
        return xs.bit_count() == self.tokens and os.bit_count() == self.tokens

    def outcome(self, state: int) -> Outcome | None:
        own, other = self._own_other(state)
        if self.has_line(other):
            return LOSS
        if own.bit_count() == self.tokens and not self._steps(own, other):
            return LOSS
        return None

    def _steps(self, own: int, other: int) -> list[int]:
        empty = self._mask & ~(own | other)
        n = self.cells
        moves: list[int] = []
        for a in range(n):
            if own >> a & 1:
                targets = self.reach[a] & empty
                base = (a + 1) * n
                moves.extend(base + b for b in range(n) if targets >> b & 1)
        return moves

    def legal_moves(self, state: int) -> list[int]:
        own, other = self._own_other(state)
        if self.has_line(other):
            return []
        if own.bit_count() < self.tokens:
            empty = self._mask & ~(own | other)
            return [c for c in range(self.cells) if empty >> c & 1]
        return self._steps(own, other)

    def apply(self, state: int, move: int) -> int:
        n = self.cells
        shift = n if state & self.side_bit else 0
        if move >= n:
            state &= ~(1 << (move // n - 1 + shift))
        return (state | 1 << (move % n + shift)) ^ self.side_bit

    def unmoves(self, state: int) -> list[tuple[int, int]]:
        n = self.cells
        parent_side = state & self.side_bit ^ self.side_bit
        shift = n if parent_side else 0
        mover = (state >> shift) & self._mask
        empty = self._mask & ~(state | state >> n)
        base = state & ~self.side_bit | parent_side
        # a token move needs all of the mover's tokens down, with the turn order intact before it
        slid = mover.bit_count() == self.tokens and self._turn_agrees(base)
        found = []
        for b in range(n):
            if not mover >> b & 1:
                continue
            without = base & ~(1 << (b + shift))
            if self._turn_agrees(without) and self.outcome(without) is None:
                found.append((without, b))
            if slid:
                for a in range(n):
                    if empty >> a & 1 and self.reach[a] >> b & 1:
                        parent = without | 1 << (a + shift)
                        if self.outcome(parent) is None:
                            found.append((parent, (a + 1) * n + b))
        return found

    def _turn_agrees(self, state: int) -> bool:
        """Whether the side to move of ``state`` is possible with its token counts (x places first)."""
        nx = (state & self._mask).bit_count()
        no = (state >> self.cells & self._mask).bit_count()
        if nx == no == self.tokens:
            return True
        return nx - no == (1 if state & self.side_bit else 0)

    def transform_move(self, move: int, sym: int) -> int:
        p = self.cell_permutation(sym)
        n = self.cells
        if move < n:
            return p[move]
        return (p[move // n - 1] + 1) * n + p[move % n]

    @staticmethod
    def move_cells(move: int, cells: int) -> tuple[int | None, int]:
        """``(from, to)`` of a move; ``from`` is ``None`` for a placement."""
        if move < cells:
            return None, move
        return move // cells - 1, move % cells

    # -- notation --------------------------------------------------------------

    def format_position(self, state: int) -> str:
        board = self.format_board_text(state)
        if self.in_movement_phase(state):
            return f"{board} {self.to_move(state)}"
        return board

    def parse_position(self, text: str) -> int:
        board, side = split_side(text)
        state = self.parse_board_text(board, text)
        xs = state & self._mask
        os = (state >> self.cells) & self._mask
        nx, no = xs.bit_count(), os.bit_count()
        t = self.tokens
        if nx > t or no > t:
            who, count = ("x", nx) if nx > t else ("o", no)
            raise MalformedPositionError(
                f"invalid position {text!r}: {who} has {count} tokens, each side has only {t}"
            )
        if nx - no not in (0, 1):
            raise MalformedPositionError(
                f"invalid position {text!r}: {nx} x and {no} o; x places first, "
                f"so x has as many tokens as o or one more"
            )
        if nx == t and no == t:
            if side is None:
                raise MalformedPositionError(
                    f"invalid position {text!r}: side to move missing; all tokens are down, "
                    f"so add ' x' or ' o' after the board"
                )
        else:
            counted = "x" if nx == no else "o"
            if side is not None and side != counted:
                raise MalformedPositionError(
                    f"invalid position {text!r}: wrong side to move, the counts say {counted!r}"
                )
            side = counted
        x_line, o_line = self.has_line(xs), self.has_line(os)
        if x_line and o_line:
            raise MalformedPositionError(f"invalid position {text!r}: both sides have {self.line_word}")
        if (x_line and side == "x") or (o_line and side == "o"):
            raise MalformedPositionError(
                f"invalid position {text!r}: {side} has {self.line_word}, "
                f"so the game ended before it was {side}'s turn"
            )
        return state | (self.side_bit if side == "o" else 0)

    def parse_move(self, state: int, text: str) -> int:
        if not isinstance(text, str):
            raise IllegalMoveError(f"invalid move {text!r}: expected a string")
        src_text, dash, dst_text = text.partition("-")
        dst = self.parse_cell_label(dst_text if dash else text)
        src = self.parse_cell_label(src_text) if dash else None
        if dst is None or (dash and src is None):
            example = f"{self.cell_label(0)}-{self.cell_label(1)}"
            raise IllegalMoveError(
                f"invalid move {text!r}: expected a cell {self.cell_range()} to place a token "
                f"or from-to like {example} to move one"
            )
        if self.outcome(state) is not None:
            raise IllegalMoveError(f"illegal move {text!r}: the game is over")
        side = self.to_move(state)
        own, other = self._own_other(state)
        placing = own.bit_count() < self.tokens
        if placing and src is not None:
            raise IllegalMoveError(
                f"illegal move {text!r}: {side} still has tokens to place; name an empty cell"
            )
        if not placing and src is None:
            raise IllegalMoveError(
                f"illegal move {text!r}: {side} has placed all {self.tokens} tokens and must move one (from-to)"
            )
        if src is not None:
            if not own >> src & 1:
                holds = "is empty" if not other >> src & 1 else f"holds a token of {'o' if side == 'x' else 'x'}"
                raise IllegalMoveError(f"illegal move {text!r}: {src_text} {holds}, not a token of {side}")
        if (own | other) >> dst & 1:
            raise IllegalMoveError(f"illegal move {text!r}: {self.cell_label(dst)} is occupied")
        if src is None:
            return dst
        if not self.reach[src] >> dst & 1:
            raise IllegalMoveError(
                f"illegal move {text!r}: {self.cell_label(dst)} is not next to {self.cell_label(src)}"
            )
        return (src + 1) * self.cells + dst

    def format_move(self, move: int) -> str:
        src, dst = self.move_cells(move, self.cells)
        if src is None:
            return self.cell_label(dst)
        return f"{self.cell_label(src)}-{self.cell_label(dst)}"

    def status_line(self, state: int) -> str:
        """One line under the board picture: whose turn, or how the game ended."""
        side = self.to_move(state)
        other = "o" if side == "x" else "x"
        own, their = self._own_other(state)
        if self.has_line(their):
            return f"{other} has {self.line_word}: {other} wins"
        if own.bit_count() == self.tokens and not self._steps(own, their):
            return f"{side} to move has no move: {other} wins"
        phase = "moves" if own.bit_count() == self.tokens else "places"
        return f"{side} {phase}"
