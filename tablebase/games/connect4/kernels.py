"""The Connect Four rules over numpy arrays of states: the array kernels of :class:`~tablebase.games.connect4.Connect4Game`.

A module of its own so that the rules (:mod:`tablebase.games.connect4.rules`)
import without numpy; :attr:`Connect4Game.vector` imports this on first use.

A state holds ``H + 1`` bits per column (see :mod:`tablebase.games.connect4.rules`):
the discs below a sentinel bit. Every column block is at most 8 bits wide,
so the heights come from a 256-entry table; the cells holding a disc come
from smearing each sentinel downwards, as in :meth:`Connect4Game.disc_mask`.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from tablebase.games.common.kernels import DRAW_CODE, LOSS_CODE, UNKNOWN_CODE, ScalarRules, VectorKernels, popcount
from tablebase.games.connect4.bits import fours


class Connect4Rules(ScalarRules, Protocol):
    """What the kernels read of a :class:`~tablebase.games.connect4.Connect4Game`."""

    columns: int
    rows: int
    cells: int
    #: The masks that keep a smear by 1, 2 and 4 bits inside its column (see ``Connect4Game.disc_mask``).
    _smears: tuple[int, ...]
    #: Every cell below the top of its column.
    _below_top: int

#: Per column block value (up to 8 bits): the number of discs below its sentinel.
_HEIGHT = np.array([max(b.bit_length() - 1, 0) for b in range(256)], dtype=np.int8)


class Connect4Kernels(VectorKernels):
    """The Connect Four rules over arrays of states (column blocks of ``rows + 1`` bits)."""

    layered = True

    def __init__(self, game: Connect4Rules):
        super().__init__(game)
        self.columns, self.rows = game.columns, game.rows
        self.cells = game.cells
        height = game.rows + 1
        self.column_mask = np.uint64((1 << height) - 1)
        self.shifts = [np.uint64(c * height) for c in range(game.columns)]
        self.shift_array = np.array([c * height for c in range(game.columns)], dtype=np.uint64)
        self.smears = [(np.uint64(step), np.uint64(bits)) for step, bits in zip((1, 2, 4), game._smears)]
        self.below_top = np.uint64(game._below_top)

    def blocks(self, states: np.ndarray) -> list[np.ndarray]:
        """Each column's block of every state, as table indices."""
        states = np.asarray(states, dtype=np.uint64)
        return [((states >> shift) & self.column_mask).astype(np.intp) for shift in self.shifts]

    def heights(self, states: np.ndarray) -> np.ndarray:
        """``(len(states), columns)`` ``np.int8``: the discs in each column."""
        blocks = self.blocks(states)
        out = np.empty((len(blocks[0]), self.columns), dtype=np.int8)
        for c, block in enumerate(blocks):
            out[:, c] = _HEIGHT[block]
        return out

    def bitboards(self, states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(x_bits, mask)``: x's discs and every disc, on the bits of the state."""
        states = np.asarray(states, dtype=np.uint64)
        # each column's sentinel smeared downwards (see Connect4Game.disc_mask)
        smeared = states.copy()
        for step, bits in self.smears:
            smeared |= (smeared >> step) & bits
        mask = (smeared >> np.uint64(1)) & self.below_top
        return states & mask, mask

    def has_four(self, bits: np.ndarray) -> np.ndarray:
        """Whether each bitboard (one player's discs) holds four in a row."""
        found: np.ndarray = fours(bits, self.rows) != 0
        return found

    def layer(self, states: np.ndarray) -> np.ndarray:
        plies: np.ndarray = self.heights(states).sum(axis=1, dtype=np.int32)
        return plies

    def outcome(self, states: np.ndarray) -> np.ndarray:
        x_bits, mask = self.bitboards(states)
        plies = popcount(mask)
        last = np.where(plies % 2 == 1, x_bits, mask ^ x_bits)
        codes = np.full(len(x_bits), UNKNOWN_CODE, dtype=np.int8)
        codes[plies == self.cells] = DRAW_CODE
        codes[self.has_four(last)] = LOSS_CODE
        return codes

    def children(self, states: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        states = np.asarray(states, dtype=np.uint64)
        heights = self.heights(states)
        parent, column = np.nonzero(heights < self.rows)
        plies = heights.sum(axis=1, dtype=np.int32)
        bit = np.uint64(1) << (self.shift_array[column] + heights[parent, column].astype(np.uint64))
        before = states[parent]
        # x: the sentinel stays as x's disc and a new one goes above; o: the sentinel carries up
        child = np.where(plies[parent] % 2 == 0, before | (bit << np.uint64(1)), before + bit)
        return parent, column.astype(np.int16), child

    def mirror(self, states: np.ndarray) -> np.ndarray:
        """The left-right mirror image of each state."""
        states = np.asarray(states, dtype=np.uint64)
        image = np.zeros(len(states), dtype=np.uint64)
        for shift, target in zip(self.shifts, reversed(self.shifts)):
            image |= ((states >> shift) & self.column_mask) << target
        return image

    def canonical(self, states: np.ndarray) -> np.ndarray:
        states = np.asarray(states, dtype=np.uint64)
        canonical: np.ndarray = np.minimum(states, self.mirror(states))
        return canonical

    def orbit_sizes(self, states: np.ndarray) -> np.ndarray:
        states = np.asarray(states, dtype=np.uint64)
        sizes: np.ndarray = np.where(self.mirror(states) == states, 1, 2).astype(np.int64)
        return sizes

    def to_move(self, states: np.ndarray) -> list[str]:
        plies = popcount(self.bitboards(states)[1])
        sides: list[str] = np.where(plies % 2 == 0, "x", "o").astype(object).tolist()
        return sides
