"""Connect Four: discs dropped into columns, four in a row wins.

``W`` columns and ``H`` rows (4..7 each); a move drops a disc into a column
that is not full, where it falls to the lowest free cell. Four of one
player's discs in a row across, down or diagonally win; x moves first; a
full board without a four is a draw. The one symmetry is the left-right
mirror.

A state is one integer, column-major with ``H + 1`` bits per column: column
``c`` (0 the leftmost) owns bits ``c * (H + 1)`` up to ``(c + 1) * (H + 1)``;
with ``h`` discs in it, bit ``c * (H + 1) + h`` is set (the sentinel) and for
``r < h`` bit ``c * (H + 1) + r`` is 1 when the disc on row ``r`` (0 at the
bottom) is x's. The empty board has only the sentinels of empty columns.

Positions are written as grid text (rows top to bottom separated by ``/``,
cells ``x``, ``o`` and ``.``) and can be entered as such or as the columns
played from the empty board, ``1`` the leftmost (``4453``). A move is the
digit of its column.
"""

from __future__ import annotations

import re
from importlib import resources
from functools import cached_property
from typing import TYPE_CHECKING, Any, Sequence

from tablebase.errors import IllegalMoveError, MalformedPositionError, TablebaseError, UnknownVariantError
from tablebase.games.base import Game
from tablebase.games.layout import BoardMarks, Layout, grid_layout
from tablebase.games.notation import cell_name, split_side
from tablebase.games.common.compiled import announce_compile
from tablebase.games.connect4.bits import has_four as has_four
from tablebase.games.connect4.bits import to_bitboards as to_bitboards
from tablebase.outcome import DRAW, LOSS, Outcome

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

    from tablebase.games.compiled_search import CompiledSearch
    from tablebase.games.connect4.index import Connect4Index
    from tablebase.games.common.kernels import VectorKernels

MIN_SIDE = 4
MAX_SIDE = 7
#: The largest board the builders enumerate (6x5 and 5x6; 6x5's 2,818,972,642 positions take
#: about 6 minutes and 6 GB on 2 cores over the dense index).
MAX_ENUMERABLE_CELLS = 30

#: The board whose opening table the package ships, and the file's name in the data folder
#: (written by ``tablebase opening connect4 --export``).
OPENING_BOARD = (7, 6)
OPENING_FILE = "opening-7x6.tsv.gz"
#: About how long compiling the prover takes (seconds of one core) when numba's cache lacks it.
PROVER_COMPILE_SECONDS = 8

_DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))


