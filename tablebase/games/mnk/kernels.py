"""The m,n,k rules over numpy arrays of states: the array kernels of :class:`~tablebase.games.mnk.MNKGame`.

A module of its own so that the rules (:mod:`tablebase.games.mnk.rules`) import
without numpy; :attr:`MNKGame.vector` imports this on first use.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from tablebase.games.common.kernels import DRAW_CODE, LOSS_CODE, UNKNOWN_CODE, WIN_CODE, BitboardKernels, BoardRules, popcount


class MNKRules(BoardRules, Protocol):
    """What the kernels read of an :class:`~tablebase.games.mnk.MNKGame`."""

    m: int
    n: int
    misere: bool
    full: int
    lines: list[int]


class MNKKernels(BitboardKernels):
    """The m,n,k rules over arrays of states (``x bits | o bits << cells``)."""

    layered = True

    def __init__(self, game: MNKRules):
        super().__init__(game, state_bits=2 * game.cells)
        self.m, self.n = game.m, game.n
        self.mask = np.uint64(game.full)
        self.shift = np.uint64(game.cells)
        self.lines = [np.uint64(line) for line in game.lines]
        self.end_code = WIN_CODE if game.misere else LOSS_CODE
        self.cell_bits = np.uint64(1) << np.arange(game.cells, dtype=np.uint64)

    def split(self, states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The x and the o bitboards."""
        states = np.asarray(states, dtype=np.uint64)
        return states & self.mask, (states >> self.shift) & self.mask

    def layer(self, states: np.ndarray) -> np.ndarray:
        return popcount(np.asarray(states, dtype=np.uint64)).astype(np.int32)

    def outcome(self, states: np.ndarray) -> np.ndarray:
        xs, os = self.split(states)
        last = np.where(popcount(xs) > popcount(os), xs, os)
        lined = np.zeros(len(xs), dtype=bool)
        for line in self.lines:
            lined |= (last & line) == line
        codes = np.full(len(xs), UNKNOWN_CODE, dtype=np.int8)
        codes[(xs | os) == self.mask] = DRAW_CODE
        codes[lined] = self.end_code
        return codes

    def children(self, states: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        states = np.asarray(states, dtype=np.uint64)
        xs, os = self.split(states)
        free = (~(xs | os) & self.mask)[:, None] & self.cell_bits != 0
        parent, cell = np.nonzero(free)
        o_moves = popcount(xs[parent]) > popcount(os[parent])
        bit = self.cell_bits[cell] << np.where(o_moves, self.shift, np.uint64(0))
        return parent, cell.astype(np.int16), states[parent] | bit

    def to_move(self, states: np.ndarray) -> list[str]:
        xs, os = self.split(states)
        sides: list[str] = np.where(popcount(xs) > popcount(os), "o", "x").astype(object).tolist()
        return sides

    def _chars(self, states: np.ndarray, dtype: type) -> np.ndarray:
        """One row of character codes per state: the position string."""
        xs, os = self.split(states)
        width = self.m * self.n + self.n - 1
        chars: np.ndarray = np.full((len(xs), width), ord("/"), dtype=dtype)
        for cell in range(self.m * self.n):
            column = cell // self.m * (self.m + 1) + cell % self.m
            bit = self.cell_bits[cell]
            chars[:, column] = np.where(xs & bit != 0, ord("x"), np.where(os & bit != 0, ord("o"), ord(".")))
        return chars

    def format_positions(self, states: np.ndarray) -> list[str]:
        chars = self._chars(states, np.uint32)
        return chars.view(f"<U{chars.shape[1]}").ravel().tolist()

    def key_bytes(self, states: np.ndarray) -> np.ndarray:
        chars = self._chars(states, np.uint8)
        return chars.view(f"S{chars.shape[1]}").ravel()

    def key_order(self, states: np.ndarray) -> np.ndarray:
        # the text reads cells in order, and '.' < 'o' < 'x': a base-3 number, first cell most significant
        xs, os = self.split(states)
        order = np.zeros(len(xs), dtype=np.uint64)
        for cell in range(self.m * self.n):
            bit = self.cell_bits[cell]
            order *= np.uint64(3)
            order += ((xs & bit) != 0).astype(np.uint64) * np.uint64(2) + ((os & bit) != 0).astype(np.uint64)
        return order

    def parse_positions(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        width = self.m * self.n + self.n - 1
        board = np.array(texts, dtype=f"<U{width + 1}")
        chars = board.view(np.uint32).reshape(len(board), width + 1)
        fits = chars[:, width] == 0
        for column in range(self.m, width, self.m + 1):
            fits &= chars[:, column] == ord("/")
        xs = np.zeros(len(board), dtype=np.uint64)
        os = np.zeros(len(board), dtype=np.uint64)
        for cell in range(self.m * self.n):
            c = chars[:, cell // self.m * (self.m + 1) + cell % self.m]
            xs[c == ord("x")] |= self.cell_bits[cell]
            os[c == ord("o")] |= self.cell_bits[cell]
            fits &= (c == ord("x")) | (c == ord("o")) | (c == ord("."))
        nx, no = popcount(xs).astype(np.int16), popcount(os).astype(np.int16)
        x_line = np.zeros(len(board), dtype=bool)
        o_line = np.zeros(len(board), dtype=bool)
        for line in self.lines:
            x_line |= (xs & line) == line
            o_line |= (os & line) == line
        ok = fits & ((nx - no == 0) | (nx - no == 1))
        ok &= ~(x_line & o_line) & ~(x_line & (nx == no)) & ~(o_line & (nx != no))
        states = xs | (os << self.shift)
        if not ok.all():
            # anything off the plain format (a side-to-move suffix, say) goes through the rules
            odd = np.flatnonzero(~fits)
            fallback, parsed = super().parse_positions([texts[i] for i in odd])
            states[odd], ok[odd] = fallback, parsed
        return states, ok
