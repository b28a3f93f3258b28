"""The rules of the Morris games (Six and Nine Men's Morris), as Gasser solved them.

Each player has ``stones`` stones in hand; x (white) moves first. While
either hand holds a stone, a turn places one of the mover's on an empty
point (x and o alternate, so x is to move exactly when both hands hold as
many). Once both hands are empty, a turn slides one of the mover's stones
to a neighbouring empty point, or, on a board that allows flying, a player
with exactly three stones moves one to any empty point. A move that closes
a mill of the mover's (three in a line, the moved stone among them) removes
one of the opponent's stones from the board, and not one that stands in a
mill of the opponent's unless all of them do; closing two mills at once
still removes one. The side to move loses with fewer than three stones on
the board and in hand together, or, with none in hand, when it has no legal
move. A game that never ends is a draw.

State encoding (an ``int`` below ``2**64``): bit ``i`` an x on point ``i``,
bit ``cells + i`` an o on it (as in :class:`~tablebase.games.bitboard.BitboardGame`),
bit ``2 * cells`` set when o is to move, then four bits of x's hand and four
of o's. The symmetries move points only.

Move encoding: ``to + cells * (from + 1) + cells * (cells + 1) * (removed + 1)``,
with ``from`` and ``removed`` -1 for none (a placement; no mill closed).

Notation (:mod:`tablebase.games.morris.board` names the points): a position
is one character a point, ``x``, ``o`` or ``.``, in point order, then the
side to move and the stones x and o hold in hand, all separated by single
spaces; the start of Nine Men's Morris is ``........................ x 9 9``.
``BOARD SIDE`` alone is read as both hands empty. A placement is its point,
``d2``; a slide or a flight ``d2-d3``; a removal is appended, ``d2-d3xg7``
or ``d2xg7``.
"""

from __future__ import annotations

import re
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

from tablebase.errors import IllegalMoveError, MalformedPositionError, UnknownVariantError
from tablebase.games.base import LOSS, Outcome
from tablebase.games.bitboard import BitboardGame, set_bits
from tablebase.games.layout import Layout, LayoutCell
from tablebase.games.morris.board import NINE, SIX, MorrisBoard

if TYPE_CHECKING:
    from tablebase.games.common.kernels import VectorKernels
    from tablebase.games.tiering import DenseTiers

#: The text of a point from its digit in :meth:`MorrisGame.format_board_text`.
_POINT_TEXT = str.maketrans("012", ".xo")

#: The largest size bound (classes) of a variant that ``tablebase build`` enumerates whole.
ENUMERABLE_UP_TO = 100_000_000

_MOVE_RE = re.compile(r"^([a-z][0-9]+)(?:-([a-z][0-9]+))?(?:x([a-z][0-9]+))?$")