class Connect4Game(Game):
    """Connect Four on ``columns`` x ``rows`` (bottom row 0)."""

    family = "connect4"

    def __init__(self, columns: int, rows: int, name: str | None = None):
        if not (MIN_SIDE <= columns <= MAX_SIDE and MIN_SIDE <= rows <= MAX_SIDE):
            raise UnknownVariantError(
                f"unsupported board {columns}x{rows}: columns and rows must be {MIN_SIDE}..{MAX_SIDE}"
            )
        self.columns, self.rows = columns, rows
        self.cells = columns * rows
        self.name = name or f"connect4-{columns}-{rows}"
        self.rules = f"{columns} columns x {rows} rows, discs fall, four in a row wins, x first"
        self._height = rows + 1
        self._column = (1 << self._height) - 1
        self._shifts = tuple(c * self._height for c in range(columns))
        self._empty = sum(1 << shift for shift in self._shifts)
        self._digits = [str(c + 1) for c in range(columns)]
        # per row of the grid text (top first), the state bit of each of its cells
        self._lines = self._line_masks()
        # bit masks of the cells of each row (0 the bottom) and of the slot above the top row, across all columns
        rows_at = [sum(1 << shift + r for shift in self._shifts) for r in range(self._height)]
        self._tops = rows_at[rows]
        # the smear from each column's sentinel downwards: by 1, 2 and 4 rows, never across columns
        self._smears = tuple(sum(rows_at[: self._height - step]) for step in (1, 2, 4))
        self._below_top = sum(rows_at[:rows])
        # each column block's cells, top row first, as text
        self._block_text = [
            "".join(
                "." if r >= (h := max(b.bit_length() - 1, 0)) else "x" if b >> r & 1 else "o" for r in reversed(range(rows))
            )
            for b in range(1 << self._height)
        ]
        # the block of each column text (top row first) with no disc floating
        self._column_blocks = {self._block_text[b]: b for b in range(1, 1 << self._height)}
        self._dense: Connect4Index | None = None

    @cached_property
    def vector(self) -> VectorKernels:  # type: ignore[override]
        """The array kernels of this board (numpy is imported on first use only)."""
        from tablebase.games.connect4.kernels import Connect4Kernels

        return Connect4Kernels(self)

    def _line_masks(self) -> list[int]:
        """Bitmasks (on the state's bits) of every four cells in a row."""
        masks = []
        for c in range(self.columns):
            for r in range(self.rows):
                for dc, dr in _DIRECTIONS:
                    cells = [(c + i * dc, r + i * dr) for i in range(4)]
                    if all(0 <= cc < self.columns and 0 <= rr < self.rows for cc, rr in cells):
                        masks.append(sum(1 << self._shifts[cc] + rr for cc, rr in cells))
        return masks

    def parameters(self) -> dict[str, Any]:
        return {"columns": self.columns, "rows": self.rows}

    def size_bound(self, symmetry: bool = True) -> int | None:
        # every column holds 0..rows discs, each x or o
        return int((2**self._height - 1) ** self.columns) // (2 if symmetry else 1) + 1

    # -- rules ---------------------------------------------------------------

    def initial_state(self) -> int:
        return self._empty

    def _heights(self, state: int) -> list[int]:
        state, column = int(state), self._column
        return [(state >> shift & column).bit_length() - 1 for shift in self._shifts]

    def disc_mask(self, state: int) -> int:
        """The cells holding a disc, on the bits of the state (the bits below each column's sentinel)."""
        state = int(state)
        one, two, four = self._smears
        state |= state >> 1 & one
        state |= state >> 2 & two
        state |= state >> 4 & four
        return state >> 1 & self._below_top

    def plies_played(self, state: int) -> int:
        return self.disc_mask(state).bit_count()

    def max_plies(self, state: int) -> int:
        return self.cells - self.plies_played(state)

    def to_move(self, state: int) -> str:
        return "x" if self.plies_played(state) % 2 == 0 else "o"

    def _last_four(self, state: int) -> int:
        """The discs of the player who moved last, if they hold four in a row, else 0."""
        mask = self.disc_mask(state)
        last = state & mask if mask.bit_count() % 2 else ~state & mask
        return last if has_four(last, self.rows) else 0

    def outcome(self, state: int) -> Outcome | None:
        if self._last_four(state):
            return LOSS
        if self.plies_played(state) == self.cells:
            return DRAW
        return None

    def legal_moves(self, state: int) -> list[int]:
        if self._last_four(state):
            return []
        top = self.rows
        return [c for c, shift in enumerate(self._shifts) if not state >> shift + top & 1]

    def apply(self, state: int, move: int) -> int:
        mask = self.disc_mask(state)
        # the column's sentinel: its bit not below the sentinel
        bit = state & ~mask & self._column << self._shifts[move]
        # x: the sentinel stays as x's disc and a new one goes above; o: the sentinel carries up
        return state | bit << 1 if mask.bit_count() % 2 == 0 else state + bit

    def unmoves(self, state: int) -> list[tuple[int, int]]:
        heights = self._heights(state)
        plies = sum(heights)
        if plies == 0:
            return []
        last_is_x = plies % 2 == 1
        found = []
        for c, h in enumerate(heights):
            if h == 0:
                continue
            top = self._shifts[c] + h - 1
            if bool(state >> top & 1) != last_is_x:
                continue
            parent = (state & ~(0b11 << top)) | 1 << top
            x_bits, mask = to_bitboards(parent, self.columns, self.rows)
            # play stops at a four, so neither side has one before the last move
            if not (has_four(x_bits, self.rows) or has_four(mask ^ x_bits, self.rows)):
                found.append((parent, c))
        return found

    def can_arise(self, state: int) -> bool:
        """Whether the discs can have been dropped in turns from the empty board, x first, with
        no four in a row before the last disc: some column's top disc, of the colour that moved
        last, comes off and leaves such a position, down to the empty board."""
        state = int(state)
        mask = self.disc_mask(state)
        x_bits = state & mask
        return self._arises(mask, x_bits, has_four(x_bits, self.rows) or has_four(mask ^ x_bits, self.rows))

    def _arises(self, mask: int, x_bits: int, four: bool) -> bool:
        """:meth:`can_arise` of the discs ``mask``, x's at ``x_bits``, ``four`` if either side has four in a row."""
        if not four:
            return _unplays(mask, x_bits)
        rows = self.rows
        # a four: the last disc made it, so taking that disc off leaves no four
        first, then = _unplay_moves(mask, x_bits)
        last = first | then
        while last:
            taken = last & -last
            last ^= taken
            rest, x_rest = mask ^ taken, x_bits & ~taken
            if not (has_four(x_rest, rows) or has_four(rest ^ x_rest, rows)) and _unplays(rest, x_rest):
                return True
        return False

    def dense_index(self) -> Connect4Index:
        """The dense index of this board's positions (:mod:`tablebase.games.connect4.index`)."""
        if self._dense is None:
            from tablebase.games.connect4.index import Connect4Index

            self._dense = Connect4Index(self.columns, self.rows)
        return self._dense

    def outcome_table(
        self, state: int, time_limit: float | None = None, memory: int | None = None
    ) -> CompiledSearch | None:
        """The exact score search compiled with numba (:mod:`tablebase.games.connect4.prover`,
        on every core); its ``label`` gives outcome and distance at once.
        Its table holds 2^27 entries (1 GiB) for a position with at most 8 discs, else 2^24 (128 MiB),
        or the largest power of two that fits in ``memory`` bytes if that is fewer. Without numba,
        ``None`` on a board the builders enumerate (the search runs in Python) and a
        :class:`~tablebase.errors.TablebaseError` saying what to install on a larger one (where the
        search in Python would not end); when numba's cache lacks the search, a note that it is
        compiled (:func:`tablebase.progress.compiling`)."""
        try:
            from tablebase.games.connect4 import prover
        except ImportError as err:
            if self.enumerable:
                return None
            raise TablebaseError(
                f"searching {self.name} needs numba ({err}): pip install numba, or reinstall tablebase"
            ) from None
        announce_compile(f"the {self.name} search", (prover._static, prover._negamax, prover._wins_now), PROVER_COMPILE_SECONDS)
        discs = to_bitboards(state, self.columns, self.rows)[1].bit_count()
        entries = 1 << 27 if discs <= 8 else 1 << 24
        if memory is not None:
            entries = min(entries, 1 << max(memory // 8, 1).bit_length() - 1)
        return prover.Prover(self.columns, self.rows, entries)

    def key_patterns(self, state: int) -> list[str]:
        """Discs stay where they fall: the position and its mirror image with their empty cells
        as wildcards."""
        return self.placed_patterns(state, self.format_position)

    # -- symmetry ------------------------------------------------------------

    @property
    def num_symmetries(self) -> int:
        return 2

    def transform(self, state: int, sym: int) -> int:
        if sym == 0:
            return state
        column, shifts = self._column, self._shifts
        image = 0
        for shift, target in zip(shifts, reversed(shifts)):
            image |= (state >> shift & column) << target
        return image

    def transform_move(self, move: int, sym: int) -> int:
        return self.columns - 1 - move if sym else move

    def canonical(self, state: int) -> tuple[int, int]:
        image = self.transform(state, 1)
        return (image, 1) if image < state else (state, 0)

    # -- notation ------------------------------------------------------------

    def format_position(self, state: int) -> str:
        state, column, text = int(state), self._column, self._block_text
        return "/".join(map("".join, zip(*[text[state >> shift & column] for shift in self._shifts])))

    def format_children(self, state: int, moves: Sequence[int]) -> list[str]:
        text = self.format_position(state)
        disc = self.to_move(state)
        heights = self._heights(state)
        width = self.columns + 1
        found = []
        for move in moves:
            at = (self.rows - 1 - heights[move]) * width + move
            found.append(text[:at] + disc + text[at + 1 :])
        return found

    def parse_position(self, text: str) -> int:
        board, side = split_side(text)
        if board.isascii() and board.isdigit():
            state = self._play_columns(text, board)
        else:
            state = self._parse_grid(text, board)
        if side is not None and side != self.to_move(state):
            raise MalformedPositionError(
                f"invalid position {text!r}: wrong side to move, the counts say {self.to_move(state)!r}"
            )
        return state

    def _play_columns(self, text: str, digits: str) -> int:
        """The state after dropping discs in the columns ``digits`` from the empty board."""
        state = self._empty
        for i, digit in enumerate(digits):
            try:
                move = self._column_of(state, digit)
            except IllegalMoveError as err:
                reason = str(err).split(": ", 1)[1]
                raise MalformedPositionError(f"invalid position {text!r}: move {i + 1} {digit!r}: {reason}") from None
            state = self.apply(state, move)
        return state

    def _parse_grid(self, text: str, board: str) -> int:
        """The state of grid text, checked for floating discs, counts and wins."""
        lines = board.split("/")
        state = 0
        if len(lines) == self.rows and set(map(len, lines)) == {self.columns}:
            blocks = self._column_blocks
            for column, shift in zip(zip(*lines), self._shifts):
                block = blocks.get("".join(column))
                if block is None:
                    state = 0
                    break
                state |= block << shift
        if not state:
            state = self._parse_columns(text, lines)
        mask = self.disc_mask(state)
        x_bits = state & mask
        nx, no = x_bits.bit_count(), (mask ^ x_bits).bit_count()
        if nx - no not in (0, 1):
            raise MalformedPositionError(
                f"invalid position {text!r}: {nx} x and {no} o; x moves first, so x has as many discs as o or one more"
            )
        x_four, o_four = has_four(x_bits, self.rows), has_four(mask ^ x_bits, self.rows)
        if x_four and o_four:
            raise MalformedPositionError(f"invalid position {text!r}: both sides have four in a row")
        if (x_four or o_four) and not self.unmoves(state):
            winner = "x" if x_four else "o"
            raise MalformedPositionError(
                f"invalid position {text!r}: play went on after {winner} had four in a row"
            )
        if not self._arises(mask, x_bits, x_four or o_four):
            raise MalformedPositionError(
                f"invalid position {text!r}: no game reaches it (the discs cannot have been dropped"
                " in turns, x first, each column from the bottom)"
            )
        return state

    def _parse_columns(self, text: str, lines: list[str]) -> int:
        """The state of the rows of grid text, or the error naming the first thing wrong with them."""
        if len(lines) != self.rows:
            raise MalformedPositionError(
                f"invalid position {text!r}: {len(lines)} rows, {self.name} has {self.rows} "
                f"(rows of {self.columns} cells separated by '/', or the columns played such as '4453')"
            )
        for r, line in enumerate(lines):
            bad = next((ch for ch in line if ch not in "xo."), None)
            if bad is not None:
                raise MalformedPositionError(f"invalid position {text!r}: bad character {bad!r} (cells are 'x', 'o' or '.')")
            if len(line) != self.columns:
                raise MalformedPositionError(
                    f"invalid position {text!r}: row {r + 1} has {len(line)} cells, {self.name} has {self.columns}"
                )
        state = 0
        for c, shift in enumerate(self._shifts):
            stack = [lines[self.rows - 1 - r][c] for r in range(self.rows)]
            h = stack.index(".") if "." in stack else self.rows
            if any(ch != "." for ch in stack[h:]):
                raise MalformedPositionError(
                    f"invalid position {text!r}: floating disc in column {c + 1} (discs rest on the bottom or on another disc)"
                )
            block = 1 << h | sum(1 << r for r in range(h) if stack[r] == "x")
            state |= block << shift
        return state

    def _column_of(self, state: int, text: str) -> int:
        """The column a move string names in ``state``; raises :class:`IllegalMoveError`."""
        if not isinstance(text, str) or text not in self._digits:
            raise IllegalMoveError(f"invalid move {text!r}: expected a column 1..{self.columns}")
        if self.outcome(state) is not None:
            raise IllegalMoveError(f"illegal move {text!r}: the game is over")
        column = int(text) - 1
        if self._heights(state)[column] == self.rows:
            raise IllegalMoveError(f"illegal move {text!r}: column {text} is full")
        return column

    def parse_move(self, state: int, text: str) -> int:
        return self._column_of(state, text)

    def format_move(self, move: int) -> str:
        return self._digits[move]

    def format_board(self, state: int) -> str:
        lines = [" ".join(row) for row in self.format_position(state).split("/")]
        lines.append(" ".join(self._digits))
        return "\n".join(lines)

    def layout(self) -> Layout:
        layout = grid_layout(self.columns, self.rows)
        layout["click_moves"] = {cell["name"]: self._digits[i % self.columns] for i, cell in enumerate(layout["cells"])}
        layout["gravity"] = True
        return layout

    def shipped_opening(self) -> Traversable | None:
        """The 7x6 opening table in the package's data folder (:data:`OPENING_FILE`), when it is there."""
        if (self.columns, self.rows) != OPENING_BOARD:
            return None
        found = resources.files("tablebase.games.connect4") / "data" / OPENING_FILE
        return found if found.is_file() else None

    def board_marks(self, state: int) -> BoardMarks:
        marks: BoardMarks = {"active": [], "owners": {}}
        last = self._last_four(state)
        line = next((m for m in self._lines if last & m == m), 0)
        if line:
            marks["line"] = [
                cell_name((self.rows - 1 - r) * self.columns + c, self.columns)
                for c, shift in enumerate(self._shifts)
                for r in range(self.rows)
                if line >> shift + r & 1
            ]
        return marks


class LargeConnect4Game(Connect4Game):
    """A board too big for the builders to enumerate (over :data:`MAX_ENUMERABLE_CELLS` cells)."""

    enumerable = False


def _unplays(discs: int, x_bits: int) -> bool:
    """Whether the discs ``discs`` (x's at ``x_bits``, no four in a row) can come off one top disc at a
    time, each of the colour that moved last, down to the empty board: a depth-first search on bit
    masks that tries first the discs with a disc of the other colour (or none) below them, and
    remembers the disc sets it has found stuck."""
    stuck: set[int] = set()
    path: list[tuple[int, int, int]] = []
    first, then = _unplay_moves(discs, x_bits)
    while discs:
        if first or then:
            if first:
                taken = first & -first
                first ^= taken
            else:
                taken = then & -then
                then ^= taken
            after = discs ^ taken
            if after in stuck:
                continue
            path.append((discs, first, then))
            discs = after
            first, then = _unplay_moves(discs, x_bits)
        else:
            stuck.add(discs)
            if not path:
                return False
            discs, first, then = path.pop()
    return True


def _unplay_moves(discs: int, x_bits: int) -> tuple[int, int]:
    """The top discs of ``discs`` of the colour that moved last, split into those over a disc of the
    other colour or the floor, and those over one of their own colour."""
    # a top disc has no disc above it (the bit above a column's top cell is never a disc's)
    mine = discs & (x_bits if discs.bit_count() & 1 else ~x_bits)
    tops = discs & ~(discs >> 1) & mine
    doubled = tops & mine << 1
    return tops ^ doubled, doubled


def make(columns: int, rows: int, name: str | None = None) -> Connect4Game:
    """The game on ``columns`` x ``rows``, enumerable when the builders can take it."""
    cls = Connect4Game if columns * rows <= MAX_ENUMERABLE_CELLS else LargeConnect4Game
    return cls(columns, rows, name)


def connect4() -> Connect4Game:
    """Standard Connect Four: 7 columns, 6 rows."""
    return make(7, 6, name="connect4")


def from_name(name: str) -> Connect4Game | None:
    """The game named ``connect4-W-H``, or ``None`` if the name is not of that form."""
    match = re.fullmatch(r"connect4-(\d{1,3})-(\d{1,3})", name)
    if not match:
        return None
    return make(int(match.group(1)), int(match.group(2)))


#: Fixed names this module registers, with their factories.
VARIANTS = {"connect4": connect4}

#: Variants built by ``tablebase build --all``.
CATALOG = ("connect4-4-4",)

#: Usual sizes ``tablebase variants`` lists besides the fixed names.
USUAL = ("connect4-4-4", "connect4-5-4", "connect4-4-5", "connect4-6-4", "connect4-5-5", "connect4-6-5")

#: How to name other sizes.
NAMING = "connect4-W-H: W columns, H rows, 4 to 7 each (connect4 is 7x6)"
