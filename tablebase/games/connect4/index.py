"""The dense index of a Connect Four board's positions, ply by ply (no numba needed to read it).

A gravity board's position is its column heights and the colours of its
discs, and a position of ply ``p`` has ``ceil(p / 2)`` x discs. So the
positions of ply ``p`` are numbered densely (their *slot*): the height vectors
summing to ``p`` in increasing order of their code ``sum h_c (H + 1)^c``, each
followed by its ``C(p, ceil(p / 2))`` colourings. A colouring is the set of x
discs among the ``p`` discs in column-major order (bottom first), ranked in
colex order, which is the order of the set's bit mask as an integer.

Not every slot is a position: some cannot arise in play (a four for the side
that did not move last, or discs that no order of turns can drop). The
build over the index is :mod:`tablebase.games.connect4.index_passes`; the storage
that keeps one value a slot is :mod:`tablebase.store.dense`.
"""

from __future__ import annotations

from math import comb
from typing import TYPE_CHECKING

import numpy as np

from tablebase.games.connect4.bits import has_four, winning_spots
from tablebase.games.common.dense_index import DRAWN_END, LOST_END, WIN_NOW, colex_rank, colex_terms, colex_unrank
from tablebase.games.common.dense_passes import CompiledPasses

if TYPE_CHECKING:
    from tablebase.games.common.dense_kernels import Kernels


