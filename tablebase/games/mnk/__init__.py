"""m,n,k games (tic-tac-toe and its relatives): the family package registered as ``mnk``.

The rules are :mod:`.rules`; the dense index of the boards that have one is :mod:`.index`,
its compiled build passes :mod:`.dense`, and the vector kernels :mod:`.kernels`.
"""

from tablebase.games.mnk.rules import (
    CATALOG,
    MAX_CELLS,
    MAX_SIDE,
    NAMING,
    USUAL,
    VARIANTS,
    MNKGame,
    from_name,
    line_masks,
    tictactoe,
    tictactoe_misere,
)

__all__ = [
    "CATALOG", "MAX_CELLS", "MAX_SIDE", "NAMING", "USUAL", "VARIANTS",
    "MNKGame", "from_name", "line_masks", "tictactoe", "tictactoe_misere",
]
