"""Connect Four on boards of 4 to 7 columns and rows: the family package registered as ``connect4``.

The rules are :mod:`.rules` and the operations on their bitboards :mod:`.bits` (compiled
with numba by :mod:`.compiled_bits`); the dense index of the boards built whole is
:mod:`.index`, its compiled build passes :mod:`.dense`, the vector kernels :mod:`.kernels`,
and the exact search that solves positions of the larger boards :mod:`.prover` (with its
static bounds :mod:`.bounds` and table entries :mod:`.entries`), its scores read as
outcomes by :mod:`.score`.
"""

from tablebase.games.connect4.rules import (
    CATALOG,
    MAX_ENUMERABLE_CELLS,
    MAX_SIDE,
    MIN_SIDE,
    NAMING,
    USUAL,
    VARIANTS,
    Connect4Game,
    LargeConnect4Game,
    connect4,
    from_name,
    has_four,
    make,
    to_bitboards,
)

__all__ = [
    "CATALOG", "MAX_ENUMERABLE_CELLS", "MAX_SIDE", "MIN_SIDE", "NAMING", "USUAL", "VARIANTS",
    "Connect4Game", "LargeConnect4Game", "connect4", "from_name", "has_four", "make", "to_bitboards",
]
