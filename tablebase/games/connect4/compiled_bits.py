"""The bit operations of :mod:`tablebase.games.connect4.bits` compiled with numba, for the compiled searches and builds.

Each is inlined where it is called; on 64-bit words (``np.uint64``) or on
numba's integers.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from tablebase.games.connect4 import bits

fours = njit(cache=True, inline="always")(bits.fours)
winning_spots = njit(cache=True, inline="always")(bits.winning_spots)


@njit(cache=True, inline="always")
def has_four(b: Any, h: int) -> bool:
    """Whether ``b`` (one player's discs, ``h`` rows) holds four in a row."""
    return bool(fours(b, h))


@njit(cache=True, inline="always")
def popcount(x: Any) -> int:
    """The number of bits set in a 64-bit word."""
    n = 0
    while x:
        x &= x - np.uint64(1)
        n += 1
    return n
