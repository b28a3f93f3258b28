"""The dense index of an m,n,k board's positions, ply by ply (no numba needed to read it).

A position of ply ``p`` has ``p // 2`` marks of the side to move (its
*major* set) and ``p - p // 2`` of the side that just moved (its *minor*
set). Its slot is the colex rank of the major set among the sets of that size
on the board, times the number of minor sets, plus the colex rank of the
minor set among the cells the major set leaves free (colex order is the
order of a set's bit mask as an integer). Every slot is a placement of the
marks; the slots that no game reaches (both sides with a line, say) are
never stored.

A symmetry class is kept at its slot whose (major, minor) pair, read as the
integer ``major << cells | minor``, is the least under the board's
symmetries. The children of a position keep its minor set as their major
set, so they share a major set when they share that symmetry: the values a
probe reads lie in one stretch of the next ply. The build over the index is
:mod:`tablebase.games.mnk.index_passes`; the storage is :mod:`tablebase.store.dense`.
"""

from __future__ import annotations

from math import comb
from typing import TYPE_CHECKING, Iterator, Sequence

import numpy as np

from tablebase.games.common.dense_index import DRAWN_END, LOST_END, POPCOUNT, WIN_NOW, WON_END, colex_rank, colex_terms, colex_unrank
from tablebase.games.common.dense_passes import CompiledPasses

if TYPE_CHECKING:
    from tablebase.games.common.dense_kernels import Kernels


