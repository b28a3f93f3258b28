"""Connect Four states as bits, and the operations on their bitboards, for the rules and the compiled searches.

A state holds ``rows + 1`` bits per column, column ``c`` from bit
``c * (rows + 1)``: the discs from the bottom (1 for x, 0 for o) under a
sentinel bit that marks the column's height. A bitboard holds one bit per cell
on the same bits (bit ``c * (rows + 1) + r`` is column ``c``, row ``r`` from the
bottom).

:func:`fours` and :func:`winning_spots` use shifts and bitwise operations only,
so they run on Python integers, on numpy arrays of bitboards and, compiled by
numba (:mod:`tablebase.games.connect4.compiled_bits`), on 64-bit words; this
module imports neither numpy nor numba.
"""

from __future__ import annotations

from typing import Any


def to_bitboards(state: int, columns: int, rows: int) -> tuple[int, int]:
    """``(x_bits, mask)`` of a state: x's discs and every disc, as bitboards."""
    state = int(state)  # builders may pass numpy integers
    x_bits = mask = 0
    height = rows + 1
    column = (1 << height) - 1
    for c in range(columns):
        shift = c * height
        block = state >> shift & column
        below = (1 << (block.bit_length() - 1)) - 1
        mask |= below << shift
        x_bits |= (block & below) << shift
    return x_bits, mask


def fours(bits: Any, rows: int) -> Any:
    """The lowest cell of each four in a row of ``bits`` (one player's discs), in any of the four
    directions: zero exactly when ``bits`` hold no four."""
    pairs = bits & bits >> 1
    found = pairs & pairs >> 2
    for step in (rows + 1, rows, rows + 2):
        pairs = bits & bits >> step
        found |= pairs & pairs >> 2 * step
    return found


def has_four(bits: int, rows: int) -> bool:
    """Whether ``bits`` (one player's discs) hold four in a row."""
    return bool(fours(bits, rows))


def winning_spots(position: Any, rows: int) -> Any:
    """Cells (possibly off the board or taken) that would complete a four of ``position``."""
    r = (position << 1) & (position << 2) & (position << 3)
    for s in (rows + 1, rows, rows + 2):
        p = (position << s) & (position << 2 * s)
        r |= p & (position << 3 * s)
        r |= p & (position >> s)
        p = (position >> s) & (position >> 2 * s)
        r |= p & (position << s)
        r |= p & (position >> 3 * s)
    return r