class MorrisGame(BitboardGame):
    """A Morris game: ``stones`` each on ``board``; ``flying`` lets a player with three stones fly."""

    family = "morris"
    cyclic: ClassVar[bool] = True

    def __init__(self, board: MorrisBoard, stones: int, flying: bool, name: str):
        if not 3 <= stones <= 15:
            raise UnknownVariantError(f"variant {name!r}: {stones} stones each; a hand holds 3 to 15")
        if 2 * stones >= board.cells:
            raise UnknownVariantError(f"variant {name!r}: {2 * stones} stones do not leave a point free on {board.cells}")
        self.board = board
        self.stones = stones
        self.flying = flying
        self.name = name
        self.cells = board.cells
        self.perms = board.symmetries
        self._init_symmetry()
        n = self.cells
        self.side_bit = 1 << (2 * n)
        self.hand_shift = 2 * n + 1
        self.names = board.names
        self._point = {name: i for i, name in enumerate(self.names)}
        self.neighbours = board.neighbours
        self.mills = board.mills
        self.mills_of = board.mills_of
        self.rules = (
            f"{n} points on {board.rings} squares, {stones} stones each, placed then slid"
            f"{', flying with three' if flying else ''}; a mill removes a stone, fewer than three loses"
        )

    def parameters(self) -> dict[str, Any]:
        return {"rings": self.board.rings, "stones": self.stones, "flying": self.flying,
                "cross_mills": self.board.cross_mills}

    # -- the parts of a state ----------------------------------------------------

    def hands(self, state: int) -> tuple[int, int]:
        """The stones x and o hold in hand."""
        return state >> self.hand_shift & 15, state >> (self.hand_shift + 4) & 15

    def boards(self, state: int) -> tuple[int, int]:
        """The x and o bitboards."""
        return state & self._mask, state >> self.cells & self._mask

    def make(self, xs: int, os: int, side: str, x_hand: int, o_hand: int) -> int:
        """The state of the bitboards ``xs`` and ``os`` with ``side`` to move and the hands given."""
        return (
            xs | os << self.cells | (self.side_bit if side == "o" else 0)
            | x_hand << self.hand_shift | o_hand << (self.hand_shift + 4)
        )

    def _mover(self, state: int) -> tuple[int, int, int, int]:
        """``(own, other, own hand, other's stones in all)`` for the side to move."""
        xs, os = self.boards(state)
        xh, oh = self.hands(state)
        if state & self.side_bit:
            return os, xs, oh, xs.bit_count() + xh
        return xs, os, xh, os.bit_count() + oh

    def in_mill(self, bits: int, point: int) -> bool:
        """Whether ``point`` is in a mill of the stones ``bits`` (which hold it)."""
        for mill in self.mills_of[point]:
            if bits & mill == mill:
                return True
        return False

    def removable(self, other: int) -> int:
        """Bitmask of the stones of ``other`` a mill may remove: those in no mill, or all when every one is."""
        free = other
        for m in self.mills:
            if other & m == m:
                free &= ~m
        return free if free else other

    # -- rules ------------------------------------------------------------------

    def initial_state(self) -> int:
        return self.make(0, 0, "x", self.stones, self.stones)

    def to_move(self, state: int) -> str:
        return "o" if state & self.side_bit else "x"

    def _steps(self, own: int, other: int, hand: int) -> list[tuple[int, int]]:
        """``(from, to)`` of every placement (from -1) or slide of the mover, before removals."""
        empty = self._mask & ~(own | other)
        if hand:
            return [(-1, b) for b in set_bits(empty)]
        flies = self.flying and own.bit_count() == 3
        neighbours = self.neighbours
        return [(a, b) for a in set_bits(own) for b in set_bits(empty if flies else neighbours[a] & empty)]

    def _can_move(self, own: int, other: int) -> bool:
        """Whether the mover, with no stones in hand, has a slide (or a flight)."""
        empty = self._mask & ~(own | other)
        if self.flying and own.bit_count() == 3:
            return empty != 0
        neighbours = self.neighbours
        return any(neighbours[a] & empty for a in set_bits(own))

    def outcome(self, state: int) -> Outcome | None:
        own, other, hand, _ = self._mover(state)
        if own.bit_count() + hand < 3:
            return LOSS
        if not hand and not self._can_move(own, other):
            return LOSS
        return None

    def legal_moves(self, state: int) -> list[int]:
        own, other, hand, _ = self._mover(state)
        if own.bit_count() + hand < 3:
            return []
        n = self.cells
        moves: list[int] = []
        removable = self.removable(other) if other else 0
        for a, b in self._steps(own, other, hand):
            after = (own & ~(1 << a) if a >= 0 else own) | 1 << b
            base = b + n * (a + 1)
            if removable and self.in_mill(after, b):
                moves.extend(base + n * (n + 1) * (c + 1) for c in set_bits(removable))
            else:
                moves.append(base)
        return moves

    @staticmethod
    def split(move: int, cells: int) -> tuple[int, int, int]:
        """``(from, to, removed)`` of a move code, -1 for none."""
        to, rest = move % cells, move // cells
        return rest % (cells + 1) - 1, to, rest // (cells + 1) - 1

    def apply(self, state: int, move: int) -> int:
        n = self.cells
        a, b, c = self.split(move, n)
        o_moves = bool(state & self.side_bit)
        shift, other_shift = (n, 0) if o_moves else (0, n)
        if a >= 0:
            state &= ~(1 << (a + shift))
        else:
            state -= 1 << (self.hand_shift + (4 if o_moves else 0))
        state |= 1 << (b + shift)
        if c >= 0:
            state &= ~(1 << (c + other_shift))
        return state ^ self.side_bit

    def transform_move(self, move: int, sym: int) -> int:
        p = self.cell_permutation(sym)
        n = self.cells
        a, b, c = self.split(move, n)
        return p[b] + n * (p[a] + 1 if a >= 0 else 0) + n * (n + 1) * (p[c] + 1 if c >= 0 else 0)

    def size_bound(self, symmetry: bool = True) -> int | None:
        from math import comb

        n, s = self.cells, self.stones
        total = 0
        for xb in range(s + 1):
            for ob in range(s + 1):
                boards = comb(n, xb) * comb(n - xb, ob)
                hands = sum(1 for xh in range(s - xb + 1) for oh in range(s - ob + 1) if xh or oh) + 2
                total += boards * hands
        return total // (self.num_symmetries if symmetry else 1) + 1

    def tiering(self, limit: int | None = None) -> DenseTiers:
        """The folded movement-phase tiers of at most ``limit`` stones a side (default and at most: the
        stones the game starts with; :mod:`tablebase.games.morris.tier_table`)."""
        from tablebase.games.morris.tier_table import MorrisTierTable

        if limit is not None and limit > self.stones:
            raise ValueError(f"{limit} stones a side: {self.name} starts with {self.stones}")
        return MorrisTierTable(self, self.stones if limit is None else limit)

    def tier_name(self, number: int) -> str | None:
        from tablebase.games.morris.tier_table import folded_name

        return folded_name(self.cells, number)

    def plies_played(self, state: int) -> int | None:
        xh, oh = self.hands(state)
        if xh or oh:
            return 2 * self.stones - xh - oh
        return None

    def unmoves(self, state: int) -> list[tuple[int, int]]:
        n = self.cells
        xs, os = self.boards(state)
        xh, oh = self.hands(state)
        parent_side = "x" if state & self.side_bit else "o"
        own, other = (xs, os) if parent_side == "x" else (os, xs)
        own_hand, other_hand = (xh, oh) if parent_side == "x" else (oh, xh)
        empty = self._mask & ~(xs | os)
        found = []
        s = self.stones
        # a placement needs the hands before it to give the mover the turn: x when they are equal
        placed = own_hand < s and own_hand + (parent_side == "x") == other_hand
        slid = not own_hand and not other_hand
        flies = self.flying and own.bit_count() == 3
        room = other.bit_count() + other_hand < s
        for b in set_bits(own):
            milled = self.in_mill(own, b)
            froms = [-1] if placed else []
            if slid:
                froms += [a for a in set_bits(empty) if flies or self.neighbours[a] >> b & 1]
            for a in froms:
                before = own & ~(1 << b) | (1 << a if a >= 0 else 0)
                hand_before = own_hand + (a < 0)
                if before.bit_count() + hand_before < 3:
                    continue
                removals = [] if milled and other else [-1]
                if milled and room:
                    removals += set_bits(empty & ~(1 << a if a >= 0 else 0))
                for c in removals:
                    other_before = other | (1 << c if c >= 0 else 0)
                    if c >= 0 and not self.removable(other_before) >> c & 1:
                        continue
                    if parent_side == "x":
                        parent = self.make(before, other_before, "x", hand_before, other_hand)
                    else:
                        parent = self.make(other_before, before, "o", other_hand, hand_before)
                    found.append((parent, b + n * (a + 1) + (n * (n + 1) * (c + 1) if c >= 0 else 0)))
        return found

    # -- notation ---------------------------------------------------------------

    def format_board_text(self, state: int) -> str:
        xs, os = self.boards(state)
        n = self.cells
        # a decimal digit a point, last point first: 1 for x, 2 for o (no digit carries)
        digits = str(int(format(xs, f"0{n}b")) + 2 * int(format(os, f"0{n}b"))).zfill(n)
        return digits.translate(_POINT_TEXT)[::-1]

    def format_position(self, state: int) -> str:
        xh, oh = self.hands(state)
        return f"{self.format_board_text(state)} {self.to_move(state)} {xh} {oh}"

    def parse_position(self, text: str) -> int:
        if not isinstance(text, str):
            raise MalformedPositionError(f"position must be a string, got {text!r}")
        parts = text.split(" ")
        n, s = self.cells, self.stones
        example = f"{'.' * n} x {s} {s}"
        if len(parts) not in (2, 4):
            raise MalformedPositionError(
                f"invalid position {text!r}: expected the {n} points, the side to move and the stones"
                f" x and o hold in hand, separated by spaces ({example!r})"
            )
        board, side = parts[0], parts[1]
        bad = next((ch for ch in board if ch not in "xo."), None)
        if bad is not None:
            raise MalformedPositionError(f"invalid position {text!r}: bad character {bad!r} (points are 'x', 'o' or '.')")
        if len(board) != n:
            raise MalformedPositionError(f"invalid position {text!r}: {len(board)} points, {self.name} has {n}")
        if side not in ("x", "o"):
            raise MalformedPositionError(f"invalid position {text!r}: side to move must be 'x' or 'o', got {side!r}")
        if len(parts) == 4:
            if not all(p.isascii() and p.isdigit() and len(p) <= 2 for p in parts[2:]):
                raise MalformedPositionError(f"invalid position {text!r}: the hands must be numbers 0..{s}")
            xh, oh = int(parts[2]), int(parts[3])
        else:
            xh = oh = 0
        xs = sum(1 << i for i, ch in enumerate(board) if ch == "x")
        os = sum(1 << i for i, ch in enumerate(board) if ch == "o")
        for who, hand, placed in (("x", xh, xs.bit_count()), ("o", oh, os.bit_count())):
            if hand > s:
                raise MalformedPositionError(f"invalid position {text!r}: {who} holds {hand} in hand, each side has {s}")
            if hand + placed > s:
                raise MalformedPositionError(
                    f"invalid position {text!r}: {who} has {placed} on the board and {hand} in hand, more than {s}"
                )
        if xh or oh:
            counted = "x" if xh == oh else "o" if oh == xh + 1 else None
            if counted is None:
                raise MalformedPositionError(
                    f"invalid position {text!r}: hands of {xh} and {oh}; x places first, so o holds as many as x or one more"
                )
            if side != counted:
                raise MalformedPositionError(f"invalid position {text!r}: wrong side to move, the hands say {counted!r}")
        return self.make(xs, os, side, xh, oh)

    def parse_point(self, text: str) -> int | None:
        """The point named ``text``, or ``None``."""
        return self._point.get(text)

    def parse_move(self, state: int, text: str) -> int:
        if not isinstance(text, str):
            raise IllegalMoveError(f"invalid move {text!r}: expected a string")
        match = _MOVE_RE.match(text)
        parts = [None if g is None else self.parse_point(g) for g in match.groups()] if match else []
        if not match or any(p is None and g is not None for p, g in zip(parts, match.groups())):
            one, two = self.names[0], self.names[1]
            raise IllegalMoveError(
                f"invalid move {text!r}: expected a point ({one}..{self.names[-1]}) to place a stone,"
                f" from-to like {one}-{two} to move one, and x and a point after a mill ({one}x{two})"
            )
        if self.outcome(state) is not None:
            raise IllegalMoveError(f"illegal move {text!r}: the game is over")
        first, second, c = (-1 if p is None else p for p in parts)
        a, b = (-1, first) if match.group(2) is None else (first, second)
        side = self.to_move(state)
        own, other, hand, _ = self._mover(state)
        if hand and a >= 0:
            raise IllegalMoveError(f"illegal move {text!r}: {side} still has stones in hand; name an empty point")
        if not hand and a < 0:
            raise IllegalMoveError(f"illegal move {text!r}: {side} has no stones in hand and must move one (from-to)")
        if a >= 0 and not own >> a & 1:
            holds = "is empty" if not other >> a & 1 else "holds a stone of the other side"
            raise IllegalMoveError(f"illegal move {text!r}: {self.names[a]} {holds}, not a stone of {side}")
        if (own | other) >> b & 1:
            raise IllegalMoveError(f"illegal move {text!r}: {self.names[b]} is occupied")
        if a >= 0 and not (self.flying and own.bit_count() == 3) and not self.neighbours[a] >> b & 1:
            raise IllegalMoveError(f"illegal move {text!r}: {self.names[b]} is not next to {self.names[a]}")
        after = (own & ~(1 << a) if a >= 0 else own) | 1 << b
        if other and self.in_mill(after, b):
            if c < 0:
                raise IllegalMoveError(f"illegal move {text!r}: it closes a mill, so name the stone it removes ({text}x...)")
            if not other >> c & 1:
                raise IllegalMoveError(f"illegal move {text!r}: {self.names[c]} holds no stone of the other side")
            if not self.removable(other) >> c & 1:
                raise IllegalMoveError(
                    f"illegal move {text!r}: {self.names[c]} stands in a mill, and the other side has stones in none"
                )
        elif c >= 0:
            raise IllegalMoveError(f"illegal move {text!r}: it closes no mill, so it removes nothing")
        n = self.cells
        return b + n * (a + 1) + (n * (n + 1) * (c + 1) if c >= 0 else 0)

    def format_move(self, move: int) -> str:
        a, b, c = self.split(move, self.cells)
        text = self.names[b] if a < 0 else f"{self.names[a]}-{self.names[b]}"
        return text if c < 0 else f"{text}x{self.names[c]}"

    def format_board(self, state: int) -> str:
        xs, os = self.boards(state)
        marks = ["x" if xs >> i & 1 else "o" if os >> i & 1 else "." for i in range(self.cells)]
        return "\n".join([*self.board.picture(marks), self.status_line(state)])

    def status_line(self, state: int) -> str:
        """One line under the board picture: whose turn and what is in hand, or how the game ended."""
        side = self.to_move(state)
        other = "o" if side == "x" else "x"
        own, their, hand, _ = self._mover(state)
        xh, oh = self.hands(state)
        if own.bit_count() + hand < 3:
            return f"{side} has fewer than three stones: {other} wins"
        if not hand and not self._steps(own, their, 0):
            return f"{side} to move has no move: {other} wins"
        if hand:
            return f"{side} places (in hand: x {xh}, o {oh})"
        return f"{side} {'flies' if self.flying and own.bit_count() == 3 else 'moves'}"

    def layout(self) -> Layout:
        """The nested squares: round points joined by the lines stones slide along.

        Points are at their grid place (``a1`` lower left, ``y`` growing
        downwards, so rank 1 is the bottom row); a move is its points joined
        by ``-``, a removal after ``x``.
        """
        size = self.board.size
        cells: list[LayoutCell] = []
        for name in self.names:
            file, rank = ord(name[0]) - ord("a"), int(name[1:]) - 1
            cells.append({"name": name, "x": float(file), "y": float(size - 1 - rank)})
        edges = [
            (self.names[a], self.names[b])
            for a in range(self.cells) for b in range(a + 1, self.cells) if self.neighbours[a] >> b & 1
        ]
        return {
            "cells": cells,
            "shape": "circle",
            "edges": edges,
            "separators": "",
            "empty": ".",
            "pieces": {"x": "x", "o": "o"},
            "move_separator": "-",
            "removal_separator": "x",
        }

    @cached_property
    def vector(self) -> VectorKernels:  # type: ignore[override]
        """The array kernels of this board (numba is imported on first use only)."""
        from tablebase.games.morris.kernels import MorrisKernels

        return MorrisKernels(self)


