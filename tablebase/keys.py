"""Where a position is stored: its canonical key, and the symmetry that maps it there.

With symmetry reduction a tablebase stores one position per symmetry class,
under its *key*: the position string of the class's canonical member. A
position and its key differ by a symmetry of the board, and the moves stored
with the key are named in the key's orientation; :func:`stored_key` says how
they correspond, so that rows read in SQL can be mapped back.
"""

from __future__ import annotations

from tablebase.games.base import Game
from tablebase.results import StoredKey


def stored_key(game: Game, state: int, symmetry: bool = True) -> StoredKey:
    """The :class:`StoredKey` of ``state`` in a tablebase built with or without ``symmetry``."""
    canon, sym = game.canonical(state) if symmetry else (state, 0)
    moves = tuple(
        (game.format_move(move), game.format_move(game.transform_move(move, sym) if sym else move))
        for move, _ in game.children(state)
    )
    return StoredKey(
        variant=game.name,
        position=game.format_position(state),
        key=game.format_position(canon),
        symmetry=sym,
        symmetries=game.num_symmetries if symmetry else 1,
        moves=moves,
    )


__all__ = ["stored_key"]
