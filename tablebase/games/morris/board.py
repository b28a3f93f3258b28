"""The boards of the Morris games: nested squares of points, their lines, steps and symmetries.

A board is ``rings`` concentric squares (Nine Men's Morris: three, Six Men's:
two) of eight points each, laid on a ``(2 * rings + 1)``-wide grid. Point
``k`` of ring ``r`` (ring 0 the outer square) goes round the square from its
lower left corner: even ``k`` are corners, odd ``k`` the midpoints of the
sides. A point steps to its two neighbours on its square and, from a
midpoint, to the midpoints beside it on the next square in or out (when the
board joins the squares). A mill is the three points of one side of a
square, and, where the board has them, the three midpoints on one joining
line (Nine Men's Morris: ``d1 d2 d3`` and three more).

Points are named as the field names them: the file letter ``a``.. from the
left, the rank number ``1``.. from the bottom (``a1`` is the lower left
corner of the outer square, ``d2`` the bottom midpoint of Nine Men's second
square). The point order of position strings and of the state's bits is by
rank, then file.

The symmetries are the eight of the square (rotations by two steps round
every ring at once, and reflections) and, on every such board, each of them
followed by turning the squares inside out (ring ``r`` to ring ``rings - 1 - r``),
which keeps the steps and the mills: 16 in all.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property


@dataclass(frozen=True)
class MorrisBoard:
    """The points, steps, mills and symmetries of a board of ``rings`` nested squares.

    ``joined``: whether the midpoints of neighbouring squares are joined
    (steps between squares); ``cross_mills``: whether the joining lines of
    midpoints are mills too (needs ``rings == 3``).
    """

    rings: int
    joined: bool = True
    cross_mills: bool = False

    @property
    def size(self) -> int:
        """Width (and height) of the grid the points lie on."""
        return 2 * self.rings + 1

    @property
    def cells(self) -> int:
        return 8 * self.rings

    def grid(self, ring: int, k: int) -> tuple[int, int]:
        """``(file, rank)`` of point ``k`` of ``ring``, both from 0 (file 0 is ``a``, rank 0 is ``1``)."""
        c, h = self.rings, self.rings - ring
        offsets = ((-1, -1), (0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0))
        dx, dy = offsets[k % 8]
        return c + dx * h, c + dy * h

    @cached_property
    def ring_points(self) -> tuple[tuple[int, int], ...]:
        """``(ring, k)`` of each point, in point order (by rank, then file)."""
        points = [(r, k) for r in range(self.rings) for k in range(8)]
        points.sort(key=lambda p: (self.grid(*p)[1], self.grid(*p)[0]))
        return tuple(points)

    @cached_property
    def index(self) -> dict[tuple[int, int], int]:
        """The point number of each ``(ring, k)``."""
        return {p: i for i, p in enumerate(self.ring_points)}

    @cached_property
    def names(self) -> tuple[str, ...]:
        """The name of each point, ``a1`` ..."""
        out = []
        for ring, k in self.ring_points:
            file, rank = self.grid(ring, k)
            out.append(f"{chr(ord('a') + file)}{rank + 1}")
        return tuple(out)

    @cached_property
    def neighbours(self) -> tuple[int, ...]:
        """Bitmask of the points each point steps to."""
        masks = [0] * self.cells
        for (ring, k), i in self.index.items():
            steps = [(ring, (k + 1) % 8), (ring, (k - 1) % 8)]
            if self.joined and k % 2:
                steps += [(ring + d, k) for d in (-1, 1) if 0 <= ring + d < self.rings]
            for p in steps:
                masks[i] |= 1 << self.index[p]
        return tuple(masks)

    @cached_property
    def mills(self) -> tuple[int, ...]:
        """Bitmask of the points of each mill."""
        lines = []
        for ring in range(self.rings):
            for k in range(0, 8, 2):
                lines.append(sum(1 << self.index[(ring, (k + j) % 8)] for j in range(3)))
        if self.cross_mills:
            for k in range(1, 8, 2):
                lines.append(sum(1 << self.index[(ring, k)] for ring in range(self.rings)))
        return tuple(sorted(lines))

    @cached_property
    def mills_of(self) -> tuple[tuple[int, ...], ...]:
        """The mills (bitmasks) through each point."""
        return tuple(tuple(m for m in self.mills if m >> i & 1) for i in range(self.cells))

    @cached_property
    def symmetries(self) -> tuple[tuple[int, ...], ...]:
        """The point permutations of the board (identity first; ``perm[i]`` is where point ``i`` goes)."""
        maps = []
        for swap in (False, True):
            for flip in (False, True):
                for turn in range(0, 8, 2):
                    maps.append((swap, flip, turn))
        perms: list[tuple[int, ...]] = []
        for swap, flip, turn in maps:
            perm = []
            for ring, k in self.ring_points:
                r = self.rings - 1 - ring if swap else ring
                j = (turn - k) % 8 if flip else (k + turn) % 8
                perm.append(self.index[(r, j)])
            if tuple(perm) not in perms:
                perms.append(tuple(perm))
        for image in perms:
            self._check_symmetry(image)
        return tuple(perms)

    def _check_symmetry(self, perm: tuple[int, ...]) -> None:
        """Raise unless ``perm`` keeps the steps and the mills."""

        def image(mask: int) -> int:
            return sum(1 << perm[i] for i in range(self.cells) if mask >> i & 1)

        if any(image(self.neighbours[i]) != self.neighbours[perm[i]] for i in range(self.cells)):
            raise ValueError(f"symmetry {perm} does not keep the steps")
        if sorted(image(m) for m in self.mills) != list(self.mills):
            raise ValueError(f"symmetry {perm} does not keep the mills")

    def picture(self, marks: list[str]) -> list[str]:
        """The board as lines of text, ``marks[i]`` drawn on point ``i``, ranks from the top, files below."""
        width = 4 * (self.size - 1) + 1
        rows = 2 * self.size - 1
        canvas = [[" "] * width for _ in range(rows)]

        def at(file: int, rank: int) -> tuple[int, int]:
            return 2 * (self.size - 1 - rank), 4 * file

        for i in range(self.cells):
            for j in range(i + 1, self.cells):
                if not self.neighbours[i] >> j & 1:
                    continue
                (ri, ci), (rj, cj) = at(*self.grid(*self.ring_points[i])), at(*self.grid(*self.ring_points[j]))
                if ri == rj:
                    for c in range(min(ci, cj) + 1, max(ci, cj)):
                        canvas[ri][c] = "-"
                else:
                    for r in range(min(ri, rj) + 1, max(ri, rj)):
                        canvas[r][ci] = "|"
        for i, (ring, k) in enumerate(self.ring_points):
            r, c = at(*self.grid(ring, k))
            canvas[r][c] = marks[i]
        lines = []
        for r, row in enumerate(canvas):
            label = str(self.size - r // 2) if r % 2 == 0 else " "
            lines.append(f"{label} " + "".join(row).rstrip())
        lines.append("  " + "   ".join(chr(ord("a") + f) for f in range(self.size)))
        return lines


#: Nine Men's Morris: three squares joined at their midpoints, mills along the joining lines too.
NINE = MorrisBoard(rings=3, joined=True, cross_mills=True)
#: Six Men's Morris: two squares joined at their midpoints, mills along the squares' sides only.
SIX = MorrisBoard(rings=2, joined=True, cross_mills=False)