class Connect4Index(CompiledPasses):
    """The slot numbering of a ``columns`` x ``rows`` gravity board (see the module)."""

    def __init__(self, columns: int, rows: int):
        self.columns, self.rows = columns, rows
        self.cells = cells = columns * rows
        self.height = rows + 1
        radix = rows + 1
        codes = radix**columns
        heights = np.array([[code // radix**c % radix for c in range(columns)] for code in range(codes)], dtype=np.int64)
        plies = heights.sum(axis=1)
        order = np.lexsort((np.arange(codes), plies))
        #: Height-vector codes by ply, then code; ``starts[p]`` is the first of ply ``p``.
        self.codes = order.astype(np.int64)
        self.starts = np.searchsorted(plies[order], np.arange(cells + 2)).astype(np.int64)
        self.colourings = np.array([comb(p, (p + 1) // 2) for p in range(cells + 1)], dtype=np.int64)
        #: First slot of each height-vector code within its ply.
        self.base = np.zeros(codes, dtype=np.int64)
        sizes = np.zeros(cells + 1, dtype=np.int64)
        for p in range(cells + 1):
            ply_codes = self.codes[self.starts[p] : self.starts[p + 1]]
            self.base[ply_codes] = np.arange(ply_codes.size, dtype=np.int64) * self.colourings[p]
            sizes[p] = ply_codes.size * self.colourings[p]
        self.sizes = sizes
        self.heights = heights
        self.powers = np.array([radix**c for c in range(columns)], dtype=np.int64)
        self._base = self.base.tolist()
        self._powers = self.powers.tolist()
        self._binom = [[comb(n, k) for k in range(cells + 2)] for n in range(cells + 2)]
        self._bottom = sum(1 << c * self.height for c in range(columns))
        self._board = self._bottom * ((1 << rows) - 1)
        self._columns = [((1 << self.height) - 1) << c * self.height for c in range(columns)]
        # per pair of adjacent columns (and a last one alone), per value of their blocks: discs,
        # x discs, x discs in the mirror image's order, the heights' share of the code and of the
        # mirror image's code, the blocks in the mirror image, the discs on the state's bits
        self._pairs = [
            (c * self.height, (1 << self.height * len(group)) - 1, self._pair_table(group))
            for c in range(0, columns, 2)
            for group in [list(range(c, min(c + 2, columns)))]
        ]
        #: The last state :meth:`_parts` worked out, and its parts (a probe finds a position, then its children).
        self._last: tuple[int, tuple[int, int, int, int, int, int, int, int]] = (-1, (0,) * 8)
        # per byte of a colouring, per number of x discs below it: the colex terms of its bits
        self._colex = [
            [[colex_terms(8 * j, t, b) for b in range(256)] for t in range(cells // 2 + 2)] for j in range((cells + 7) // 8)
        ]

    def _pair_table(self, group: list[int]) -> list[tuple[int, int, int, int, int, int, int]]:
        height, last = self.height, self.columns - 1
        table = []
        for value in range(1 << height * len(group)):
            h_all = x_all = mirrored = step = mirror_step = image = filled = 0
            for i, c in enumerate(group):
                b = value >> i * height & (1 << height) - 1
                h = max(b.bit_length() - 1, 0)
                x = b & (1 << h) - 1
                x_all |= x << h_all
                mirrored = mirrored << h | x
                h_all += h
                step += h * self._powers[c]
                mirror_step += h * self._powers[last - c]
                image |= (b or 1) << (last - c) * height
                filled |= ((1 << h) - 1) << c * height
            table.append((h_all, x_all, mirrored, step, mirror_step, image, filled))
        return table

    def ply_sizes(self) -> list[int]:
        """The number of slots of each ply."""
        return [int(s) for s in self.sizes]

    def slot(self, state: int) -> tuple[int, int]:
        """``(ply, slot)`` of the canonical form of a state (the state or its mirror image, whichever
        is the smaller integer: :meth:`Connect4Game.canonical`)."""
        _, ply, slot = self.find(state)
        return ply, slot

    def find(self, state: int) -> tuple[int | None, int, int]:
        """``(derived value, ply, slot)`` of a state: :meth:`derived` and :meth:`slot` in one pass."""
        state = int(state)
        discs, ply, slot = self._parts(state)[:3]
        x_bits = state & discs
        mine = x_bits if ply % 2 == 0 else discs ^ x_bits
        derived = None
        if ply and has_four(discs ^ mine, self.rows):
            derived = LOST_END
        elif ply == self.cells:
            derived = DRAWN_END
        elif (discs + self._bottom) & self._board & winning_spots(mine, self.rows):
            derived = WIN_NOW
        return derived, ply, slot

    def children(self, state: int) -> list[tuple[int, int, int | None, int, int]]:
        """``(move, child, derived value, ply, slot)`` for every move of a position whose game is
        not over: :meth:`find` of each child, the rules' part worked out once for all of them, the
        slots from the parent's colouring."""
        state = int(state)
        rows, bottom, board, height = self.rows, self._bottom, self._board, self.height
        discs, ply, _, mask, mirror_mask, code, mirror_code, image = self._parts(state)
        x_bits = state & discs
        x_moves = ply % 2 == 0
        mine = x_bits if x_moves else discs ^ x_bits
        theirs = discs ^ mine
        playable = (discs + bottom) & board
        # a drop on one of these ends the game with the mover's four; the opponent then wins at once
        # on a cell of theirs that is playable after the drop
        finishing = playable & winning_spots(mine, rows)
        replies = winning_spots(theirs, rows) & board
        full = ply + 1 == self.cells
        base, powers, colex, last = self._base, self._powers, self._colex, self.columns - 1
        # the new disc's place among the discs in column-major order (after the ``before`` discs of the
        # columns left of it), and in the mirror image's order (after the ``after`` discs right of it)
        found = []
        before = 0
        after = ply
        for c in range(self.columns):
            column = self._columns[c]
            h = (discs & column).bit_count()
            after -= h
            cell = playable & column
            if cell:
                # x: the sentinel stays as x's disc and a new one goes above; o: the sentinel carries up
                sentinel = cell << 1
                child = state | sentinel if x_moves else state + cell
                derived: int | None = None
                if cell & finishing:
                    derived = LOST_END
                elif full:
                    derived = DRAWN_END
                elif replies & ((playable ^ cell) | (sentinel & board)):
                    derived = WIN_NOW
                # the column moves to column last - c in the mirror image
                shift = (last - 2 * c) * height
                moved = (child & column) - (state & column)
                if image + (moved << shift if shift >= 0 else moved >> -shift) < child:
                    colouring, at, heights = mirror_mask, after + h, mirror_code + powers[last - c]
                else:
                    colouring, at, heights = mask, before + h, code + powers[c]
                bits = colouring & (1 << at) - 1 | colouring >> at << at + 1 | x_moves << at
                found.append((c, child, derived, ply + 1, base[heights] + colex_rank(bits, colex)))
            before += h
        return found

    def _parts(self, state: int) -> tuple[int, int, int, int, int, int, int, int]:
        """``(discs on the state's bits, ply, slot of the canonical form, colouring, mirror image's
        colouring, height code, mirror image's height code, mirror image)``; the last state's are kept."""
        last = self._last
        if last[0] == state:
            return last[1]
        code = mirror_code = p = mask = mirror_mask = mirror = discs = 0
        for shift, width, table in self._pairs:
            h, x, mirrored_x, step, mirror_step, image, filled = table[state >> shift & width]
            mask |= x << p
            mirror_mask = mirror_mask << h | mirrored_x
            code += step
            mirror_code += mirror_step
            mirror |= image
            discs |= filled
            p += h
        if mirror < state:
            slot = self._base[mirror_code] + colex_rank(mirror_mask, self._colex)
        else:
            slot = self._base[code] + colex_rank(mask, self._colex)
        parts = (discs, p, slot, mask, mirror_mask, code, mirror_code, mirror)
        self._last = (state, parts)
        return parts

    def state(self, ply: int, slot: int) -> int:
        """The state of a slot (whether or not it is a position)."""
        per = int(self.colourings[ply])
        code = int(self.codes[self.starts[ply] + slot // per])
        mask = self._colouring(ply, slot % per)
        state = p = 0
        for c in range(self.columns):
            h = int(self.heights[code, c])
            state |= (1 << h | mask >> p & (1 << h) - 1) << c * self.height
            p += h
        return state

    def child_windows(self, ply: int, first: int, end: int) -> list[tuple[int, int]]:
        """Ranges of slots of ``ply + 1`` holding every child of the slots ``first:end`` of ``ply``: per
        column, from the child of the first slot that can drop there to that of the last (a drop in
        one column keeps the order of height vectors and of colourings), overlaps joined."""
        if ply >= self.cells or end <= first:
            return []
        per = int(self.colourings[ply])
        units = self.codes[self.starts[ply] + first // per : self.starts[ply] + (end - 1) // per + 1]
        found = []
        for c in range(self.columns):
            open_ = np.flatnonzero(self.heights[units, c] < self.rows)
            if open_.size == 0:
                continue
            lo, hi = int(open_[0]), int(open_[-1])
            low = self._child_slot(ply, int(units[lo]), first - first // per * per if lo == 0 else 0, c)
            last = units.size - 1
            high = self._child_slot(ply, int(units[hi]), end - 1 - (end - 1) // per * per if hi == last else per - 1, c)
            found.append((low, high + 1))
        found.sort()
        joined = [found[0]]
        for low, high in found[1:]:
            if low <= joined[-1][1]:
                joined[-1] = (joined[-1][0], max(joined[-1][1], high))
            else:
                joined.append((low, high))
        return joined

    def _colouring(self, ply: int, rank: int) -> int:
        """The set of x discs of colex rank ``rank`` among the discs of ``ply``."""
        return colex_unrank(rank, (ply + 1) // 2, self._binom)

    def _child_slot(self, ply: int, code: int, rank: int, column: int) -> int:
        """The slot in ``ply + 1`` of the child, by a drop in ``column``, of colouring ``rank`` of height vector ``code``."""
        mask = self._colouring(ply, rank)
        at = int(self.heights[code, :column].sum() + self.heights[code, column])
        child = mask & (1 << at) - 1 | mask >> at << at + 1 | (ply % 2 == 0) << at
        return int(self._base[code + self._powers[column]]) + colex_rank(child, self._colex)

    def derived(self, state: int) -> int | None:
        """The packed value the rules give for a position without a search (not stored):
        the end of the game, or a win with the next move; ``None`` otherwise."""
        return self.find(state)[0]

    def kernels(self) -> Kernels:
        """The compiled passes of :mod:`tablebase.games.connect4.index_passes`."""
        from tablebase.games.connect4.index_passes import KERNELS

        return KERNELS
