"""Games on bitboards: cells holding x or o, packed two bitboards to a state, and their symmetries."""

from __future__ import annotations

from typing import Any, Sequence

from tablebase.games.base import Game


def set_bits(mask: int) -> list[int]:
    """The positions of the set bits of ``mask``, lowest first (the cells of a bitboard)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def invert_permutation(perm: Sequence[int]) -> tuple[int, ...]:
    """The inverse of a permutation given as a sequence of images."""
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return tuple(inv)


class BitboardGame(Game):
    """Base for games on a set of cells, each empty, ``x`` or ``o``.

    A state packs two bitboards: bit ``c`` is an x on cell ``c`` and bit
    ``cells + c`` an o on cell ``c``; bits from ``2 * cells`` upward are free
    for the game (side to move, for instance) and are left unchanged by the
    cell symmetries. Subclasses set :attr:`cells` and :attr:`perms` (cell
    permutations, identity first: ``perm[c]`` is where cell ``c`` goes).

    A game in which exchanging every x with an o (and o with x) is also a
    symmetry sets :attr:`colour_swap`; the group then has twice as many
    elements: symmetry ``s`` for ``s < len(perms)`` is ``perms[s]`` alone, and
    ``len(perms) + s`` is ``perms[s]`` followed by the colour swap. The swap
    leaves the free high bits alone, so it suits games whose high bits do not
    depend on colour (Wild tic-tac-toe, where either player may place either
    mark). Use :meth:`cell_permutation` and :meth:`swaps_colours` to map moves.
    """

    cells: int
    perms: tuple[tuple[int, ...], ...] = ()
    #: Whether exchanging x and o is a symmetry too (doubles the group).
    colour_swap: bool = False

    def _init_symmetry(self) -> None:
        if not self.perms:
            self.perms = (tuple(range(self.cells)),)
        n = self.cells
        self._inverse = []
        for p in self.perms:
            inv = invert_permutation(p)
            self._inverse.append(next(i for i, q in enumerate(self.perms) if q == inv))
        if self.colour_swap:
            # the swap commutes with every cell permutation and is its own inverse
            k = len(self.perms)
            self._inverse += [k + i for i in self._inverse]
        self._mask = (1 << n) - 1
        # byte-wise lookup tables: the image under each symmetry of each byte of the two bitboards
        width = 2 * n
        self._board_mask = (1 << width) - 1
        self._byte_shifts = tuple(range(0, width, 8))
        images = [self._bit_images(s) for s in range(self.num_symmetries)]
        self._state_tables = [self._byte_tables(bits) for bits in images]
        # per byte of the board, its images under symmetries 1, 2, ... side by side in one integer
        self._width, self._symmetries = width, self.num_symmetries
        self._all_images = self._byte_tables(
            [sum(bits[b] << width * (s - 1) for s, bits in enumerate(images) if s) for b in range(width)]
        )

    def _bit_images(self, sym: int) -> list[int]:
        """The image under ``sym`` of each bit of the two bitboards."""
        n = self.cells
        perm, swap = self.cell_permutation(sym), self.swaps_colours(sym)
        return [1 << ((b >= n) != swap) * n + perm[b % n] for b in range(2 * n)]

    def _byte_tables(self, bit_image: list[int]) -> tuple[list[int], ...]:
        """Per byte of the board, the OR of ``bit_image`` over the bits set in each of its 256 values."""
        width = len(bit_image)
        tables = []
        for first in self._byte_shifts:
            table = [0] * 256
            for byte in range(1, 256):
                low = byte & -byte
                bit = first + low.bit_length() - 1
                table[byte] = table[byte ^ low] | (bit_image[bit] if bit < width else 0)
            tables.append(table)
        return tuple(tables)

    @property
    def num_symmetries(self) -> int:
        return len(self.perms) * (2 if self.colour_swap else 1)

    def cell_permutation(self, sym: int) -> tuple[int, ...]:
        """The cell permutation of symmetry ``sym`` (``perm[c]`` is where cell ``c`` goes)."""
        return self.perms[sym % len(self.perms)]

    def swaps_colours(self, sym: int) -> bool:
        """Whether symmetry ``sym`` exchanges x and o."""
        return sym >= len(self.perms)

    def transform(self, state: int, sym: int) -> int:
        if sym == 0:
            return state
        board = state & self._board_mask
        image = state ^ board
        for table, shift in zip(self._state_tables[sym], self._byte_shifts):
            image |= table[board >> shift & 0xFF]
        return image

    def inverse_symmetry(self, sym: int) -> int:
        return self._inverse[sym]

    def canonical(self, state: int) -> tuple[int, int]:
        mask = self._board_mask
        board = state & mask
        images = 0
        for table, shift in zip(self._all_images, self._byte_shifts):
            images |= table[board >> shift & 0xFF]
        width = self._width
        best, best_sym = board, 0
        for s in range(1, self._symmetries):
            image = images & mask
            if image < best:
                best, best_sym = image, s
            images >>= width
        return state ^ board | best, best_sym

    def size_bound(self, symmetry: bool = True) -> int | None:
        return int(3**self.cells) // (self.num_symmetries if symmetry else 1) + 1


def grid_symmetries(columns: int, rows: int) -> tuple[tuple[int, ...], ...]:
    """Cell permutations of a ``columns`` x ``rows`` grid: 8 for a square, 4 otherwise.

    Cell ``c`` is column ``c % columns``, row ``c // columns`` (row 0 on top).
    """

    def perm(f: Any) -> tuple[int, ...]:
        out = []
        for c in range(columns * rows):
            col, row = c % columns, c // columns
            ncol, nrow, width = f(col, row)
            out.append(nrow * width + ncol)
        return tuple(out)

    m, n = columns, rows
    maps = [
        lambda x, y: (x, y, m),
        lambda x, y: (m - 1 - x, y, m),
        lambda x, y: (x, n - 1 - y, m),
        lambda x, y: (m - 1 - x, n - 1 - y, m),
    ]
    if m == n:
        maps += [
            lambda x, y: (y, x, m),
            lambda x, y: (n - 1 - y, x, m),
            lambda x, y: (y, m - 1 - x, m),
            lambda x, y: (n - 1 - y, m - 1 - x, m),
        ]
    perms: list[tuple[int, ...]] = []
    for f in maps:
        p = perm(f)
        if p not in perms:
            perms.append(p)
    return tuple(perms)