class MNKIndex(CompiledPasses):
    """The slot numbering of an m,n,k board (see the module)."""

    def __init__(self, cells: int, k: int, misere: bool, perms: Sequence[Sequence[int]], lines: Sequence[int]):
        """The index of a board of ``cells`` cells with the cell permutations ``perms`` (the identity
        first) as its symmetries and ``lines`` (bit masks of ``k`` cells) as its lines."""
        self.cells = cells
        self.k = k
        self.misere = misere
        self.symmetries = symmetries = len(perms)
        self._full = (1 << cells) - 1
        self._nbytes = nbytes = (cells + 7) // 8
        self.binom = np.array([[comb(n, r) for r in range(cells + 2)] for n in range(cells + 2)], dtype=np.int64)
        self._binom: list[list[int]] = self.binom.tolist()
        self.sizes = np.array(
            [comb(cells, p // 2) * comb(cells - p // 2, p - p // 2) for p in range(cells + 1)], dtype=np.int64
        )
        #: ``images[s, j, b]``: the cells of byte ``b`` at byte ``j`` of a cell set under symmetry ``s``.
        self.images = np.zeros((symmetries, nbytes, 256), dtype=np.int64)
        for s in range(symmetries):
            perm = perms[s]
            for j in range(nbytes):
                for byte in range(256):
                    self.images[s, j, byte] = sum(1 << perm[8 * j + t] for t in range(8) if byte >> t & 1 and 8 * j + t < cells)
        self._images: list[list[list[int]]] = self.images.tolist()
        self._all = [
            [sum(self._images[s][j][byte] << cells * (s - 1) for s in range(1, symmetries)) for byte in range(256)]
            for j in range(nbytes)
        ]
        self._cell_images = [[1 << perms[s][c] for c in range(cells)] for s in range(symmetries)]
        counts = cells // 2 + 2
        #: ``colex_table[j, t, b]``: the colex terms of byte ``b`` at byte ``j`` with ``t`` set bits below.
        self.colex_table = np.array(
            [[[colex_terms(8 * j, t, b) for b in range(256)] for t in range(counts)] for j in range(nbytes)],
            dtype=np.int64,
        ).reshape(nbytes, counts, 256)
        self._colex: list[list[list[int]]] = self.colex_table.tolist()
        #: ``pext[f, b]``: the bits of ``b`` at the set bits of ``f``, packed together.
        pext = np.zeros((256, 256), dtype=np.int64)
        for f in range(256):
            spots = [t for t in range(8) if f >> t & 1]
            for b in range(256):
                pext[f, b] = sum(1 << i for i, t in enumerate(spots) if b >> t & 1)
        self.pext = pext
        self._pext: list[list[int]] = pext.tolist()
        self.line_masks = np.array(lines, dtype=np.int64)
        self._lines = list(lines)

    # -- ranks ---------------------------------------------------------------

    def _colex_rank(self, bits: int) -> int:
        return colex_rank(bits, self._colex)

    def _rank_in(self, bits: int, free: int) -> int:
        """The colex rank of ``bits`` among the subsets of ``free`` of its size."""
        packed = shift = 0
        pext = self._pext
        while free:
            fb = free & 255
            packed |= pext[fb][bits & 255] << shift
            shift += POPCOUNT[fb]
            free >>= 8
            bits >>= 8
        return self._colex_rank(packed)

    def _image(self, bits: int, s: int) -> int:
        out = 0
        for table in self._images[s]:
            out |= table[bits & 255]
            bits >>= 8
        return out

    def _sets(self, state: int) -> tuple[int, int, int]:
        """``(ply, major, minor)`` of a state."""
        cells = self.cells
        xs, os = state & self._full, state >> cells
        ply = xs.bit_count() + os.bit_count()
        return (ply, xs, os) if ply % 2 == 0 else (ply, os, xs)

    def _canonical(self, major: int, minor: int) -> tuple[int, int]:
        """The least (major, minor) pair of the symmetry class."""
        cells, full = self.cells, self._full
        key = major << cells | minor
        majors, minors = self._all_images(major), self._all_images(minor)
        for _ in range(1, self.symmetries):
            image = (majors & full) << cells | minors & full
            if image < key:
                key = image
            majors >>= cells
            minors >>= cells
        return key >> cells, key & full

    def _slot(self, ply: int, major: int, minor: int) -> int:
        per = self._binom[self.cells - ply // 2][ply - ply // 2]
        return self._colex_rank(major) * per + self._rank_in(minor, self._full & ~major)

    # -- the protocol --------------------------------------------------------

    def ply_sizes(self) -> list[int]:
        """The number of slots of each ply."""
        return [int(s) for s in self.sizes]

    def slot(self, state: int) -> tuple[int, int]:
        """``(ply, slot)`` of the state's symmetry class."""
        _, ply, slot = self.find(state)
        return ply, slot

    def find(self, state: int) -> tuple[int | None, int, int]:
        """``(derived value, ply, slot)``; slot -1 for a placement no game reaches (see
        :meth:`tablebase.games.mnk.MNKGame.can_arise`)."""
        ply, major, minor = self._sets(int(state))
        moving_line, shared, finishing, _ = self._scan(major, minor)
        if moving_line or shared == 0:
            return None, ply, -1
        derived: int | None = None
        if shared is not None:
            derived = WON_END if self.misere else LOST_END
        elif ply == self.cells:
            derived = DRAWN_END
        elif finishing and not self.misere:
            derived = WIN_NOW
        major, minor = self._canonical(major, minor)
        return derived, ply, self._slot(ply, major, minor)

    def _scan(self, major: int, minor: int) -> tuple[bool, int | None, int, int]:
        """One pass over the lines: whether the side to move has a line; the cells shared by the lines
        of the side that just moved (``None`` when it has none); the cells where the side to move,
        and where the side that just moved, would complete a line."""
        need = self.k - 1
        moving_line = False
        shared: int | None = None
        finishing = spots = 0
        for line in self._lines:
            mine = line & major
            theirs = line & minor
            if not theirs:
                if mine == line:
                    moving_line = True
                elif mine.bit_count() == need:
                    finishing |= line ^ mine
            elif not mine:
                if theirs == line:
                    shared = line if shared is None else shared & line
                elif theirs.bit_count() == need:
                    spots |= line ^ theirs
        return moving_line, shared, finishing, spots

    def _all_images(self, bits: int) -> int:
        """The images of a cell set under symmetries 1, 2, ... side by side, ``cells`` bits each."""
        out = 0
        for table in self._all:
            out |= table[bits & 255]
            bits >>= 8
        return out

    def children(self, state: int) -> list[tuple[int, int, int | None, int, int]]:
        """``(move, child, derived value, ply, slot)`` for every move of a position whose game is not over."""
        state = int(state)
        cells, full = self.cells, self._full
        ply, major, minor = self._sets(state)
        child_ply = ply + 1
        # the children's major set is this position's minor set: its least images fix their symmetry
        images = [minor]
        others = self._all_images(minor)
        for _ in range(1, self.symmetries):
            images.append(others & full)
            others >>= cells
        least = min(images)
        syms = [s for s, image in enumerate(images) if image == least]
        movers = [self._image(major, s) for s in syms]
        cell_images = [self._cell_images[s] for s in syms]
        base = self._colex_rank(least) * self._binom[cells - child_ply // 2][child_ply - child_ply // 2]
        free = full & ~least
        # a mark on ``finishing`` ends the game; one on no cell of ``spots`` but the one it takes
        # leaves the side that just moved a win with its next mark
        _, _, finishing, spots = self._scan(major, minor)
        if self.misere:
            spots = 0
        if len(syms) == 1:
            # the children's minor sets are one set plus a cell: its colex terms before and after
            # each place, so that a child's rank is two sums and one term
            binom = self._binom
            mover = movers[0]
            places = [(free & (bit - 1)).bit_count() for bit in _bits(mover)]
            before = [0]
            for i, q in enumerate(places, 1):
                before.append(before[-1] + binom[q][i])
            after = [0]
            for i in range(len(places), 0, -1):
                after.append(after[-1] + binom[places[i - 1]][i + 1])
            after.reverse()
        shift = 0 if ply % 2 == 0 else cells
        empty = full & ~(major | minor)
        found = []
        while empty:
            bit = empty & -empty
            empty ^= bit
            cell = bit.bit_length() - 1
            derived: int | None = None
            if bit & finishing:
                derived = WON_END if self.misere else LOST_END
            elif child_ply == cells:
                derived = DRAWN_END
            elif spots & ~bit:
                derived = WIN_NOW
            if len(syms) == 1:
                image = cell_images[0][cell]
                below = (mover & (image - 1)).bit_count()
                rank = before[below] + binom[(free & (image - 1)).bit_count()][below + 1] + after[below]
            else:
                rank = self._rank_in(min(m | images_[cell] for m, images_ in zip(movers, cell_images)), free)
            found.append((cell, state | bit << shift, derived, child_ply, base + rank))
        return found

    def state(self, ply: int, slot: int) -> int:
        """The state of a slot (whether or not a game reaches it)."""
        cells, binom = self.cells, self._binom
        a, b = ply // 2, ply - ply // 2
        per = binom[cells - a][b]
        major = colex_unrank(slot // per, a, binom)
        free = [c for c in range(cells) if not major >> c & 1]
        packed = colex_unrank(slot % per, b, binom)
        minor = sum(1 << free[i] for i in range(len(free)) if packed >> i & 1)
        xs, os = (major, minor) if ply % 2 == 0 else (minor, major)
        return xs | os << cells

    def derived(self, state: int) -> int | None:
        """The packed value the rules give a position without a search (not stored): the end of the
        game, or a win with the next move; ``None`` otherwise."""
        return self.find(state)[0]

    def kernels(self) -> Kernels:
        """The compiled passes of :mod:`tablebase.games.mnk.index_passes`."""
        from tablebase.games.mnk.index_passes import KERNELS

        return KERNELS



def _bits(mask: int) -> Iterator[int]:
    """The set bits of ``mask`` from the lowest, each as a one-bit integer."""
    while mask:
        bit = mask & -mask
        yield bit
        mask ^= bit
