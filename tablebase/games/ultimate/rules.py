"""Ultimate tic-tac-toe: nine tic-tac-toe fields on a 9x9 board.

The board is a 3x3 arrangement of *fields*, each a 3x3 grid of *spots*.
Fields and spots are numbered 0..8 row-major from the top left (the
numbering of seed 004), so field 0 is the top-left field and spot 4 the
centre of a field. X moves first; the first move is free. After a move on
spot ``s`` the opponent must play in field ``s`` (the *active field*) when
that is possible, and may play in any field otherwise. Three marks in a line
inside a field win that field; three won fields in a line win the game for
the player who just moved.

Variants:

``ultimate``
    Seed 004's rules. A won field stays playable (further marks there change
    nothing, and a won field cannot be won again); a player sent to a full
    field plays anywhere. A full board without a line of won fields is a draw.
``ultimate-classic``
    The common rules (and OpenSpiel's ``ultimate_tic_tac_toe``): a field that
    is won or full is *closed*; a player sent to a closed field plays in any
    open field. When no open field is left and nobody has a line, it is a draw
    (drawn lines can therefore end at different plies).
``ultimate-strategy``
    The ``ultimate`` rules in which X has exactly one legal move, the one
    seed 004's winning strategy prescribes, and O may play anything
    (:mod:`tablebase.games.ultimate.upper_bound`).

Notation
--------
A position is the 9x9 grid, rows top to bottom separated by ``/``, cells
``x``, ``o`` and ``.``, followed by the side to move and the active field::

    ........./........./........./........./....x..../........./........./........./......... o 4

* the side to move is ``x`` or ``o`` (it must agree with the counts: x moves
  when both have as many marks);
* the active field is a digit ``0``..``8`` (field numbers as above: ``0``
  top-left, ``4`` centre, ``8`` bottom-right) or ``*`` when the side to move
  may choose any field (the first move, or after being sent to a full or
  closed field);
* only under the ``ultimate`` rules, and only when some field holds three in
  a row for both players, the board alone does not say who won that field
  first: a fourth token ``won=`` followed by a 3x3 picture of the fields
  (``x``, ``o`` or ``.`` for won by x, by o, by nobody; rows separated by
  ``/``) settles it, e.g. ``won=x../.o./...``. It may be given anywhere and is
  checked; it is printed only when needed.

Cells are named like a spreadsheet over the whole 9x9 grid: column letter
``a``..``i``, row number ``1``..``9`` from the top, so ``a1`` is the top-left
spot of field 0, ``e5`` the centre of the centre field and ``i9`` the
bottom-right spot of field 8. A move is the cell played: ``e5``.

Encoding
--------
A state is a Python int: bit ``9 * f + s`` is an x on spot ``s`` of field
``f`` (81 bits), the next 81 bits the o marks, then 9 bits of fields won by x,
9 of fields won by o, and 4 bits for the active field (9 = any). Moves are
``9 * field + spot``. The eight symmetries of the square act on the whole
grid, which moves fields and spots alike: cell ``(f, s)`` goes to
``(p[f], p[s])`` for the same 3x3 permutation ``p``; the active field and the
won fields follow ``p``.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from tablebase.errors import IllegalMoveError, MalformedPositionError
from tablebase.games.base import DRAW, LOSS, Game, Outcome
from tablebase.games.bitboard import grid_symmetries, invert_permutation
from tablebase.games.layout import BoardMarks, Layout, grid_layout
from tablebase.games.notation import cell_name, parse_cell
from tablebase.games.ultimate.lines import LINE

if TYPE_CHECKING:
    from tablebase.games.compiled_search import CompiledSearch

# -- the state's bits -----------------------------------------------------------

CELLS = 81
O_SHIFT = 81
WON_SHIFT = 162  # 9 bits won by x, then 9 bits won by o
WON_X = 162
WON_O = 171
ACTIVE = 180  # 4 bits: 0..8, or ANY
ANY = 9
HIGH = 162  # everything from here up is "high" (not marks)
M81 = (1 << 81) - 1
M162 = (1 << 162) - 1
ACTIVE_MASK = 15 << ACTIVE
FULL = 511
#: A search given less time than this runs in Python unless the compiled one is loaded already.
COMPILED_MIN_SECONDS = 10.0
#: Positions with fewer open spots are solved in Python in well under a second.
COMPILED_MIN_SPOTS = 20

# -- tables ---------------------------------------------------------------------

#: The eight symmetries of a 3x3 grid (identity first), as in :func:`grid_symmetries`.
P3: tuple[tuple[int, ...], ...] = grid_symmetries(3, 3)
P3_INV: tuple[tuple[int, ...], ...] = tuple(invert_permutation(p) for p in P3)
SYM_INVERSE: tuple[int, ...] = tuple(P3.index(inv) for inv in P3_INV)


def _image9(bits: int, perm: tuple[int, ...]) -> int:
    out = 0
    for i in range(9):
        if bits >> i & 1:
            out |= 1 << perm[i]
    return out


#: ``IMG9[sym][bits]``: a 9-bit pattern (a field, or the fields) under a symmetry.
IMG9: tuple[tuple[int, ...], ...] = tuple(tuple(_image9(b, p) for b in range(512)) for p in P3)
#: ``FIELD_IMG[sym][f][bits]``: a field's pattern moved to its image, already shifted in place.
FIELD_IMG: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple(IMG9[s][b] << (9 * P3[s][f]) for b in range(512)) for f in range(9)) for s in range(8)
)
#: ``MOVE_IMG[sym][move]``.
MOVE_IMG: tuple[tuple[int, ...], ...] = tuple(
    tuple(9 * P3[s][m // 9] + P3[s][m % 9] for m in range(CELLS)) for s in range(8)
)
#: ``ACTIVE_IMG[sym][a]`` for a in 0..9 (9 = any stays any).
ACTIVE_IMG: tuple[tuple[int, ...], ...] = tuple(tuple(P3[s]) + (ANY,) for s in range(8))
#: ``MOVES_IN[f][occupied]``: the moves on the free spots of field ``f``.
MOVES_IN: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple(9 * f + s for s in range(9) if not occ >> s & 1) for occ in range(512)) for f in range(9)
)
FIELD_OF = tuple(m // 9 for m in range(CELLS))
X_BIT = tuple(1 << m for m in range(CELLS))
O_BIT = tuple(1 << (m + O_SHIFT) for m in range(CELLS))
X_FIELD_SHIFT = tuple(9 * f for f in range(9))
O_FIELD_SHIFT = tuple(O_SHIFT + 9 * f for f in range(9))
WON_X_BIT = tuple(1 << (WON_X + f) for f in range(9))
WON_O_BIT = tuple(1 << (WON_O + f) for f in range(9))
SPOT_BIT = tuple(1 << s for s in range(9))
NOT_ACTIVE = ~ACTIVE_MASK
ACTIVE_VAL = tuple(a << ACTIVE for a in range(10))
ACTIVE_ANY = ANY << ACTIVE
FREE_COUNT = tuple(9 - occ.bit_count() for occ in range(512))
SPOT_OF = tuple(m % 9 for m in range(CELLS))

#: Grid cell (row-major over the 9x9 grid) of each move, and back.
GRID_OF_MOVE = tuple(9 * (3 * (m // 9 // 3) + m % 9 // 3) + 3 * (m // 9 % 3) + m % 9 % 3 for m in range(CELLS))
MOVE_OF_GRID = invert_permutation(GRID_OF_MOVE)


def move_name(move: int) -> str:
    """The cell name of ``move`` (``9 * field + spot``): ``move_name(40) == 'e5'``."""
    return cell_name(GRID_OF_MOVE[move], 9)


#: Space between two fields in the board drawing, in cells.
FIELD_GAP = 0.3


def field_span(f: int) -> str:
    """The cells of field ``f`` as a range: ``field_span(4) == 'd4-f6'``."""
    return f"{move_name(9 * f)}-{move_name(9 * f + 8)}"


# -- the rules ------------------------------------------------------------------


class Ultimate(Game):
    """Ultimate tic-tac-toe; ``classic=True`` closes won and full fields."""

    family = "ultimate"
    enumerable = False

    def __init__(self, classic: bool = False, name: str | None = None):
        self.classic = classic
        self.name = name or ("ultimate-classic" if classic else "ultimate")
        if classic:
            self.rules = (
                "9 fields of 3x3; play in the field named by the previous spot; "
                "won or full fields close; 3 won fields in a line win"
            )
        else:
            self.rules = (
                "9 fields of 3x3; play in the field named by the previous spot; "
                "won fields stay playable (seed 004); 3 won fields in a line win"
            )

    def parameters(self) -> dict[str, Any]:
        return {"closed_fields": self.classic}

    # -- rules ---------------------------------------------------------------

    def initial_state(self) -> int:
        return ANY << ACTIVE

    def to_move(self, state: int) -> str:
        return "x" if (state & M162).bit_count() % 2 == 0 else "o"

    def plies_played(self, state: int) -> int | None:
        return (state & M162).bit_count()

    def outcome(self, state: int) -> Outcome | None:
        won = state >> WON_SHIFT
        if LINE[won & 511] or LINE[(won >> 9) & 511]:
            # only the player who just moved can have completed a line
            return LOSS
        if not self.classic:
            return DRAW if (state | state >> O_SHIFT) & M81 == M81 else None
        if (state >> ACTIVE) & 15 != ANY:
            return None  # the active field is open
        occ = state | state >> O_SHIFT
        closed = ((state >> WON_X) | (state >> WON_O)) & 511
        for f in range(9):
            if not closed >> f & 1 and (occ >> (9 * f)) & 511 != FULL:
                return None
        return DRAW

    def legal_moves(self, state: int) -> list[int]:
        active = (state >> ACTIVE) & 15
        occ = state | state >> O_SHIFT
        if active != ANY:
            return list(MOVES_IN[active][(occ >> (9 * active)) & 511])
        moves: list[int] = []
        if self.classic:
            closed = ((state >> WON_X) | (state >> WON_O)) & 511
            for f in range(9):
                if not closed >> f & 1:
                    moves += MOVES_IN[f][(occ >> (9 * f)) & 511]
        else:
            for f in range(9):
                moves += MOVES_IN[f][(occ >> (9 * f)) & 511]
        return moves

    def apply(self, state: int, move: int) -> int:
        f = FIELD_OF[move]
        spot = SPOT_OF[move]
        if (state & M162).bit_count() & 1:  # o to move
            new = state | O_BIT[move]
            mine = (state >> O_FIELD_SHIFT[f]) & 511
            won_bit = WON_O_BIT[f]
        else:
            new = state | X_BIT[move]
            mine = (state >> X_FIELD_SHIFT[f]) & 511
            won_bit = WON_X_BIT[f]
        won = ((state >> WON_X) | (state >> WON_O)) & 511
        if LINE[mine | SPOT_BIT[spot]] and not won >> f & 1:
            new |= won_bit
            won |= SPOT_BIT[f]
        occ = ((new >> X_FIELD_SHIFT[spot]) | (new >> O_FIELD_SHIFT[spot])) & 511
        if occ == FULL or (self.classic and won >> spot & 1):
            return (new & NOT_ACTIVE) | ACTIVE_ANY
        return (new & NOT_ACTIVE) | ACTIVE_VAL[spot]

    def children(self, state: int) -> list[tuple[int, int]]:
        # apply() for every legal move, sharing the work that does not depend on the move
        if self.outcome(state) is not None:
            return []
        if (state & M162).bit_count() & 1:
            mover, won_bits = O_FIELD_SHIFT, WON_O_BIT
            bits = O_BIT
        else:
            mover, won_bits = X_FIELD_SHIFT, WON_X_BIT
            bits = X_BIT
        base = state & NOT_ACTIVE
        occ = (state | state >> O_SHIFT) & M81
        won = ((state >> WON_X) | (state >> WON_O)) & 511
        classic = self.classic
        out = []
        for m in self.legal_moves(state):
            f = FIELD_OF[m]
            spot = SPOT_OF[m]
            new = base | bits[m]
            w = won
            if not won >> f & 1 and LINE[((state >> mover[f]) & 511) | SPOT_BIT[spot]]:
                new |= won_bits[f]
                w |= SPOT_BIT[f]
            target = (occ >> X_FIELD_SHIFT[spot]) & 511
            if spot == f:
                target |= SPOT_BIT[spot]
            if target == FULL or (classic and w >> spot & 1):
                out.append((m, new | ACTIVE_ANY))
            else:
                out.append((m, new | ACTIVE_VAL[spot]))
        return out

    def successors(self, state: int) -> list[tuple[int, int, Outcome | None, int]]:
        # children() with each child's end of game and move count from the fields that changed
        if (state & M162).bit_count() & 1:
            mover, won_bits, bits, my_won = O_FIELD_SHIFT, WON_O_BIT, O_BIT, (state >> WON_O) & 511
        else:
            mover, won_bits, bits, my_won = X_FIELD_SHIFT, WON_X_BIT, X_BIT, (state >> WON_X) & 511
        base = state & NOT_ACTIVE
        occ = (state | state >> O_SHIFT) & M81
        won = ((state >> WON_X) | (state >> WON_O)) & 511
        classic = self.classic
        fields = [(occ >> shift) & 511 for shift in X_FIELD_SHIFT]
        closed = won if classic else 0
        free_open = 0
        for f in range(9):
            if fields[f] == FULL:
                closed |= SPOT_BIT[f]
            elif not closed >> f & 1:
                free_open += FREE_COUNT[fields[f]]
        out: list[tuple[int, int, Outcome | None, int]] = []
        for m in self.legal_moves(state):
            f = FIELD_OF[m]
            spot = SPOT_OF[m]
            new = base | bits[m]
            field_now = fields[f] | SPOT_BIT[spot]
            shut = closed
            free = free_open - 1
            if field_now == FULL:
                shut |= SPOT_BIT[f]
            if not won >> f & 1 and LINE[((state >> mover[f]) & 511) | SPOT_BIT[spot]]:
                new |= won_bits[f]
                if LINE[my_won | SPOT_BIT[f]]:
                    out.append((m, new | (ACTIVE_ANY if shut >> spot & 1 or (classic and spot == f) else ACTIVE_VAL[spot]), LOSS, 0))
                    continue
                if classic and field_now != FULL:
                    shut |= SPOT_BIT[f]
                    free -= FREE_COUNT[field_now]
            if shut >> spot & 1:
                out.append((m, new | ACTIVE_ANY, DRAW if shut == FULL else None, 0 if shut == FULL else free))
            else:
                out.append((m, new | ACTIVE_VAL[spot], None, FREE_COUNT[field_now if spot == f else fields[spot]]))
        return out

    def move_count(self, state: int) -> int:
        """``len(legal_moves(state))``, faster (a search hint for move ordering)."""
        active = (state >> ACTIVE) & 15
        occ = state | state >> O_SHIFT
        if active != ANY:
            return FREE_COUNT[(occ >> (9 * active)) & 511]
        closed = ((state >> WON_X) | (state >> WON_O)) & 511 if self.classic else 0
        count = 0
        for f in range(9):
            if not closed >> f & 1:
                count += FREE_COUNT[(occ >> (9 * f)) & 511]
        return count

    def max_plies(self, state: int) -> int:
        """An upper bound on the plies left (a search hint): the empty spots, in open fields under classic rules."""
        if not self.classic:
            return CELLS - (state & M162).bit_count()
        occ = state | state >> O_SHIFT
        closed = ((state >> WON_X) | (state >> WON_O)) & 511
        free = 0
        for f in range(9):
            if not closed >> f & 1:
                free += 9 - ((occ >> (9 * f)) & 511).bit_count()
        return free

    def draw_length(self, state: int) -> int | None:
        """Under the open rules a game ends only with a line of fields or a full board, so every
        drawn line fills the board: its length is the empty spots."""
        if self.classic:
            return None
        return CELLS - (state & M162).bit_count()

    def outcome_table(
        self, state: int, time_limit: float | None = None, memory: int | None = None
    ) -> CompiledSearch | None:
        """The outcome search compiled with numba (:mod:`tablebase.games.ultimate.search`), when it is
        installed; loading it takes a second or two, so not for a first search of less than
        :data:`COMPILED_MIN_SECONDS`, nor of fewer than :data:`COMPILED_MIN_SPOTS` open spots."""
        if "tablebase.games.ultimate.search" not in sys.modules and (
            self.max_plies(state) < COMPILED_MIN_SPOTS or (time_limit is not None and time_limit < COMPILED_MIN_SECONDS)
        ):
            return None
        try:
            from tablebase.games.ultimate.search import OutcomeTable
        except ImportError:
            return None
        return OutcomeTable(self.classic, max_bits=min(24, 8 + self.max_plies(state) // 2))

    def key_patterns(self, state: int) -> list[str]:
        """Marks stay where they are: each orientation's board with its empty cells as wildcards."""
        return self.placed_patterns(state, self._format_board, " %")

    # -- symmetry ------------------------------------------------------------

    @property
    def num_symmetries(self) -> int:
        return 8

    def inverse_symmetry(self, sym: int) -> int:
        return SYM_INVERSE[sym]

    def _high_image(self, high: int, sym: int) -> int:
        """Image of ``state >> HIGH`` (won fields, active field) under ``sym``."""
        img = IMG9[sym]
        return (
            (high >> 22 << 22)
            | (ACTIVE_IMG[sym][(high >> 18) & 15] << 18)
            | (img[(high >> 9) & 511] << 9)
            | img[high & 511]
        )

    @staticmethod
    def _board_image(bits: int, sym: int) -> int:
        tables = FIELD_IMG[sym]
        return (
            tables[0][bits & 511]
            | tables[1][(bits >> 9) & 511]
            | tables[2][(bits >> 18) & 511]
            | tables[3][(bits >> 27) & 511]
            | tables[4][(bits >> 36) & 511]
            | tables[5][(bits >> 45) & 511]
            | tables[6][(bits >> 54) & 511]
            | tables[7][(bits >> 63) & 511]
            | tables[8][(bits >> 72) & 511]
        )

    def transform(self, state: int, sym: int) -> int:
        if sym == 0:
            return state
        return (
            (self._high_image(state >> HIGH, sym) << HIGH)
            | (self._board_image((state >> O_SHIFT) & M81, sym) << O_SHIFT)
            | self._board_image(state & M81, sym)
        )

    def transform_move(self, move: int, sym: int) -> int:
        return MOVE_IMG[sym][move]

    def canonical(self, state: int) -> tuple[int, int]:
        # Compare the images from the most significant part down and stop as
        # soon as one symmetry is left: usually the high part decides.
        high = state >> HIGH
        images = [self._high_image(high, s) for s in range(8)]
        least = min(images)
        cands = [s for s in range(8) if images[s] == least]
        if len(cands) > 1:
            for board in ((state >> O_SHIFT) & M81, state & M81):
                for k in range(8, -1, -1):
                    vals = [IMG9[s][(board >> (9 * P3_INV[s][k])) & 511] for s in cands]
                    least = min(vals)
                    cands = [s for s, v in zip(cands, vals) if v == least]
                    if len(cands) == 1:
                        break
                if len(cands) == 1:
                    break
        sym = cands[0]
        return self.transform(state, sym), sym

    # -- helpers -------------------------------------------------------------

    @staticmethod
    def field_bits(state: int, f: int) -> tuple[int, int]:
        """The x and o patterns (9 bits each) of field ``f``."""
        return (state >> (9 * f)) & 511, (state >> (O_SHIFT + 9 * f)) & 511

    @staticmethod
    def won_fields(state: int) -> tuple[int, int]:
        """Bitmasks of the fields won by x and by o."""
        return (state >> WON_X) & 511, (state >> WON_O) & 511

    @staticmethod
    def active_field(state: int) -> int | None:
        """The field the side to move must play in, or ``None`` for any."""
        a = (state >> ACTIVE) & 15
        return None if a == ANY else a

    # -- drawing -------------------------------------------------------------

    def layout(self) -> Layout:
        """The 9x9 grid with a gap between fields; the fields are the regions ``"0"`` .. ``"8"``."""
        layout = grid_layout(9, 9)
        for cell in layout["cells"]:
            cell["x"] += FIELD_GAP * (cell["x"] // 3)
            cell["y"] += FIELD_GAP * (cell["y"] // 3)
        layout["regions"] = [{"name": str(f), "cells": [move_name(9 * f + s) for s in range(9)]} for f in range(9)]
        return layout

    def board_marks(self, state: int) -> BoardMarks:
        """The active field (none when any field may be chosen or the game is over) and the won fields."""
        active = self.active_field(state)
        wx, wo = self.won_fields(state)
        owners = {str(f): "x" if wx >> f & 1 else "o" for f in range(9) if (wx | wo) >> f & 1}
        over = self.outcome(state) is not None
        return {"active": [] if active is None or over else [str(active)], "owners": owners}

    # -- notation ------------------------------------------------------------

    def _format_board(self, state: int) -> str:
        chars = ["."] * CELLS
        for m in range(CELLS):
            if state >> m & 1:
                chars[GRID_OF_MOVE[m]] = "x"
            elif state >> (m + O_SHIFT) & 1:
                chars[GRID_OF_MOVE[m]] = "o"
        return "/".join("".join(chars[9 * r : 9 * r + 9]) for r in range(9))

    def _owners_needed(self, state: int) -> bool:
        if self.classic:
            return False
        for f in range(9):
            x, o = self.field_bits(state, f)
            if LINE[x] and LINE[o]:
                return True
        return False

    def format_position(self, state: int) -> str:
        a = (state >> ACTIVE) & 15
        text = f"{self._format_board(state)} {self.to_move(state)} {'*' if a == ANY else a}"
        if self._owners_needed(state):
            wx, wo = self.won_fields(state)
            pic = "".join("x" if wx >> f & 1 else "o" if wo >> f & 1 else "." for f in range(9))
            text += f" won={pic[0:3]}/{pic[3:6]}/{pic[6:9]}"
        return text

    def parse_position(self, text: str) -> int:
        if not isinstance(text, str):
            raise MalformedPositionError(f"position must be a string, got {text!r}")
        tokens = text.split(" ")
        return self._parse_tokens(text, tokens)

    def _parse_tokens(self, text: str, tokens: list[str]) -> int:
        def bad(why: str) -> MalformedPositionError:
            return MalformedPositionError(f"invalid position {text!r}: {why}")

        owners_token = None
        rest = []
        for tok in tokens:
            if tok.startswith("won="):
                if owners_token is not None:
                    raise bad("'won=' given twice")
                owners_token = tok[4:]
            else:
                rest.append(tok)
        if len(rest) != 3:
            raise bad(
                "expected the 9x9 board, the side to move and the active field, "
                "e.g. '<board> x *' or '<board> o 4'"
            )
        board, side, active_text = rest
        rows = board.split("/")
        if len(rows) != 9:
            raise bad(f"{len(rows)} rows, {self.name} has 9 (rows of 9 cells separated by '/')")
        state = 0
        for r, row in enumerate(rows):
            for ch in row:
                if ch not in "xo.":
                    raise bad(f"bad character {ch!r} (cells are 'x', 'o' or '.')")
            if len(row) != 9:
                raise bad(f"row {r + 1} has {len(row)} cells, {self.name} has 9")
            for c, ch in enumerate(row):
                m = MOVE_OF_GRID[9 * r + c]
                if ch == "x":
                    state |= 1 << m
                elif ch == "o":
                    state |= 1 << (m + O_SHIFT)
        xs, os_ = state & M81, state >> O_SHIFT
        nx, no = xs.bit_count(), os_.bit_count()
        if nx - no not in (0, 1):
            raise bad(f"{nx} x and {no} o; x moves first, so x has as many marks as o or one more")
        if side not in ("x", "o"):
            raise bad(f"side to move must be 'x' or 'o', got {side!r}")
        if side != self.to_move(state):
            raise bad(f"wrong side to move, the counts say {self.to_move(state)!r}")
        # fields won
        both = [f for f in range(9) if LINE[self.field_bits(state, f)[0]] and LINE[self.field_bits(state, f)[1]]]
        if both and self.classic:
            raise bad(f"field {both[0]} has three in a row for both x and o, impossible when won fields close")
        wx = wo = 0
        for f in range(9):
            x, o = self.field_bits(state, f)
            if LINE[x] and not LINE[o]:
                wx |= 1 << f
            elif LINE[o] and not LINE[x]:
                wo |= 1 << f
        if owners_token is not None:
            if self.classic:
                raise bad("'won=' is only used under the ultimate rules (won fields stay open)")
            pic = owners_token.split("/")
            if len(pic) != 3 or any(len(p) != 3 or set(p) - set("xo.") for p in pic):
                raise bad(f"'won={owners_token}' must be a 3x3 picture of x, o and '.', e.g. 'won=x../.o./...'")
            flat = "".join(pic)
            for f, ch in enumerate(flat):
                x, o = self.field_bits(state, f)
                has = {"x": LINE[x], "o": LINE[o], ".": not (LINE[x] or LINE[o])}[ch]
                if not has:
                    raise bad(f"'won=' says field {f} is {'won by ' + ch if ch != '.' else 'not won'}, the board disagrees")
                if ch == "x":
                    wx |= 1 << f
                elif ch == "o":
                    wo |= 1 << f
        elif both:
            raise bad(
                f"field {both[0]} has three in a row for both x and o; say who won it first "
                "with a 'won=' token, e.g. 'won=x../.o./...'"
            )
        state |= (wx << WON_X) | (wo << WON_O)
        x_line, o_line = LINE[wx], LINE[wo]
        if x_line and o_line:
            raise bad("both sides have three won fields in a line")
        if x_line and nx == no:
            raise bad("x has three won fields in a line but o moved last")
        if o_line and nx != no:
            raise bad("o has three won fields in a line but x moved last")
        # active field
        if active_text == "*":
            active = ANY
        elif len(active_text) == 1 and active_text in "012345678":
            active = int(active_text)
        else:
            raise bad(f"active field must be a digit 0..8 or '*', got {active_text!r}")
        state |= active << ACTIVE
        if nx + no == 0:
            if active != ANY:
                raise bad("no move has been made, so the first move is free: the active field is '*'")
            return state
        occ = state | state >> O_SHIFT
        closed = ((wx | wo) if self.classic else 0)
        last = xs if nx > no else os_
        spots_played = 0
        for f in range(9):
            spots_played |= (last >> (9 * f)) & 511
        if active != ANY:
            if (occ >> (9 * active)) & 511 == FULL:
                raise bad(f"the active field {active} is full")
            if closed >> active & 1:
                raise bad(f"the active field {active} is won, hence closed under {self.name} rules")
            if not spots_played >> active & 1:
                raise bad(f"the last move cannot have sent play to field {active}: the player who moved last has no mark on spot {active} of any field")
        else:
            ok = any(
                spots_played >> s & 1 and ((occ >> (9 * s)) & 511 == FULL or closed >> s & 1) for s in range(9)
            )
            if not ok:
                raise bad("the active field is '*' but no full or closed field can have been the target of the last move")
        return state

    def parse_move(self, state: int, text: str) -> int:
        grid = parse_cell(text, 9, 9) if isinstance(text, str) else None
        if grid is None:
            raise IllegalMoveError(f"invalid move {text!r}: expected a cell a1..i9")
        if self.outcome(state) is not None:
            raise IllegalMoveError(f"illegal move {text!r}: the game is over")
        move = MOVE_OF_GRID[grid]
        if move in self.legal_moves(state):
            return move
        raise IllegalMoveError(f"illegal move {text!r}: {self._why_illegal(state, move)}")

    def _why_illegal(self, state: int, move: int) -> str:
        f = FIELD_OF[move]
        if (state | state >> O_SHIFT) >> move & 1:
            return f"cell {move_name(move)} is occupied"
        active = self.active_field(state)
        if active is not None and active != f:
            return f"{self.to_move(state)} must play in field {active} ({field_span(active)})"
        return f"field {f} ({field_span(f)}) is closed (won)"

    def format_move(self, move: int) -> str:
        return move_name(move)

    def format_board(self, state: int) -> str:
        rows = self._format_board(state).split("/")
        lines = ["   a b c   d e f   g h i"]
        for r, row in enumerate(rows):
            if r in (3, 6):
                lines.append("   ------+-------+------")
            parts = [" ".join(row[0:3]), " ".join(row[3:6]), " ".join(row[6:9])]
            lines.append(f"{r + 1:>2} " + " | ".join(parts))
        a = self.active_field(state)
        where = "any field" if a is None else f"field {a} ({field_span(a)})"
        result = self.outcome(state)
        if result is None:
            lines.append(f"{self.to_move(state)} to move, {where}")
        else:
            lines.append(f"game over: {result} for {self.to_move(state)}")
        return "\n".join(lines)


def ultimate() -> Ultimate:
    """Seed 004's rules: won fields stay playable."""
    return Ultimate(classic=False)


def ultimate_classic() -> Ultimate:
    """The common rules: won and full fields close."""
    return Ultimate(classic=True)


__all__ = ["ANY", "Ultimate", "field_span", "move_name", "ultimate", "ultimate_classic"]