class LargeMorrisGame(MorrisGame):
    """A Morris game too large for ``tablebase build`` to enumerate whole (Nine Men's Morris)."""

    enumerable = False


def morris(board: MorrisBoard, stones: int, flying: bool, name: str) -> MorrisGame:
    """The variant of ``stones`` each on ``board``; :class:`LargeMorrisGame` above
    :data:`ENUMERABLE_UP_TO` classes."""
    game = MorrisGame(board, stones, flying, name)
    if (game.size_bound(True) or 0) > ENUMERABLE_UP_TO:
        return LargeMorrisGame(board, stones, flying, name)
    return game


def morris_6() -> MorrisGame:
    """Six Men's Morris: two squares, six stones each, mills along the sides, no flying."""
    return morris(SIX, 6, False, "morris-6")


def morris_9() -> MorrisGame:
    """Nine Men's Morris: three squares, nine stones each, flying with three."""
    return morris(NINE, 9, True, "morris-9")


#: How the parametrised names read (``tablebase variants`` prints it).
NAMING = "morris-B-S: the board of Six (B=6) or Nine (B=9) Men's Morris with S stones each (e.g. morris-6-4)"


def from_name(name: str) -> MorrisGame | None:
    """The game named ``morris-6-S`` or ``morris-9-S``, or ``None`` if the name is not of that form."""
    match = re.fullmatch(r"morris-(6|9)-(\d{1,2})", name)
    if not match:
        return None
    board, stones = match.group(1), int(match.group(2))
    if board == "6":
        return morris(SIX, stones, False, name)
    return morris(NINE, stones, True, name)
